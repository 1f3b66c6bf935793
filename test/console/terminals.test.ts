/**
 * TerminalHost keeps a bounded tail of a command's output: the agent's outputByteLimit when it gives
 * one, else DEFAULT_OUTPUT_LIMIT, cut at a character boundary and reported `truncated`; and tells a
 * watcher (the console's page) the output as it comes and the exit. Real commands.
 */
import { afterAll, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { DEFAULT_OUTPUT_LIMIT, TerminalHost, type TerminalReply } from '../../src/console/terminals.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('acp-inspect-terminals-');
const host = new TerminalHost(realpathSync(tmp.dir));
afterAll(() => { host.dispose(); tmp.cleanup(); });

const call = (method: string, p: Record<string, unknown>) => new Promise<TerminalReply>((r) => host.handle(method, p, r));
async function run(script: string, extra: Record<string, unknown> = {}) {
  const created = await call('terminal/create', { command: process.execPath, args: ['-e', script], ...extra });
  const terminalId = (created as { result: { terminalId: string } }).result.terminalId;
  await call('terminal/wait_for_exit', { terminalId });
  return ((await call('terminal/output', { terminalId })) as { result: { output: string; truncated: boolean } }).result;
}

it('keeps only the last DEFAULT_OUTPUT_LIMIT bytes when the agent names no limit', async () => {
  // 3 MiB of output, the last line marked.
  const out = await run("const s='a'.repeat(1023)+'\\n';for(let i=0;i<3*1024;i++)process.stdout.write(s);process.stdout.write('the end\\n')");
  expect(out.truncated).toBe(true);
  expect(Buffer.byteLength(out.output)).toBeLessThanOrEqual(DEFAULT_OUTPUT_LIMIT);
  expect(Buffer.byteLength(out.output)).toBeGreaterThan(DEFAULT_OUTPUT_LIMIT - 8);
  expect(out.output.endsWith('the end\n')).toBe(true);
  expect(DEFAULT_OUTPUT_LIMIT).toBe(1024 * 1024);
});

it('keeps the agent\'s outputByteLimit, cut at a character boundary', async () => {
  expect(await run("process.stdout.write('é'.repeat(10))", { outputByteLimit: 5 })).toEqual({ output: 'éé', truncated: true, exitStatus: { exitCode: 0, signal: null } });
});

it('a small output is kept whole and not truncated', async () => {
  expect(await run("process.stdout.write('hi\\n')")).toMatchObject({ output: 'hi\n', truncated: false });
  expect(await run("process.stdout.write('none')", { outputByteLimit: 0 })).toMatchObject({ output: '', truncated: true });
});

it('tells its watcher each piece of output as it comes, whole characters, then the exit after the last piece', async () => {
  const heard: string[] = [];
  const watched = new TerminalHost(realpathSync(tmp.dir), 'w', undefined, {
    output: (id, text) => heard.push(`${id} out ${text}`),
    exit: (id, exit) => heard.push(`${id} exit ${JSON.stringify(exit)}`),
  });
  try {
    const reply = (method: string, p: Record<string, unknown>) => new Promise<TerminalReply>((r) => watched.handle(method, p, r));
    // 'é' split across two writes (two chunks on the pipe): the watcher hears whole characters.
    const created = await reply('terminal/create', { command: process.execPath, args: ['-e', "const b=Buffer.from('é');process.stdout.write(b.subarray(0,1));setTimeout(()=>{process.stdout.write(b.subarray(1));process.stderr.write('!');process.exit(2)},50)"] });
    const terminalId = (created as { result: { terminalId: string } }).result.terminalId;
    await reply('terminal/wait_for_exit', { terminalId });
    const outs = heard.filter((h) => h.startsWith(`${terminalId} out `)).map((h) => h.slice(`${terminalId} out `.length)).join('');
    expect([...outs].sort().join('')).toBe(['!', 'é'].sort().join(''));
    expect(heard.at(-1)).toBe(`${terminalId} exit {"exitCode":2,"signal":null}`);
    expect(heard.filter((h) => h.includes(' exit '))).toHaveLength(1);
  } finally {
    watched.dispose();
  }
});
