/**
 * The database's disk fills: a tmpfs of a few MiB as the database's folder, mounted in a private mount
 * namespace (`unshare -m`, as root, as CI can do), with a filler file taking most of it. The disk fills
 * during capture (mid-flood) or during indexing. While it is full, `list` says indexing is blocked
 * and how much waits, and `export`, `check` and `show` refuse with exit 2 rather than answer with
 * frames missing. Once space returns (the filler removed), indexing finishes by itself, with every
 * frame the capture log holds. A tap started on a disk already full says so (not the path), and
 * records once space returns, marking what the disk refused.
 *
 * Commands run in the namespace through `nsenter`; the test reads its files through the holder's
 * /proc/PID/root. Skipped, saying why, where mount namespaces are not permitted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, makeTmp, NODE, rpc, waitGone } from './helpers.js';
import { RECORD_HEADER, readRecords } from '../../src/tap/capture-log.js';
import { A2C, C2A } from '../../src/tap/messages.js';
import { BROWSER_AVAILABLE, launchBrowser } from '../browser.js';
import { startRemoteAgent } from '../remote/helpers.js';

const tmp = makeTmp('acp-disk-full-');
const probe = process.platform === 'linux' ? spawnSync('unshare', ['-m', '-p', '-f', '--propagation', 'private', 'true'], { stdio: 'ignore' }) : null;
const permitted = probe?.status === 0;
if (!permitted) console.warn('SKIPPED: disk-full tests need `unshare -m -p` (root, Linux); mount and PID namespaces are not permitted here');

/** An agent that answers each request with its params. */
const echo = join(tmp.dir, 'echo.mjs');
writeFileSync(echo, `
let buf = '';
process.stdin.on('data', (b) => {
  buf += b;
  let i;
  while ((i = buf.indexOf('\\n')) !== -1) {
    const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echo: m.params } }) + '\\n');
  }
});
`);
const N = 10_000;
/** N requests of about 320 bytes: 3.2 MB each way. */
const input = Array.from({ length: N }, (_, i) => rpc({ id: i + 1, method: 'ping', params: { i, pad: 'p'.repeat(250) } }) + '\n').join('');
const output = Array.from({ length: N }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, result: { echo: { i, pad: 'p'.repeat(250) } } }) + '\n').join('');

interface Result { code: number | null; stdout: string; stderr: string }
type Running = Promise<Result> & { child: ChildProcess; output(): Result };

/**
 * A private mount namespace holding a tmpfs of `mib` MiB at `dir`, in a PID namespace of its own whose
 * first process (a `sleep`) keeps both: killing it ends every process started in them (the tap's
 * detached indexers among them), so nothing outlives the test.
 */
