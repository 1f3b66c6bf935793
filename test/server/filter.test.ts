import { describe, expect, it } from 'vitest';
import { compileFilter, FilterError, tokenize } from '../../src/server/filter.js';
import { previewOf } from '../../src/view/preview.js';

describe('the filter language', () => {
  it('keeps quoted phrases and quoted values together', () => {
    expect(tokenize('method:session/update "two words" -dir:a2c text:"a b"')).toEqual(['method:session/update', '"two words"', '-dir:a2c', 'text:"a b"']);
  });

  it('binds every value as a parameter, never into the SQL text', () => {
    const f = compileFilter(`method:x'); DROP TABLE items; -- "O'Brien" session:a,b`);
    expect(f.where).not.toContain('DROP');
    expect(f.where).not.toContain("O'Brien");
    expect(f.params).toContain("x');");
    expect(f.params).toContain("%O'Brien%");
    expect(f.params).toEqual(expect.arrayContaining(['a', 'b']));
  });

  it('escapes LIKE wildcards in free text and turns * into a wildcard for methods', () => {
    expect(compileFilter('100%_done').params).toEqual(['%100\\%\\_done%']);
    expect(compileFilter('method:fs/*').params).toEqual(['fs/%']);
  });

  it('negates a term with a leading dash and ignores an empty filter', () => {
    expect(compileFilter('-kind:notification').where).toMatch(/^NOT COALESCE\(/);
    expect(compileFilter('   ')).toMatchObject({ where: '1', params: [] });
  });

  it('names the bad term and what would be accepted', () => {
    expect(() => compileFilter('dir:sideways')).toThrow(FilterError);
    expect(() => compileFilter('dir:sideways')).toThrow(/dir:c2a/);
    expect(() => compileFilter('seq:abc')).toThrow(/seq:FROM-TO/);
    expect(() => compileFilter('method:')).toThrow(/method:VALUE/);
    expect(() => compileFilter('is:weird')).toThrow(/is:error/);
    expect(() => compileFilter('turn:x')).toThrow(/turn:12/);
    expect(() => compileFilter('a '.repeat(1500))).toThrow(/longer than 2000/);
  });

  it('treats an unknown key:value as free text (a URL or a time in the raw line)', () => {
    expect(compileFilter('http://x').params).toEqual(['%http://x%']);
  });
});

describe('row previews', () => {
  it('summarizes updates, prompts, errors, stop reasons and lines that are not JSON', () => {
    const upd = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello\nworld' } } } });
    expect(previewOf('a2c', 'notification', 'session/update', upd, null)).toBe('agent_message_chunk "Hello world"');
    const prompt = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'Fix it' }, { type: 'resource_link', uri: 'file:///a', name: 'a.ts' }] } });
    expect(previewOf('c2a', 'request', 'session/prompt', prompt, null)).toBe('"Fix it [a.ts]"');
    expect(previewOf('a2c', 'error', 'x', '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}', null)).toBe('-32601 Method not found');
    expect(previewOf('a2c', 'result', 'session/prompt', '{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}', null)).toBe('stopReason: cancelled');
    expect(previewOf('stderr', null, null, '\x1b[2m2026-11-22T01:36:29Z\x1b[0m \x1b[32m INFO\x1b[0m codex started', null)).toBe('2026-11-22T01:36:29Z INFO codex started');
    expect(previewOf('a2c', 'invalid', null, 'hello', 'not JSON: Unexpected token')).toBe('not JSON: Unexpected token: hello');
    expect(previewOf('event', 'exit', null, '{"code":0,"signal":null}', null)).toBe('exit code=0 signal=null');
    expect(previewOf('a2c', 'result', 'x', `{"result":"${'x'.repeat(400)}"}`, null).length).toBeLessThanOrEqual(160);
  });
});
