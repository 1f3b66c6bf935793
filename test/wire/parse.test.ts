import { describe, expect, it } from 'vitest';
import { parseLine } from '../../src/wire/parse.js';
import { Correlator } from '../../src/wire/correlate.js';
import { frameFromText, frameFromBytes } from '../../src/wire/make-frame.js';

describe('parseLine', () => {
  it('classifies requests, notifications, results and errors whatever the key order', () => {
    expect(parseLine('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}')).toMatchObject({ kind: 'request', method: 'initialize', id: 0 });
    expect(parseLine('{"params":{},"method":"session/update","jsonrpc":"2.0"}')).toMatchObject({ kind: 'notification', method: 'session/update' });
    expect(parseLine('{"result":{},"jsonrpc":"2.0","id":"abc"}')).toMatchObject({ kind: 'result', id: 'abc' });
    expect(parseLine('{"jsonrpc":"2.0","error":{"code":-32601,"message":"x"},"id":3}')).toMatchObject({ kind: 'error', id: 3 });
    expect(parseLine('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')).toMatchObject({ kind: 'error', id: null });
  });

  it('records why a line is invalid instead of dropping it', () => {
    expect(parseLine('Starting agent v1.2...')).toMatchObject({ kind: 'invalid' });
    expect(parseLine('Starting agent v1.2...').parseError).toMatch(/not JSON/);
    expect(parseLine('[{"jsonrpc":"2.0"}]').parseError).toMatch(/batch/);
    expect(parseLine('42').parseError).toMatch(/number/);
    expect(parseLine('   ').parseError).toBe('blank line');
    expect(parseLine('{"jsonrpc":"2.0"}').parseError).toMatch(/neither/);
  });

  it('tolerates a trailing CR', () => {
    expect(parseLine('{"jsonrpc":"2.0","method":"x"}\r')).toMatchObject({ kind: 'notification', method: 'x' });
  });
});

describe('Correlator', () => {
  it('pairs a response with the request of the opposite direction and same id', () => {
    const c = new Correlator();
    const init = frameFromText(1, 0, 'c2a', '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}');
    const perm = frameFromText(2, 5, 'a2c', '{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}');
    const initRes = frameFromText(3, 10, 'a2c', '{"jsonrpc":"2.0","id":0,"result":{}}');
    const permRes = frameFromText(4, 12, 'c2a', '{"id":0,"result":{"outcome":{"outcome":"cancelled"}},"jsonrpc":"2.0"}');
    for (const f of [init, perm, initRes, permRes]) c.observe(f);
    expect(initRes).toMatchObject({ method: 'initialize', replyTo: 1, latency: 10 });
    expect(permRes).toMatchObject({ method: 'session/request_permission', replyTo: 2, latency: 7 });
    expect(c.unanswered()).toEqual([]);
  });

  it('forgets the oldest unanswered request past its bound, so memory stays bounded', () => {
    const c = new Correlator(3);
    for (let i = 1; i <= 5; i++) c.observe(frameFromText(i, i, 'a2c', `{"jsonrpc":"2.0","id":${i},"method":"fs/read_text_file"}`));
    expect(c.unanswered().map((p) => p.seq)).toEqual([3, 4, 5]);
    const late = frameFromText(6, 6, 'c2a', '{"jsonrpc":"2.0","id":1,"result":{}}');
    c.observe(late);
    expect(late.replyTo).toBeUndefined();
    const ok = frameFromText(7, 7, 'c2a', '{"jsonrpc":"2.0","id":5,"result":{}}');
    c.observe(ok);
    expect(ok.replyTo).toBe(5);
  });

  it('treats "1" and 1 as different ids and leaves unknown responses unpaired', () => {
    const c = new Correlator();
    c.observe(frameFromText(1, 0, 'c2a', '{"jsonrpc":"2.0","id":"1","method":"a"}'));
    const res = frameFromText(2, 1, 'a2c', '{"jsonrpc":"2.0","id":1,"result":null}');
    c.observe(res);
    expect(res.replyTo).toBeUndefined();
    expect(c.unanswered()).toHaveLength(1);
  });
});

describe('frameFromBytes', () => {
  it('keeps invalid UTF-8 bytes exactly, as base64', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
    const f = frameFromBytes(1, 0, 'a2c', bytes);
    expect(f.kind).toBe('invalid');
    expect(Buffer.from(f.rawBase64!, 'base64')).toEqual(bytes);
    expect(f.size).toBe(3);
  });
  it('extracts the session id for grouping', () => {
    expect(frameFromText(1, 0, 'a2c', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{}}}').sessionId).toBe('s1');
  });
});