class SmallDisk {
  readonly holder: ChildProcess;
  readonly ready: Promise<void>;
  /** The namespaces' first process (the sleep), as this process sees its pid. */
  private init = 0;
  constructor(readonly dir: string, mib: number) {
    mkdirSync(dir, { recursive: true });
    this.holder = spawn('unshare', ['-m', '-p', '-f', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs -o size=${mib}m tmpfs '${dir}' && echo ready && exec sleep 600`], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.ready = new Promise((res, rej) => {
      this.holder.stdout!.once('data', () => {
        this.init = Number(readFileSync(`/proc/${this.holder.pid}/task/${this.holder.pid}/children`, 'utf8').trim().split(' ')[0]);
        res();
      });
      this.holder.once('exit', (code) => rej(new Error(`the mount namespace ended (${code})`)));
    });
  }

  /** A path in the namespace, as this process reaches it. */
  seen(path: string): string {
    return `/proc/${this.init}/root${path}`;
  }

  /** Starts acp-inspect in the namespaces. */
  spawn(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
    return spawn('nsenter', ['-t', String(this.init), '-m', '-p', '--', NODE, BIN, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ACP_INSPECT_DB: undefined, ...env },
    });
  }

  /** Starts a tap in the namespaces whose stdin the test writes: what it printed so far, and its exit code once closed. */
  tap(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; out: { stdout: string; stderr: string }; closed: Promise<number | null> } {
    const child = this.spawn(args, env);
    const out = { stdout: '', stderr: '' };
    child.stdout!.setEncoding('utf8').on('data', (t: string) => { out.stdout += t; });
    child.stderr!.setEncoding('utf8').on('data', (t: string) => { out.stderr += t; });
    child.stdin!.on('error', () => undefined);
    return { child, out, closed: new Promise((res) => child.on('close', (code) => res(code))) };
  }

  /** Runs acp-inspect in the namespaces; `output()`: what it printed so far. */
  cli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Running {
    const child = this.spawn(args, opts.env);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
    child.stderr!.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(opts.input ?? '');
    const done = new Promise<Result>((res) => child.on('close', (code) => res({ code, stdout, stderr }))) as Running;
    done.child = child;
    done.output = () => ({ code: null, stdout, stderr });
    return done;
  }

  /** Fills the disk but for `leave` bytes, with a file. */
  fill(leave: number): void {
    const s = statfsSync(this.seen(this.dir));
    const size = Math.max(0, s.bavail * s.bsize - leave);
    const fd = openSync(this.seen(join(this.dir, 'filler')), 'w');
    try {
      const block = Buffer.alloc(1 << 20);
      for (let done = 0; done < size;) done += writeSync(fd, block, 0, Math.min(block.length, size - done));
    } finally {
      closeSync(fd);
    }
  }

  free(): void {
    rmSync(this.seen(join(this.dir, 'filler')), { force: true });
  }

  async end(): Promise<void> {
    // Its sleep may have ended already (a test that ran past it): the rest still has to end.
    if (this.init) try { process.kill(this.init, 'SIGKILL'); } catch { /* gone */ }
    this.holder.kill('SIGKILL');
    if (this.holder.pid) await waitGone(this.holder.pid);
  }
}

/** The frames a capture log holds, per direction: its stream records' newline-ended lines. */
function framesInLog(path: string): { c2a: number; a2c: number } {
  const fd = openSync(path, 'r');
  const n = { c2a: 0, a2c: 0 };
  try {
    const end = statSync(path).size;
    const block = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; pos < end;) {
      const next = readRecords(fd, pos, end, block, (type, _t, payload) => {
        let lines = 0;
        for (let i = payload.indexOf(10); i !== -1; i = payload.indexOf(10, i + 1)) lines++;
        if (type === C2A) n.c2a += lines;
        else if (type === A2C) n.a2c += lines;
        return true;
      });
      if (next === pos) break;
      pos = next;
    }
  } finally {
    closeSync(fd);
  }
  return n;
}

/** Waits until `ok` holds (asking every 200 ms), or fails saying what did not happen. */
/**
 * What `run` ends with, or, once `ms` pass, a failure saying what it printed so far and what `list`
 * says then (it is killed; what it started in the namespaces ends with the disk). A wait that ends
 * only with the test's own timeout says nothing of where it stopped.
 */
async function within(run: Running, ms: number, disk: SmallDisk, db: string): Promise<Result> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((r) => { timer = setTimeout(() => r(null), ms); });
  const r = await Promise.race([run, late]);
  clearTimeout(timer);
  if (r) return r;
  const said = run.output();
  const list = await disk.cli(['list', '--db', db], { env: { ACP_INSPECT_NO_DETACHED_INDEXER: '1' } });
  run.child.kill('SIGKILL');
  await run;
  throw new Error(`acp-inspect ${run.child.spawnargs.slice(-3).join(' ')} did not exit within ${ms / 1000} s; it said: ${said.stderr.trim() || '(nothing)'}; list says: ${list.stdout.trim()} ${list.stderr.trim()}`);
}

async function until(what: string, ok: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const disks: SmallDisk[] = [];
afterAll(async () => {
  for (const d of disks) await d.end();
  tmp.cleanup();
});

/** While the disk is full: list says so, and export, check and show refuse with one line and exit 2. */
async function expectRefusals(disk: SmallDisk, db: string): Promise<void> {
  const list = await disk.cli(['list', '--db', db]);
  expect(list.code, list.stderr).toBe(0);
  // Running (its tap exited, or not), never interrupted: the tap's exit waits with the rest.
  expect(list.stdout).toMatch(/running, indexing blocked: disk full \(\d+\.\d MiB waiting\)/);
  expect(list.stdout).not.toMatch(/indexing \d+%/);
  const json = JSON.parse((await disk.cli(['list', '--db', db, '--json'])).stdout) as { status: string; indexing?: { blocked?: string } }[];
  expect(json[0]!.indexing?.blocked).toBe('disk full');
  expect(json[0]!.status).toBe('running');
  const out = join(disk.dir, 'out.jsonl');
  for (const args of [['export', 'latest', '-o', out], ['check', 'latest'], ['show', 'latest']]) {
    const r = await disk.cli([...args, '--db', db]);
    expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^acp-inspect: recording 1 cannot be read whole: indexing blocked: disk full \(\d+\.\d MiB of its capture log waiting\); free space/);
  }
}

/** The served UI's recordings list says so too (a real browser; skipped, saying so, without one). */
async function expectUiSaysBlocked(disk: SmallDisk, db: string): Promise<void> {
  if (!BROWSER_AVAILABLE) {
    console.warn('SKIPPED: the UI part of the disk-full test needs Chromium');
    return;
  }
  const srv = disk.spawn(['serve', '--db', db, '--port', '0']);
  const exited = new Promise((r) => srv.once('exit', r));
  const browser = await launchBrowser();
  try {
    const url = await new Promise<string>((res, rej) => {
      let out = '';
      srv.stdout!.on('data', (d: Buffer) => { out += d; if (out.includes('\n')) res(out.split('\n')[0]!); });
      srv.once('exit', (code) => rej(new Error(`serve exited ${code}`)));
    });
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByText(/^indexing blocked: disk full \(\d+\.\d MiB waiting\)$/).waitFor({ timeout: 120_000 });
  } finally {
    await browser.close();
    srv.kill('SIGTERM');
    await exited;
  }
}

/** Once space returned: the recording finished by itself, with every frame the log held. */
async function expectFinished(disk: SmallDisk, db: string, held: { c2a: number; a2c: number }): Promise<void> {
  /** The recording as list said it finished (status, reason, frames): what a frame count that differs is read with. */
  let ended = '';
  await until('indexing to finish by itself', async () => {
    const rows = JSON.parse((await disk.cli(['list', '--db', db, '--json'], { env: { ACP_INSPECT_NO_DETACHED_INDEXER: '1' } })).stdout) as { status: string; indexing?: unknown }[];
    ended = JSON.stringify(rows[0]);
    return !rows[0]!.indexing && (rows[0]!.status === 'complete' || rows[0]!.status === 'incomplete');
  }).catch((e: Error) => {
    const logs = readdirSync(disk.seen(`${db}-captures`));
    throw new Error(`${e.message}; last listed: ${ended}; capture folder: ${logs.join(', ')}`);
  });
  const exp = await disk.cli(['export', 'latest', '--db', db, '--no-redact']);
  expect(exp.code, exp.stderr).toBe(0);
  const items = exp.stdout.trim().split('\n').slice(1).map((l) => JSON.parse(l) as { dir: string });
  expect(items.filter((i) => i.dir === 'c2a'), ended).toHaveLength(held.c2a);
  expect(items.filter((i) => i.dir === 'a2c'), ended).toHaveLength(held.a2c);
  expect(readdirSync(disk.seen(`${db}-captures`)).filter((f) => f.endsWith('.capture'))).toEqual([]);
}

/** A copy of the recording's capture log as it is now (the test's own disk). */
function snapshotLog(disk: SmallDisk, db: string, name: string): string {
  const logs = readdirSync(disk.seen(`${db}-captures`)).filter((f) => f.endsWith('.capture'));
  expect(logs).toHaveLength(1);
  const copy = join(tmp.dir, name);
  copyFileSync(disk.seen(join(`${db}-captures`, logs[0]!)), copy);
  expect(statSync(copy).size).toBeGreaterThan(RECORD_HEADER);
  return copy;
}

/** What a tap started on a full disk (see the tests) is given: K requests while full, M once space returned. */
const K = 20;
const M = 30;
const firstBatch = input.split('\n').slice(0, K).map((l) => `${l}\n`).join('');
const secondBatch = input.split('\n').slice(K, K + M).map((l) => `${l}\n`).join('');
const answers = output.split('\n').slice(0, K + M).map((l) => `${l}\n`).join('');

interface StartedFull { listWhileFull: Result; code: number | null; stdout: string; said: string[]; items: { dir: string; type?: string; raw?: string }[]; status: string; reason: string | null }

/**
 * A tap started on a disk already full (but for `leave` bytes): K requests while it is full, then
 * space returns, then (once the recording is there) M more, and the session ends. Returns what the tap
 * said and forwarded, and the recording as it ended.
 */
async function startOnFullDisk(disk: SmallDisk, db: string, leave: number, recordings: number): Promise<StartedFull> {
  disk.fill(leave);
  const { child, out, closed } = disk.tap(['--db', db, '--', NODE, echo]);
  child.stdin!.write(firstBatch);
  // Forwarded while the disk is full, and said so.
  await until('the first answers and the tap\'s word', async () => out.stdout.split('\n').length > K && out.stderr.includes('\n'));
  const listWhileFull = await disk.cli(['list', '--db', db]);
  disk.free();
  await until('the recording made once space returned', async () => {
    const r = await disk.cli(['list', '--db', db, '--json'], { env: { ACP_INSPECT_NO_DETACHED_INDEXER: '1' } });
    return r.code === 0 && (JSON.parse(r.stdout || '[]') as unknown[]).length > recordings;
  });
  child.stdin!.end(secondBatch);
  const code = await closed;
  await until('the recording to end', async () => {
    const rows = JSON.parse((await disk.cli(['list', '--db', db, '--json'])).stdout) as { status: string; indexing?: unknown }[];
    return !rows[0]!.indexing && rows[0]!.status !== 'running';
  });
  const rows = JSON.parse((await disk.cli(['list', '--db', db, '--json'])).stdout) as { status: string; incompleteReason?: string | null }[];
  const exp = await disk.cli(['export', 'latest', '--db', db, '--no-redact']);
  expect(exp.code, exp.stderr).toBe(0);
  const items = exp.stdout.trim().split('\n').slice(1).map((l) => JSON.parse(l) as { dir: string; type?: string; raw?: string });
  return { listWhileFull, code, stdout: out.stdout, said: out.stderr.trim().split('\n'), items, status: rows[0]!.status, reason: rows[0]!.incompleteReason ?? null };
}

/** The ids of the requests (c2a) a recording holds. */
const requestIds = (items: StartedFull['items']) => items.filter((i) => i.dir === 'c2a').map((i) => (JSON.parse(i.raw!) as { id: number }).id);

describe.runIf(permitted)('the database\'s disk fills', () => {
  let n = 0;
  const newDisk = async (mib: number) => {
    const d = new SmallDisk(join(tmp.dir, `disk${++n}`), mib);
    disks.push(d);
    await d.ready;
    return d;
  };
  it('mid-flood: forwarding byte-exact, one word from the tap, reads refused while full, indexing finished by itself once space returns', async () => {
    const disk = await newDisk(16);
    const db = join(disk.dir, 'r.db');
    // The tap's own exit wait (not the suite's minute): its recorder is blocked till space returns.
    // Its first frame goes alone, and the disk fills once the recording exists: mid-flood, as named
    // (filled before the tap started, the flood could fill it before the recorder made the database,
    // on a slower start: another case, the tap started on a full disk, tested below).
    const { child, out, closed } = disk.tap(['--db', db, '--', NODE, echo], { ACP_INSPECT_FINISH_WAIT_MS: undefined });
    const first = input.indexOf('\n') + 1;
    child.stdin!.write(input.slice(0, first));
    await until('the recording made', async () => {
      const r = await disk.cli(['list', '--db', db, '--json']);
      return r.code === 0 && (JSON.parse(r.stdout || '[]') as unknown[]).length > 0;
    });
    disk.fill(3 * 1024 * 1024); // 3 MiB left for 6.5 MB of traffic
    child.stdin!.end(input.slice(first));
    const tap = { code: await closed, ...out };
    expect(tap.code, tap.stderr).toBe(0);
    expect(tap.stdout).toBe(output);
    const said = tap.stderr.trim().split('\n');
    expect(said, tap.stderr).toHaveLength(1);
    expect(said[0]).toMatch(/disk of database .* is full/);

    const held = framesInLog(snapshotLog(disk, db, 'mid-flood.capture'));
    expect(held.c2a + held.a2c).toBeGreaterThan(0);
    expect(held.c2a + held.a2c).toBeLessThan(2 * N); // the disk really filled mid-flood
    await expectRefusals(disk, db);
    await expectUiSaysBlocked(disk, db);

    disk.free();
    await expectFinished(disk, db, held);
  });

  it('mid-flood through a remote agent (the stdio↔HTTP bridge, its batched capture-log writes): forwarding whole, one word, indexing finished once space returns', async () => {
    const disk = await newDisk(16);
    const db = join(disk.dir, 'r.db');
    const agent = await startRemoteAgent(tmp.dir);
    try {
      const { child, out, closed } = disk.tap(['--db', db, '--', agent.url], { ACP_INSPECT_FINISH_WAIT_MS: undefined });
      const line = (m: unknown) => `${JSON.stringify(m)}\n`;
      child.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
      child.stdin!.write(line({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/', mcpServers: [] } }));
      await until('the session', async () => out.stdout.includes('"sessionId"'));
      await until('the recording made', async () => {
        const r = await disk.cli(['list', '--db', db, '--json']);
        return r.code === 0 && (JSON.parse(r.stdout || '[]') as unknown[]).length > 0;
      });
      const sessionId = (JSON.parse(out.stdout.split('\n').find((l) => l.includes('"sessionId"'))!) as { result: { sessionId: string } }).result.sessionId;
      disk.fill(2 * 1024 * 1024); // 2 MiB left for over 6 MB of updates
      const FLOOD = 6000;
      child.stdin!.write(line({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: `flood ${FLOOD}` }] } }));
      await until('the flood\'s end', async () => out.stdout.includes('"id":3,"result"'));
      child.stdin!.end();
      const code = await closed;
      expect(code, out.stderr).toBe(0);
      // Every update reached the editor, whole and in order, while the disk was full.
      const got = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { method?: string; params?: { update?: { content?: { text?: string } } } });
      const updates = got.filter((m) => m.method === 'session/update');
      expect(updates).toHaveLength(FLOOD);
      expect(updates.every((u) => u.params!.update!.content!.text === 'x'.repeat(1024))).toBe(true);
      const said = out.stderr.trim().split('\n');
      expect(said, out.stderr).toHaveLength(1);
      expect(said[0]).toMatch(/disk of database .* is full/);

      const held = framesInLog(snapshotLog(disk, db, 'remote-mid-flood.capture'));
      expect(held.a2c).toBeGreaterThan(0);
      expect(held.a2c).toBeLessThan(FLOOD); // the disk really filled mid-flood
      await expectRefusals(disk, db);
      disk.free();
      await expectFinished(disk, db, held);
    } finally {
      await agent.stop();
    }
  });

  it('full as the tap starts, to the last byte: says the disk is full and how to fix it, and records once space returns, marking what it missed', async () => {
    const disk = await newDisk(16);
    const db = join(disk.dir, 'r.db');
    const r = await startOnFullDisk(disk, db, 0, 0);
    // No database yet, and no room to make one: list says so, in one line.
    expect(r.listWhileFull.code).toBe(2);
    expect(r.listWhileFull.stderr).toMatch(/^acp-inspect: the disk of database .*r\.db is full; free space on it, or pass --db FILE on another disk\n$/);
    expect(r.code, r.said.join('\n')).toBe(0);
    expect(r.stdout).toBe(answers);
    expect(r.said, r.said.join('\n')).toHaveLength(1);
    expect(r.said[0]).toMatch(/the disk of database .*r\.db is full; .*free space on it, or pass --db FILE on another disk/);
    expect(r.said[0]).not.toMatch(/permission/);
    // The requests sent while the disk was full are lost to the recording, and marked so; every one after is there.
    expect(requestIds(r.items)).toEqual(Array.from({ length: M }, (_, i) => K + i + 1));
    expect(r.items.filter((i) => i.dir === 'a2c')).toHaveLength(M);
    const gap = r.items.findIndex((i) => i.type === 'gap');
    expect(gap).toBeGreaterThanOrEqual(0);
    expect(gap).toBeLessThan(r.items.findIndex((i) => i.dir === 'c2a'));
    expect(r.status).toBe('incomplete');
    expect(r.reason).toMatch(/could not be written to the capture log \(a failed write: its disk full, most likely\); marked as a gap at item \d+/);
    expect(readdirSync(disk.seen(`${db}-captures`)).filter((f) => f.endsWith('.capture'))).toEqual([]);
  });

  it('full as the tap starts, its capture log fitting but not its database: says the disk is full, and records the whole session once space returns', async () => {
    const disk = await newDisk(16);
    const db = join(disk.dir, 'r.db');
    const first = await disk.cli(['--db', db, '--', NODE, echo], { input: input.slice(0, input.indexOf('\n') + 1) });
    expect(first.code, first.stderr).toBe(0);
    const r = await startOnFullDisk(disk, db, 64 * 1024, 1);
    // The session not in the store yet is not left out silently.
    expect(r.listWhileFull.code, r.listWhileFull.stderr).toBe(0);
    expect(r.listWhileFull.stdout).toMatch(/\nwarning: 1 session is not listed yet: indexing blocked: disk full \(\d+\.\d MiB waiting in its capture log\); free space on it/);
    expect(r.code, r.said.join('\n')).toBe(0);
    expect(r.stdout).toBe(answers);
    expect(r.said, r.said.join('\n')).toHaveLength(1);
    expect(r.said[0]).toMatch(/the disk of database .*r\.db is full; .*free space on it, or pass --db FILE on another disk/);
    expect(r.said[0]).not.toMatch(/permission/);
    expect(requestIds(r.items)).toEqual(Array.from({ length: K + M }, (_, i) => i + 1));
    expect(r.items.filter((i) => i.dir === 'a2c')).toHaveLength(K + M);
    expect(r.status).toBe('complete');
    expect(readdirSync(disk.seen(`${db}-captures`)).filter((f) => f.endsWith('.capture'))).toEqual([]);
  });

  // The tap leaves its log to be indexed (its exit waits for nothing, and starts no indexer).
  const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1', ACP_INSPECT_FINISH_WAIT_MS: '1' };
  /**
   * A small disk with a flood's capture log left beside its database, then filled so that it has room
   * for about half of what indexing the log takes: the database, and the frames the log holds.
   */
  const filledAfterCapture = async (name: string) => {
    const disk = await newDisk(24);
    const db = join(disk.dir, 'r.db');
    const tap = await disk.cli(['--db', db, '--', NODE, echo], { input, env });
    expect(tap.code, tap.stderr).toBe(0);
    expect(tap.stdout).toBe(output);
    const log = snapshotLog(disk, db, name);
    const held = framesInLog(log);
    expect(held).toEqual({ c2a: N, a2c: N });
    disk.fill(Math.floor(statSync(log).size / 2));
    return { disk, db, held };
  };

  it('during indexing: reads refused while full, and the indexer waiting for space finishes once it returns', async () => {
    const { disk, db, held } = await filledAfterCapture('during-indexing.capture');
    const indexer = disk.cli(['index', '--db', db]);
    await until('indexing to be blocked', async () => (await disk.cli(['list', '--db', db], { env })).stdout.includes('indexing blocked: disk full'));
    await expectRefusals(disk, db);
    expect(indexer.child.exitCode).toBe(null); // it waits for space

    disk.free();
    // It tries again every second: four minutes are a hang (its own wait for space is ten).
    const done = await within(indexer, 240_000, disk, db);
    expect(done.code, done.stderr).toBe(0);
    // In a terminal, it said why it waited, and that it went on.
    expect(done.stderr.trim().split('\n'), done.stderr).toEqual([
      expect.stringMatching(/^acp-inspect: recording 1: indexing blocked: the disk of database .*r\.db is full; it goes on once space returns \(waiting 10 min at most, then the rest stays in the capture log for the next `acp-inspect index`\)$/),
      expect.stringMatching(/^acp-inspect: recording 1: indexing goes on: there is space again on the disk of database .*r\.db$/),
    ]);
    await expectFinished(disk, db, held);
  });

  it('during indexing, full past the indexer\'s wait: it says it waits, gives up with exit 2 and one line saying what is left, the log kept; the next finishes it', async () => {
    const { disk, db, held } = await filledAfterCapture('past-the-wait.capture');
    // Waiting 3 s for space instead of ten minutes.
    const gaveUp = await disk.cli(['index', '--db', db], { env: { ...env, ACP_INSPECT_TEST_FULL_WAIT_MS: '3000' } });
    expect(gaveUp.code, gaveUp.stderr).toBe(2);
    const said = gaveUp.stderr.trim().split('\n');
    expect(said).toEqual([expect.stringMatching(/^acp-inspect: recording 1: indexing blocked: the disk of database .*r\.db is full; it goes on once space returns \(waiting 3 s at most, /), expect.stringMatching(/^acp-inspect: recording 1: indexing blocked: disk full; \d+\.\d MiB of \d+\.\d MiB indexed, the rest kept in its capture log \S+\.capture; free space on the disk of .*r\.db, then run `acp-inspect index --db .*r\.db` again$/)]);
    expect(readdirSync(disk.seen(`${db}-captures`)).filter((f) => f.endsWith('.capture'))).toHaveLength(1);
    disk.free();
    const done = await disk.cli(['index', '--db', db], { env });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe('');
    await expectFinished(disk, db, held);
  });
});
