/** The remote tap's headers (--header with environment variables; redaction at record time) and its SSE splitting. */
import { describe, expect, it } from 'vitest';
import { isRemoteTarget, isSecretHeader, parseHeaderFlags, redactHeaders, redactUrl } from '../../src/remote/headers.js';
import { SseSplitter, asLine, sseOf } from '../../src/remote/sse-splitter.js';
import { HELD_METHOD, HeldMessages } from '../../src/remote/held.js';

describe('--header', () => {
  it('takes "Name: value", repeatable, with ${VAR} and $VAR from the environment', () => {
    expect(parseHeaderFlags(['Authorization: Bearer ${TOKEN}', 'X-Team:  $TEAM-a', 'X-Empty:'], { TOKEN: 't0k', TEAM: 'core' })).toEqual({
      Authorization: 'Bearer t0k', 'X-Team': 'core-a', 'X-Empty': '',
    });
  });

  it('refuses a flag without a name, an unset variable and a line break, naming the flag', () => {
    expect(() => parseHeaderFlags(['no colon here'], {})).toThrow('--header needs "Name: value", got "no colon here"');
    expect(() => parseHeaderFlags(['Bad Name: x'], {})).toThrow(/--header needs "Name: value"/);
    expect(() => parseHeaderFlags(['A: ${NOPE}'], {})).toThrow('--header A: environment variable NOPE is not set');
    expect(() => parseHeaderFlags(['A: ${V}'], { V: 'x\r\nInjected: y' })).toThrow('--header A: the value may not hold a line break');
  });
});

describe('redaction at record time', () => {
  it('hides Authorization, Cookie, Set-Cookie and anything named like a key, token or secret; keeps the rest', () => {
    for (const name of ['Authorization', 'proxy-authorization', 'Cookie', 'set-cookie', 'X-Api-Key', 'x-auth-token', 'X-Client-Secret', 'api_key']) expect(isSecretHeader(name), name).toBe(true);
    for (const name of ['Acp-Connection-Id', 'Acp-Session-Id', 'Content-Type', 'Accept', 'Date']) expect(isSecretHeader(name), name).toBe(false);
    expect(redactHeaders([['Authorization', 'Bearer x'], ['Acp-Session-Id', 's1'], ['Set-Cookie', 'a=1'], ['set-cookie', 'b=2']])).toEqual({
      authorization: '<redacted>', 'acp-session-id': 's1', 'set-cookie': '<redacted>, <redacted>',
    });
    expect(redactUrl('https://me:hunter2@agents.example.com/acp')).toBe('https://me:redacted@agents.example.com/acp');
    expect(redactUrl('https://agents.example.com/acp')).toBe('https://agents.example.com/acp');
  });

  it('knows a remote target by its scheme', () => {
    for (const t of ['http://h/acp', 'HTTPS://h/acp', 'ws://h/acp', 'wss://h/acp']) expect(isRemoteTarget(t), t).toBe(true);
    for (const t of ['node', './http-agent', 'file:///x', 'httpd']) expect(isRemoteTarget(t), t).toBe(false);
  });
});

describe('SSE events', () => {
  it('splits events at blank lines (LF or CRLF), across chunks, joining data lines', () => {
    const sse = new SseSplitter();
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(sse.push(enc('id: 1\ndata: {"a"'))).toEqual([]);
    expect(sse.push(enc(':1}\n\n: comment\n\nevent: message\r\ndata: x\r\ndata: y\r\n\r\n'))).toEqual([
      { id: '1', data: '{"a":1}' }, { event: 'message', data: 'x\ny' },
    ]);
    // A UTF-8 character split between two chunks stays whole.
    const bytes = enc('data: é\n\n');
    expect([...sse.push(bytes.subarray(0, 7)), ...sse.push(bytes.subarray(7))]).toEqual([{ data: 'é' }]);
  });

  it('splits lines as the SDK\'s client does: a bare CR, a CRLF cut between chunks, a BOM, an event the stream ends without a blank line', () => {
    const sse = new SseSplitter();
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(sse.push(enc('data: a\r\rdata: b\r'))).toEqual([{ data: 'a' }]);
    // The LF after a chunk's last CR ends no line of its own.
    expect(sse.push(enc('\n\r\n\ufeffdata: c\n'))).toEqual([{ data: 'b' }]);
    expect(sse.push(enc('\n: comment\nid: 9\ndata:d'))).toEqual([{ data: 'c' }]);
    expect(sse.end()).toEqual([{ id: '9', data: 'd' }]);
    expect(sse.end()).toEqual([]);
  });

  it('writes an event\'s data back as SSE that parses to the same data', () => {
    for (const data of ['{"a":1}', '{"a":\n1}', '', 'x\n\ny']) {
      const sse = new SseSplitter();
      expect(sse.push(new TextEncoder().encode(sseOf(data))), JSON.stringify(data)).toEqual([{ data }]);
    }
  });

  it('records a message as one line: as it was, or compact when it spans lines', () => {
    expect(asLine('{"a": 1}').toString()).toBe('{"a": 1}\n');
    expect(asLine('{\n  "a": 1\n}').toString()).toBe('{"a":1}\n');
    expect(asLine('not\njson').toString()).toBe('not json\n');
  });
});

describe('notifications held past the SDK\'s client', () => {
  it('one placeholder per run; a message for the SDK ends the run; runs come out in order', () => {
    const held = new HeldMessages();
    const p = held.hold('n1');
    expect(p).not.toBeNull();
    expect(JSON.parse(p!)).toMatchObject({ jsonrpc: '2.0', method: HELD_METHOD });
    expect(held.hold('n2')).toBeNull();
    held.barrier();
    expect(held.hold('n3')).toBe(p);
    expect(held.is(JSON.parse(p!))).toBe(true);
    expect(held.take()).toEqual(['n1', 'n2']);
    // The open run's placeholder was read: a notification after it starts a run of its own.
    expect(held.take()).toEqual(['n3']);
    expect(held.hold('n4')).toBe(p);
    expect(held.hold('n5')).toBeNull();
    expect(held.drain()).toEqual(['n4', 'n5']);
    expect(held.take()).toEqual([]);
  });

  it('knows only its own placeholder', () => {
    const a = new HeldMessages();
    const b = new HeldMessages();
    expect(a.is(JSON.parse(b.placeholder))).toBe(false);
    expect(a.is({ jsonrpc: '2.0', method: HELD_METHOD, params: {} })).toBe(false);
    expect(a.is(null)).toBe(false);
  });
});
