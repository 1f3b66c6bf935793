/**
 * What the console's page can and cannot make its server do, over real HTTP against the real
 * binary: every route stays behind the server's guard; nothing the page sends starts a process
 * (the only commands running are the tap and the agent command given on the command line, also
 * after a reconnect); an agent's write outside --cwd is refused at once, and reads and writes are
 * kept inside it through symlinks too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PEERS, tempDir } from '../helpers.js';
import { startConsole, type RunningConsole } from './start-console.js';
import { insideFolder, textLines } from '../../src/console/files.js';
import type { ConsoleFrame, ConsoleSnapshot } from '../../src/console/contract.js';

const AGENT = join(PEERS, 'console-agent.mjs');
let tmp: ReturnType<typeof tempDir>;
let work: string;
let c: RunningConsole;

/** The command lines of every process below `pid`. */
function descendants(pid: number): string[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out: string[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp !== p) continue;
      try { out.push(readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')); } catch { /* gone */ }
      walk(child);
    }
  };
  walk(pid);
  return out;
}

async function waitFrame(pred: (f: ConsoleFrame) => boolean): Promise<ConsoleFrame> {
  for (let i = 0; i < 200; i++) {
    const f = (await c.api<ConsoleSnapshot>('/api/console')).json.frames.find(pred);
    if (f) return f;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no such frame in 20 s');
}

beforeAll(async () => {
  tmp = tempDir('acp-inspect-console-sec-');
  work = join(tmp.dir, 'work');
  mkdirSync(work);
  c = await startConsole(['--db', join(tmp.dir, 'db.sqlite'), '--cwd', work, '--', process.execPath, AGENT]);
});

afterAll(async () => {
  await c?.stop();
  tmp?.cleanup();
});

describe('the console server', () => {
  it('keeps every console route behind the token, the Host and the Origin checks', async () => {
    for (const [path, body] of [['/api/console', undefined], ['/api/console/raw', { text: '{}' }], ['/api/console/reconnect', {}]] as const) {
      const init = { method: body ? 'POST' : 'GET', headers: { 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined };
      expect((await fetch(`${c.origin}${path}`, init)).status).toBe(401);
      expect((await fetch(`${c.origin}${path}`, { ...init, headers: { ...init.headers, Authorization: `Bearer ${c.token}`, Origin: 'http://evil.example' } })).status).toBe(403);
    }
    // A form post (no JSON) is not read.
    const form = await fetch(`${c.origin}/api/console/raw`, { method: 'POST', headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'text=x' });
    expect(form.status).toBe(400);
  });

  it('starts nothing the page names: only the tap and the command line\'s agent run, also after a reconnect', async () => {
    const marker = join(tmp.dir, 'spawned');
    // The tap, and the agent it starts (waited for: on a loaded machine the agent may not have started
    // yet, or a short-lived helper of the tap may still be there).
    const isTap = (cmd: string) => cmd.includes(' tap ');
    const isAgent = (cmd: string) => cmd === `${process.execPath} ${AGENT}`;
    const both = async () => {
      let now = descendants(c.child.pid!);
      for (let i = 0; i < 1200 && !(now.length === 2 && now.filter(isTap).length === 1 && now.filter(isAgent).length === 1); i++) {
        await new Promise((r) => setTimeout(r, 100));
        now = descendants(c.child.pid!);
      }
      return now;
    };
    const before = await both();
    expect(before.filter((cmd) => cmd.includes(' tap '))).toHaveLength(1);
    expect(before.filter((cmd) => cmd === `${process.execPath} ${AGENT}`)).toHaveLength(1);
    const touch = { command: 'touch', args: [marker], cmd: `touch ${marker}`, argv: ['touch', marker] };
    const attempts: [string, unknown][] = [
      ['/api/console/request', { method: 'terminal/create', params: { sessionId: 'x', ...touch } }],
      ['/api/console/notify', { method: 'terminal/create', params: touch }],
      ['/api/console/raw', { text: JSON.stringify({ jsonrpc: '2.0', id: 50, method: 'terminal/create', params: touch }) }],
      ['/api/console/answer', { key: '0', ...touch }],
      ['/api/console/terminals', { on: true, ...touch }],
      ['/api/console/reconnect', touch],
      ['/api/console/spawn', touch],
      ['/api/console/start', touch],
    ];
    for (const [path, body] of attempts) await c.api(path, body);
    await c.api('/api/console/request', { method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { terminal: true } } });
    await waitFrame((f) => f.dir === 'a2c' && f.method === 'initialize');
    const after = await both();
    expect(existsSync(marker)).toBe(false);
    // The same command line as before the reconnect (a new tap and agent), and nothing else.
    expect(after).toHaveLength(2);
    expect(after.filter((cmd) => cmd.includes(' tap ') && cmd.endsWith(`-- ${process.execPath} ${AGENT}`))).toHaveLength(1);
    expect(after.filter((cmd) => cmd === `${process.execPath} ${AGENT}`)).toHaveLength(1);
    expect((await c.api<ConsoleSnapshot>('/api/console')).json.status.command).toEqual([process.execPath, AGENT]);
  });

  it('refuses at once a write the agent asks for outside --cwd', async () => {
    await c.api('/api/console/reconnect', {});
    await c.api('/api/console/request', { method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } } });
    const { json } = await c.api<{ id: number }>('/api/console/request', { method: 'session/new', params: { cwd: work, mcpServers: [] } });
    const created = await waitFrame((f) => f.dir === 'a2c' && f.kind === 'result' && f.id === json.id);
    const sessionId = (created.json as { result: { sessionId: string } }).result.sessionId;
    await c.api('/api/console/request', { method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'outside' }] } });
    const refusal = await waitFrame((f) => f.dir === 'c2a' && f.kind === 'error');
    expect(refusal.raw).toContain('inside the console\'s folder');
    await waitFrame((f) => f.dir === 'a2c' && f.method === 'session/prompt' && f.kind === 'result');
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.pending).toEqual([]);
    expect(snap.notices.some((n) => n.level === 'error' && n.text.includes('refused to write'))).toBe(true);
    expect(existsSync(join(tmp.dir, 'outside.txt'))).toBe(false);
  });
});

