import { describe, expect, it } from 'vitest';
import { composableMethods, composeNotes, skeleton } from '../../src/spec/compose.js';

const line = (m: unknown) => JSON.stringify(m);

describe('the raw composer\'s schema help', () => {
  it('offers the methods a client sends, requests and notifications, UNSTABLE ones marked, none the agent sends', () => {
    const all = composableMethods();
    const by = new Map(all.map((m) => [m.name, m]));
    expect(by.get('session/prompt')).toMatchObject({ kind: 'request', unstable: false });
    expect(by.get('session/cancel')).toMatchObject({ kind: 'notification', unstable: false });
    expect(by.get('$/cancel_request')).toMatchObject({ kind: 'notification' });
    expect(by.get('session/fork')).toMatchObject({ kind: 'request', unstable: true });
    expect(by.has('session/update')).toBe(false);
    expect(by.has('fs/read_text_file')).toBe(false);
  });

  it('makes a skeleton with the schema\'s required params, the session and folder filled in, an id only for a request', () => {
    expect(skeleton('session/prompt', 4, { sessionId: 's1', cwd: '/w' })).toEqual({ jsonrpc: '2.0', id: 4, method: 'session/prompt', params: { sessionId: 's1', prompt: [] } });
    expect(skeleton('session/new', 5, { cwd: '/w' })).toEqual({ jsonrpc: '2.0', id: 5, method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
    expect(skeleton('session/cancel', 6, { sessionId: 's1' })).toEqual({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's1' } });
    expect(skeleton('initialize', 1)).toEqual({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
    // A union's first branch, with its discriminator.
    expect(skeleton('session/set_config_option', 2, { sessionId: 's1' }).params).toEqual({ sessionId: 's1', configId: '', type: 'boolean', value: false });
    // A method the schema does not describe: spec.md's required fields.
    expect(skeleton('document/didClose', 3, { sessionId: 's1' })).toEqual({ jsonrpc: '2.0', method: 'document/didClose', params: { sessionId: 's1', uri: '' } });
    // Every skeleton of a method the schema describes passes it.
    for (const m of composableMethods()) {
      const notes = composeNotes(line(skeleton(m.name, 9, { sessionId: 's1', cwd: '/w' })));
      if (!m.unstable) expect(notes.filter((n) => n.level === 'warning'), m.name).toEqual([]);
    }
  });

  it('warns about a line as written: not JSON, not JSON-RPC, unknown method, wrong side, missing id, schema problems', () => {
    const texts = (t: string) => composeNotes(t).map((n) => `${n.level}: ${n.text}`);
    expect(texts('')).toEqual([]);
    expect(texts('{"jsonrpc":')[0]).toMatch(/^warning: not JSON/);
    expect(texts('[1]')).toEqual(['warning: a JSON array: ACP sends one JSON-RPC message per line, not a batch']);
    expect(texts(line({ jsonrpc: '1.0', id: 1, method: 'session/list', params: {} }))).toContain('warning: "jsonrpc" must be "2.0", not "1.0"');
    expect(texts(line({ jsonrpc: '2.0', id: 1, method: 'session/promt', params: {} }))[0]).toMatch(/^warning: unknown method session\/promt/);
    expect(texts(line({ jsonrpc: '2.0', id: 1, method: 'fs/read_text_file', params: { sessionId: 's', path: '/a' } }))).toContain('warning: fs/read_text_file is sent by the agent to the client, not by a client');
    expect(texts(line({ jsonrpc: '2.0', method: 'session/prompt', params: { sessionId: 's', prompt: [] } }))).toEqual(['warning: session/prompt is a request: without an "id" it is a notification, and gets no answer']);
    expect(texts(line({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 7, prompt: [] } }))).toEqual(['warning: params.sessionId must be string']);
    expect(texts(line({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's' } }))).toEqual(["warning: params must have required property 'prompt'"]);
    expect(texts(line({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's', extra: 1 } }))).toEqual(['info: params.extra is not a field the schema knows']);
    expect(texts(line({ jsonrpc: '2.0', id: 1, method: '_my/thing' }))).toEqual(['info: _my/thing is an extension method (a leading "_"): the schema does not describe it']);
    // An answer to one of the agent's requests.
    expect(texts(line({ jsonrpc: '2.0', id: 3, result: {} }))).toEqual([]);
    expect(texts(line({ jsonrpc: '2.0', id: 3, result: {}, error: { code: 1, message: 'x' } }))).toEqual(['warning: an answer has exactly one of "result" and "error"']);
    // A valid message says nothing.
    expect(texts(line({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] } }))).toEqual([]);
  });
});
