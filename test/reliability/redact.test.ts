/** Redaction keeps the shape and the exact bytes of everything but the secrets. */
import { describe, expect, it } from 'vitest';
import { REDACTED, mayHoldSecret, redactFrame, redactItems, redactValue } from '../../src/redact.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import type { Frame, Item } from '../../src/wire/frame.js';

const frame = (raw: string): Frame => frameFromText(1, 0, 'c2a', raw);

describe('redaction', () => {
  it('redacts MCP server env and headers in session/new, keeping keys, names and the other bytes', () => {
    const raw = '{"jsonrpc": "2.0", "id": 12345678901234567890, "method": "session/new", "params": {"cwd": "/w", "mcpServers": [' +
      '{"name": "fs", "command": "/bin/mcp", "args": ["--x"], "env": [{"name": "GITHUB_TOKEN", "value": "ghp_secret1"}]},' +
      '{"type": "http", "name": "web", "url": "https://mcp.example", "headers": [{"name": "Authorization", "value": "Bearer sk-secret2"}]}]}}';
    const out = redactFrame(frame(raw));
    expect(out.raw).not.toContain('ghp_secret1');
    expect(out.raw).not.toContain('sk-secret2');
    expect(out.raw).toBe(raw.replace('"ghp_secret1"', `"${REDACTED}"`).replace('"Bearer sk-secret2"', `"${REDACTED}"`));
    // The big id keeps its exact digits (re-serializing would have rounded it).
    expect(out.raw).toContain('12345678901234567890');
    expect(out.kind).toBe('request');
    expect(out.method).toBe('session/new');
  });

  it('redacts terminal/create env and providers/set headers (an object)', () => {
    const t = redactFrame(frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'terminal/create', params: { sessionId: 's', command: 'npm', env: [{ name: 'NPM_TOKEN', value: 'npm_abc' }] } })));
    expect((t.json as any).params.env).toEqual([{ name: 'NPM_TOKEN', value: REDACTED }]);
    const p = redactFrame(frame(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'providers/set', params: { providerId: 'p', apiType: 'openai', baseUrl: 'https://u:pw@api.example/v1', headers: { authorization: 'Bearer k', 'x-route': 'eu' } } })));
    expect((p.json as any).params.headers).toEqual({ authorization: REDACTED, 'x-route': REDACTED });
    expect((p.json as any).params.baseUrl).toBe(`https://u:${REDACTED}@api.example/v1`);
    expect(p.raw).not.toMatch(/Bearer k|:pw@/);
  });

  it('redacts credential-like keys anywhere, but not token counts', () => {
    const { value } = redactValue({ apiKey: 'a', 'x-api-key': 'b', accessToken: 'c', client_secret: 'd', password: 'e', cookie: 'f', usage: { inputTokens: 5, maxTokens: 9, tokenCount: 3 }, token: 7 });
    expect(value).toEqual({ apiKey: REDACTED, 'x-api-key': REDACTED, accessToken: REDACTED, client_secret: REDACTED, password: REDACTED, cookie: REDACTED, usage: { inputTokens: 5, maxTokens: 9, tokenCount: 3 }, token: 7 });
  });

  it('redacts inside a JSON array (batch) too', () => {
    const out = redactFrame(frame(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'authenticate', params: { methodId: 'k', apiKey: 'zzz' } }])));
    expect(out.raw).not.toContain('zzz');
    expect(out.kind).toBe('invalid');
  });

  it('redacts a truncated frame whose cut falls inside a secret', () => {
    const full = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'terminal/create', params: { env: [{ name: 'K', value: 'supersecretvalue' }] } });
    const f = frame(full);
    const cutAt = full.indexOf('supersecret') + 5;
    const truncated: Frame = { ...f, raw: full.slice(0, cutAt), truncated: true };
    const out = redactFrame(truncated);
    expect(out.raw).not.toContain('super');
    expect(out.truncated).toBe(true);
    expect(out.size).toBe(f.size);
  });

  it('blanks a frame that holds a key it looks at but is no JSON to edit (a stored frame cut by the cap, a malformed line); keeps one that holds none', () => {
    const full = JSON.stringify({ jsonrpc: '2.0', id: 16, method: 'x/auth', params: { token: 'tøken-✓-that-is-long' } });
    // As the store reads it back: the cut text, no JSON (it cannot be parsed).
    const cut: Frame = { ...frame(full.slice(0, full.indexOf('✓') + 1)), truncated: true, size: Buffer.byteLength(full) };
    expect(cut.json).toBeUndefined();
    const malformed = frame('{"jsonrpc":"2.0","id":3,"method":"x","params":{"password":"hunter2"');
    const harmless = frame('log: nothing here {oops');
    const [a, b, c] = [...redactItems([cut, malformed, harmless])] as Frame[];
    expect(a).toMatchObject({ raw: REDACTED, truncated: true, size: Buffer.byteLength(full), kind: cut.kind });
    expect(b).toMatchObject({ raw: REDACTED, size: REDACTED.length, kind: 'invalid', parseError: malformed.parseError });
    expect(c).toBe(harmless);
    // The same one frame at a time (the HTML report, shared recordings).
    expect(redactFrame(cut).raw).toBe(REDACTED);
    expect(redactFrame(malformed).raw).toBe(REDACTED);
    expect(redactFrame(harmless)).toBe(harmless);
  });

  it('is idempotent and leaves frames without secrets byte-identical', () => {
    const f = frame('{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"token"}]}}');
    expect(redactFrame(f)).toBe(f);
    const once = redactFrame(frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { password: 'p' } })));
    expect(redactFrame(once)).toBe(once);
  });

  it('falls back to re-serializing when a secret value also appears as a non-secret', () => {
    const out = redactFrame(frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { note: 'same', password: 'same' } })));
    expect(out.json).toEqual({ jsonrpc: '2.0', id: 1, method: 'x', params: { note: 'same', password: REDACTED } });
    expect(JSON.parse(out.raw)).toEqual(out.json);
  });

  it('streams a line unparsed only when redaction could not change it (every line it changes is a yes)', () => {
    const secret = [
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"password":"p"}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"password" :  "p"}}', // spaces before the colon
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"password"\t:\n"p"}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"X-Api-Key":"p"}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"pass\\u0077ord":"p"}}', // a key spelled with an escape
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a\\"b-token":"p"}}', // an escaped quote in the key
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"env":{"A":"1"}}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"headers":[{"name":"n","value":"v"}]}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"baseUrl":"https://u:pw@h/"}}',
      '[{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"apiKey":"zzz"}}]',
    ];
    for (const raw of secret) {
      expect(redactFrame(frame(raw)).raw, raw).not.toBe(raw);
      expect(mayHoldSecret(raw), raw).toBe(true);
    }
    const plain = [
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"the token: a password, cookie and env url"}}}}',
      '{"jsonrpc":"2.0","id":1,"result":{"usage":{"inputTokens":5,"tokenCount":3}}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"text":"password: not a key","uri2":"file:///token"}}',
    ];
    for (const raw of plain) {
      expect(redactFrame(frame(raw)).raw, raw).toBe(raw);
      expect(mayHoldSecret(raw), raw).toBe(false);
    }
    // Through the stream, frames read without their JSON: the same lines as redacting each parsed.
    const unparsed = [...secret, ...plain].map((raw, i): Item => {
      const { json: _json, ...f } = frameFromText(i + 1, 0, 'c2a', raw);
      return f;
    });
    expect([...redactItems(unparsed)].map((f) => (f as Frame).raw)).toEqual([...secret, ...plain].map((raw) => redactFrame(frame(raw)).raw));
  });
});