describe('terminal auth', () => {
  it('runs only a method of the agent\'s answer, only with auth.terminal advertised, only as confirmed', async () => {
    await c.api('/api/console/reconnect', {});
    const shown = { command: [process.execPath, AGENT, '--login'], env: { LOGIN_USER: 'ada' } };
    // Not advertised: the agent offers no terminal method, and none runs.
    await c.api('/api/console/request', { method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    await waitFrame((f) => f.dir === 'a2c' && f.method === 'initialize');
    let r = await c.api<{ error: string }>('/api/console/terminal-auth', { methodId: 'login', shown });
    expect(r.status).toBe(409);
    expect(r.json.error).toContain('did not advertise auth.terminal');
    await c.api('/api/console/reconnect', {});
    await c.api('/api/console/request', { method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } } });
    await waitFrame((f) => f.dir === 'a2c' && f.method === 'initialize');
    for (let i = 0; i < 50 && !(await c.api<ConsoleSnapshot>('/api/console')).json.status.terminalAuth.length; i++) await new Promise((res) => setTimeout(res, 100));
    expect((await c.api<ConsoleSnapshot>('/api/console')).json.status.terminalAuth.map((m) => [m.id, m.command, m.env])).toEqual([
      ['login', shown.command, shown.env], ['broken', shown.command, { LOGIN_FAIL: '1' }], ['slow', shown.command, { LOGIN_WAIT: '1' }]]);
    // A method the agent did not list, or a command other than the one shown, does not run.
    const marker = join(tmp.dir, 'auth-marker');
    r = await c.api('/api/console/terminal-auth', { methodId: 'touch', shown: { command: ['touch', marker], env: {} } });
    expect(r.status).toBe(404);
    r = await c.api('/api/console/terminal-auth', { methodId: 'login', shown: { command: ['touch', marker], env: {} } });
    expect(r.status).toBe(409);
    r = await c.api('/api/console/terminal-auth', { methodId: 'login', shown: { ...shown, env: { LOGIN_USER: 'eve' } } });
    expect(r.status).toBe(409);
    r = await c.api('/api/console/terminal-auth', { methodId: 'login', shown });
    expect(r.status).toBe(200);
    for (let i = 0; i < 100 && (await c.api<ConsoleSnapshot>('/api/console')).json.status.authRun?.state !== 'done'; i++) await new Promise((res) => setTimeout(res, 100));
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.status.authRun).toEqual({ methodId: 'login', state: 'done', exitCode: 0, signal: null, cancelled: false });
    expect(snap.notices.at(-1)!.text).toContain('logging in as ada');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('insideFolder', () => {
  it('places a path by its real location: a symlink out of the folder does not let a path escape', () => {
    const root = join(tmp.dir, 'root');
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(tmp.dir, 'secret.txt'), 'x');
    symlinkSync(tmp.dir, join(root, 'out'));
    expect(insideFolder(root, join(root, 'sub', 'a.txt'))).toBe(join(root, 'sub', 'a.txt'));
    expect(insideFolder(root, join(root, 'new', 'deep', 'b.txt'))).toBe(join(root, 'new', 'deep', 'b.txt'));
    expect(insideFolder(root, join(root, 'out', 'secret.txt'))).toBeNull();
    expect(insideFolder(root, join(root, 'out', 'not-yet.txt'))).toBeNull();
    expect(insideFolder(root, join(root, '..', 'secret.txt'))).toBeNull();
    expect(insideFolder(root, 'relative.txt')).toBeNull();
  });

  it('reads the lines fs/read_text_file asks for (line is 1-based, limit counts lines)', () => {
    expect(textLines('a\nb\nc\n', 2, 1)).toBe('b');
    expect(textLines('a\nb\nc', 2, undefined)).toBe('b\nc');
    expect(textLines('a\nb\nc', undefined, 2)).toBe('a\nb');
    expect(textLines('a\nb\nc', 0, 1)).toBe('a');
    expect(textLines('a\nb\n', null, null)).toBe('a\nb\n');
  });
});
