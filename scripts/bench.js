#!/usr/bin/env node
/**
 * `npm run bench`: what the tap costs, measured against the physical limit of a stdio proxy.
 *
 * One run alternates the variants (direct, cat relay, tee relay (a relay that also writes each direction
 * into a file beside the database: the floor of a recorder that keeps what it forwards on disk), bare
 * Node pass-through, tap, tap --no-check)
 * round after round, each driving the synthetic agent (bench/agent.js) through a flood of
 * `session/update` frames at several sizes and a series of sequential prompts answered at once
 * (round trips). Every byte the client receives is checked against a hash computed in advance, and
 * every frame of a tap run must be in its SQLite file. Then: tap start-up, the tap's RSS when idle
 * (against a bare Node pass-through), peak RSS of the tap through a large flood and how fast its
 * recorder indexes that flood once it is over (frames/s from the flood's end to its last frame's
 * row, seen by polling the SQLite file) beside SQLite's own rate storing the same rows (its floor),
 * `check` speed and peak RSS, the UI on a large recording
 * (1M items in SQLite): its API, and the page in chromium (first rows, each filter, a jump to a seq),
 * and Compare of two runs of one scenario (the Compare view's requests, the whole answer in one
 * request, and `acp-inspect diff`), and every command a user reaches for on a 1 GiB recording
 * (bench/big-recording.js: time, peak RSS, and time against the floor of reading the data once), and
 * remote agents (bench/remote.mjs): the bridge and the proxy over Streamable HTTP and WebSocket, side
 * by side with the protocol SDK's client talking to its server directly (latency, throughput, memory).
 *
 * Flags: --quick (seconds, for tests), --rounds N, --mb N (flood per size, in MiB), --pings N,
 * --idle-rounds N, --rss-mb N, --rss-rounds N (rounds of the indexing floors and the clean indexing, medians of),
 * --check-frames N, --ui-frames N, --compare-frames N, --compare-runs N (medians of),
 * --big-frames N (frames of the big-frame recording), --remote-rss-mb N (the remote section's long stream, in MiB: 1024 by default, the 1 GiB issue 42 names; 0: none),
 * --only a,b (sections: flood,startup,idle,rss,exit,check,ui,compare,big,remote),
 * --json FILE (results as JSON), --js-tap (one more variant: the tap on its JavaScript forwarder, as where
 * the native one is not built), --copy-tap (one more: the native forwarder copying the agent's output
 * through user space instead of tee()/splice(), as where splice is not possible), --client socket|pipe|both
 * (what the driver talks to each variant through: a socket pair, as Node's child_process gives, and/or
 * pipes, as most editors give; both by default, one after the other). Env BENCH_* mirrors the flags
 * (BENCH_ROUNDS=3, BENCH_JS_TAP=1, BENCH_CLIENT=pipe ...); BENCH_UI_DB=FILE keeps the UI section's database
 * in FILE (built when missing, reused when there).
 * Exits 1 if any byte was altered or any frame was not recorded.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expectedFlood, floodChunks, initializeRequest, initializeResult, newSessionRequest, newSessionResult, promptRequest, promptResult } from '../bench/frames.js';
import { benchBigRecording, writeFloodTranscript } from '../bench/big-recording.js';
import { benchRemote } from '../bench/remote.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'acp-inspect.js');
const AGENT = join(ROOT, 'bench', 'agent.js');
const BARE = join(ROOT, 'bench', 'bare.js');
const NODE = process.execPath;
/** Extra node flags for the tap process only (e.g. BENCH_TAP_NODE_ARGS=--cpu-prof to profile it). */
const TAP_NODE_ARGS = (process.env.BENCH_TAP_NODE_ARGS ?? '').split(' ').filter(Boolean);

// ---- options -----------------------------------------------------------------------------------

/** Which ends the driver reads and writes the proxy through: a socket pair (Node's child_process), pipes (most editors), or both. */
function clientKinds(v) {
  if (v === 'both') return ['socket', 'pipe'];
  if (v === 'socket' || v === 'pipe') return [v];
  fail(`--client needs socket, pipe or both, got "${v ?? ''}"`);
}

function parseArgs(argv) {
  const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const o = {
    quick,
    rounds: quick ? 1 : 5,
    mb: quick ? 2 : 32,
    pings: quick ? 50 : 1000,
    startups: quick ? 2 : 30,
    idleRounds: 5,
    rssMb: quick ? 32 : 1024,
    rssRounds: 1,
    exitFrames: quick ? 50_000 : 1_000_000,
    checkFrames: quick ? 20_000 : 1_000_000,
    uiFrames: quick ? 5_000 : 1_000_000,
    compareFrames: quick ? 3_000 : 100_000,
    compareRuns: quick ? 1 : 5,
    bigFrames: quick ? 20_000 : 1_000_000,
    remoteRounds: quick ? 1 : 3,
    remoteTrips: quick ? 20 : 200,
    remoteWarmup: quick ? 20 : 2000,
    remoteUpdates: quick ? 200 : 5000,
    remoteRssMb: quick ? 0 : 1024,
    only: null,
    json: null,
    jsTap: process.env.BENCH_JS_TAP === '1',
    copyTap: process.env.BENCH_COPY_TAP === '1',
    clients: clientKinds(process.env.BENCH_CLIENT ?? 'both'),
    sizes: [200, 1024, 65536],
  };
  const num = (flag, v) => {
    if (v === undefined || !/^\d+$/.test(v)) fail(`${flag} needs a whole number, got ${v === undefined ? 'nothing' : `"${v}"`}`);
    return Number(v);
  };
  const env = (name, key) => { if (process.env[name] !== undefined) o[key] = num(name, process.env[name]); };
  env('BENCH_ROUNDS', 'rounds'); env('BENCH_MB', 'mb'); env('BENCH_PINGS', 'pings'); env('BENCH_STARTUPS', 'startups'); env('BENCH_IDLE_ROUNDS', 'idleRounds');
  env('BENCH_RSS_MB', 'rssMb'); env('BENCH_RSS_ROUNDS', 'rssRounds'); env('BENCH_EXIT_FRAMES', 'exitFrames'); env('BENCH_CHECK_FRAMES', 'checkFrames'); env('BENCH_UI_FRAMES', 'uiFrames');
  env('BENCH_COMPARE_FRAMES', 'compareFrames'); env('BENCH_COMPARE_RUNS', 'compareRuns'); env('BENCH_BIG_FRAMES', 'bigFrames');
  env('BENCH_REMOTE_RSS_MB', 'remoteRssMb');
  if (process.env.BENCH_ONLY) o.only = process.env.BENCH_ONLY.split(',');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--quick': break;
      case '--rounds': o.rounds = num(a, argv[++i]); break;
      case '--mb': o.mb = num(a, argv[++i]); break;
      case '--pings': o.pings = num(a, argv[++i]); break;
      case '--startups': o.startups = num(a, argv[++i]); break;
      case '--idle-rounds': o.idleRounds = num(a, argv[++i]); break;
      case '--rss-mb': o.rssMb = num(a, argv[++i]); break;
      case '--rss-rounds': o.rssRounds = Math.max(1, num(a, argv[++i])); break;
      case '--exit-frames': o.exitFrames = num(a, argv[++i]); break;
      case '--check-frames': o.checkFrames = num(a, argv[++i]); break;
      case '--ui-frames': o.uiFrames = num(a, argv[++i]); break;
      case '--compare-frames': o.compareFrames = num(a, argv[++i]); break;
      case '--compare-runs': o.compareRuns = num(a, argv[++i]); break;
      case '--big-frames': o.bigFrames = num(a, argv[++i]); break;
      case '--remote-rss-mb': o.remoteRssMb = num(a, argv[++i]); break;
      case '--only': o.only = (argv[++i] ?? '').split(','); break;
      case '--json': o.json = argv[++i]; break;
      case '--js-tap': o.jsTap = true; break;
      case '--copy-tap': o.copyTap = true; break;
      case '--client': o.clients = clientKinds(argv[++i]); break;
      default: fail(`unknown option "${a}"; usage: node scripts/bench.js [--quick] [--rounds N] [--mb N] [--pings N] [--startups N] [--idle-rounds N] [--rss-mb N] [--rss-rounds N] [--check-frames N] [--ui-frames N] [--compare-frames N] [--compare-runs N] [--exit-frames N] [--big-frames N] [--remote-rss-mb N] [--only flood,startup,idle,rss,exit,check,ui,compare,big,remote] [--json FILE] [--js-tap] [--copy-tap] [--client socket|pipe|both]`);
    }
  }
  return o;
}

function fail(msg) {
  process.stderr.write(`bench: ${msg}\n`);
  process.exit(2);
}

const log = (s = '') => process.stdout.write(`${s}\n`);
const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const fmt = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const sizeName = (s) => (s >= 1024 ? `${s / 1024} KiB` : `${s} B`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const problems = [];
function problem(msg) {
  problems.push(msg);
  log(`  !! ${msg}`);
}

// ---- CPU accounting: what the proxy itself spends, independent of what else loads the machine --

const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout?.trim()) || 100;
})();

/**
 * CPU time (ms) and nice of each thread of `pid`; empty when it is gone. From schedstat (ns) where
 * the kernel has it: the tick counts in stat move in 10 ms steps, too coarse for a 32 MiB flood.
 */
function threadTimes(pid) {
  const out = [];
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
      let ms = ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
      try {
        const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        if (Number.isFinite(ns)) ms = ns / 1e6;
      } catch { /* no schedstat: ticks */ }
      const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
      out.push({ tid: Number(tid), ms, nice: Number(f[16]), comm });
    } catch { /* thread ended */ }
  }
  return out;
}

/**
 * CPU ms spent so far by a variant's proxy: for the tap split into forwarding (the native
 * forwarder's threads, named acp-fwd-*, or the main thread), the recorder (the main thread beside the
 * native forwarder, the thread at RECORDER_NICE beside the JavaScript one) and the rest (GC helpers, libuv pool); for the relay, its two cats; for the bare pass-through,
 * the whole process.
 */
function proxyCpu(v, pid) {
  if (v.name === 'direct') return { total: 0 };
  if (v.name === 'cat relay' || v.name === 'tee relay') {
    let kids = [];
    try { kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean); } catch { /* gone */ }
    let total = 0;
    for (const k of kids) {
      let comm = '';
      try { comm = readFileSync(`/proc/${k}/comm`, 'utf8').trim(); } catch { /* gone */ }
      if (comm === 'cat' || comm === 'tee') total += threadTimes(k).reduce((a, t) => a + t.ms, 0);
    }
    return { total };
  }
  const ts = threadTimes(pid);
  const recorder = recorderThread(ts, pid);
  const main = ts.filter((t) => !recorder(t) && (t.tid === pid || t.comm.startsWith('acp-fwd'))).reduce((a, t) => a + t.ms, 0);
  const worker = ts.filter(recorder).reduce((a, t) => a + t.ms, 0);
  const total = ts.reduce((a, t) => a + t.ms, 0);
  return v.tap ? { total, main, worker, other: total - main - worker } : { total };
}

/**
 * Which of the tap's threads (threadTimes) is its recorder: beside the native forwarder (threads
 * acp-fwd-*) the main thread; beside the JavaScript one, a worker thread at RECORDER_NICE while the
 * main thread forwards.
 */
function recorderThread(ts, pid) {
  const native = ts.some((t) => t.comm.startsWith('acp-fwd'));
  return (t) => (t.tid === pid ? native : !native && t.nice === RECORDER_NICE);
}

/** The recorder's nice value (src/tap/recorder/index.ts): how the bench tells the recorder worker apart. */
const RECORDER_NICE = 1;

const cpuDiff = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] ?? 0)]));

// ---- the client side: a pipeline we write to and read from, verifying every byte --------------

class Pipeline {
  /**
   * `client` is what the proxy's stdin and stdout are: 'socket' (a socket pair, what Node's
   * child_process gives) or 'pipe' (two pipes, what most editors give; made with the native addon,
   * Node having no pipe()).
   */
  constructor(cmd, args, opts = {}, client = 'socket') {
    if (client === 'pipe') {
      const addon = nativePipes();
      const [inR, inW, outR, outW] = addon.pipes();
      this.child = spawn(cmd, args, { stdio: [inR, outW, 'pipe'], ...opts });
      addon.closeFd(inR);
      addon.closeFd(outW);
      this.stdin = new Socket({ fd: inW, readable: false, writable: true });
      this.stdout = new Socket({ fd: outR, readable: true, writable: false });
    } else {
      this.child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...opts });
      this.stdin = this.child.stdin;
      this.stdout = this.child.stdout;
    }
    this.pid = this.child.pid;
    this.stderr = '';
    this.want = null; // { len, got, hash, resolve }
    this.spill = [];
    this.child.stderr.on('data', (c) => { if (this.stderr.length < 10_000) this.stderr += c; });
    this.stdout.on('data', (c) => this.onData(c));
    this.stdin.on('error', () => {});
    const stdoutClosed = new Promise((r) => this.stdout.on('close', r));
    this.exited = new Promise((r) => this.child.on('exit', (code, signal) => stdoutClosed.then(() => r({ code, signal }))));
  }

  onData(c) {
    const w = this.want;
    if (!w) {
      this.spill.push(c);
      return;
    }
    const need = w.len - w.got;
    if (c.length <= need) {
      w.hash.update(c);
      w.got += c.length;
    } else {
      w.hash.update(c.subarray(0, need));
      w.got = w.len;
      this.spill.push(c.subarray(need));
    }
    if (w.got === w.len) {
      this.want = null;
      w.resolve({ t: performance.now(), hash: w.hash.digest('hex') });
    }
  }

  /** Resolves when `len` more bytes arrived, with their sha256 and the arrival time. */
  expect(len) {
    return new Promise((resolveExpect) => {
      this.want = { len, got: 0, hash: createHash('sha256'), resolve: resolveExpect };
      const spilled = this.spill;
      this.spill = [];
      for (const c of spilled) this.onData(c);
    });
  }

  send(buf) {
    this.stdin.write(buf);
  }

  async close(timeoutMs = 120_000) {
    this.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const r = await this.exited;
    clearTimeout(timer);
    return r;
  }
}

const hashOf = (buf) => createHash('sha256').update(buf).digest('hex');

/** The native addon's pipes() (blocking, close-on-exec pipes), for the pipe client; null when it is not built. */
let nativeAddon;
function nativePipes() {
  if (nativeAddon === undefined) {
    try {
      nativeAddon = createRequire(import.meta.url)(join(ROOT, 'native', 'build', 'Release', 'acp_forward.node'));
    } catch {
      nativeAddon = null;
    }
  }
  return nativeAddon;
}

/** Sends `req` and waits for exactly the bytes of `expected`; returns the round-trip ms, or null if altered. */
async function roundTrip(p, req, expected) {
  const t0 = performance.now();
  const got = p.expect(expected.length);
  p.send(req);
  const r = await got;
  return r.hash === hashOf(expected) ? r.t - t0 : null;
}

// ---- the variants ------------------------------------------------------------------------------

function variants(tmp, jsTap, copyTap, client) {
  const mk = (cmd, args, opts = {}) => new Pipeline(cmd, args, opts, client);
  const agent = [NODE, AGENT];
  const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    { name: 'direct', start: () => mk(agent[0], agent.slice(1)) },
    { name: 'cat relay', start: () => mk('/bin/sh', ['-c', `cat | ${agent.map(q).join(' ')} | cat`]) },
    // The floor of any relay that keeps what it forwards on the database's disk: two `tee`s writing each
    // direction into a file beside it (in the page cache, as the tap's capture log is).
    { name: 'tee relay', start: () => mk('/bin/sh', ['-c', `tee ${q(join(tmp, 'tee-c2a'))} | ${agent.map(q).join(' ')} | tee ${q(join(tmp, 'tee-a2c'))}`]) },
    { name: 'bare node', start: () => mk(NODE, [BARE, ...agent]) },
    { name: 'tap', tap: true, start: (db) => mk(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--', ...agent]) },
    { name: 'tap --no-check', tap: true, start: (db) => mk(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--no-check', '--', ...agent]) },
    ...(copyTap ? [{ name: 'tap (copy fwd)', tap: true, start: (db) => mk(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--', ...agent], { env: { ...process.env, ACP_INSPECT_ZERO_COPY: '0' } }) }] : []),
    ...(jsTap ? [{ name: 'tap (JS fwd)', tap: true, start: (db) => mk(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--', ...agent], { env: { ...process.env, ACP_INSPECT_NATIVE: '0' } }) }] : []),
  ].map((v) => ({ ...v, tmp }));
}

/** Counts what a tap run stored: frames by direction, gaps, and the recording's status. */
async function countRecorded(db) {
  const { default: Database } = await import('better-sqlite3');
  const d = new Database(db, { readonly: true });
  try {
    const rec = d.prepare(`SELECT id, status, incomplete_reason FROM recordings ORDER BY id DESC LIMIT 1`).get();
    if (!rec) return { frames: 0, c2a: 0, a2c: 0, gaps: 0, status: 'none' };
    const by = Object.fromEntries(d.prepare(`SELECT dir, count(*) AS n FROM items WHERE recording_id = ? GROUP BY dir`).all(rec.id).map((r) => [r.dir, r.n]));
    const gaps = d.prepare(`SELECT count(*) AS n FROM items WHERE recording_id = ? AND dir = 'event' AND kind = 'gap'`).get(rec.id).n;
    const findings = d.prepare(`SELECT count(*) AS n FROM findings WHERE recording_id = ?`).get(rec.id).n;
    return { c2a: by.c2a ?? 0, a2c: by.a2c ?? 0, gaps, findings, status: rec.status, reason: rec.incomplete_reason };
  } finally {
    d.close();
  }
}

/**
 * Waits until the tap's recording holds `want` agent→client frames (the recorder runs behind the
 * session, at low priority, and catches up when the CPU is free); gives up after `idleMs` without
 * progress. Returns the milliseconds waited, or null when it gave up. The flood's answer (id
 * `answerId`) is the last agent frame and the recorder stores in order, so the wait is for that row
 * (looked for among the rows stored since the last look, not a count of them all every 20 ms),
 * then the frames are counted once.
 */
async function recordedUpTo(db, want, answerId, idleMs = 10_000) {
  const { default: Database } = await import('better-sqlite3');
  const t0 = performance.now();
  let last = -1;
  let lastMove = t0;
  let d = null;
  let q = null;
  try {
    for (;;) {
      let top = last;
      let answered = false;
      try {
        if (!q) {
          d ??= new Database(db, { readonly: true, fileMustExist: true });
          const rec = `(SELECT max(id) FROM recordings)`;
          q = {
            top: d.prepare(`SELECT max(seq) AS s FROM items WHERE recording_id = ${rec}`),
            answer: d.prepare(`SELECT 1 FROM items WHERE recording_id = ${rec} AND seq > ? AND seq <= ? AND dir = 'a2c' AND rpc_id = ? LIMIT 1`),
            count: d.prepare(`SELECT count(*) AS n FROM items WHERE dir = 'a2c' AND recording_id = ${rec}`),
          };
        }
        top = q.top.get().s ?? -1;
        if (top !== last) answered = q.answer.get(last, top, JSON.stringify(answerId)) !== undefined;
      } catch {
        top = last; // not created yet, or busy: look at the same rows again
      }
      if (answered) {
        const ms = performance.now() - t0;
        return q.count.get().n >= want ? ms : null;
      }
      if (top !== last) {
        last = top;
        lastMove = performance.now();
      } else if (performance.now() - lastMove > idleMs) return null;
      await sleep(20);
    }
  } finally {
    d?.close();
  }
}

/** One session through one variant: warm-up, a flood per size, then sequential pings. */
async function session(v, o, expected, round) {
  const db = join(v.tmp, `r${round}-${v.name.replace(/\W+/g, '_')}.db`);
  const p = v.start(db);
  let id = 0;
  let c2a = 0;
  let a2c = 0;
  let altered = 0;
  const out = { floods: {}, rtts: [] };
  const rt = async (req, res) => {
    c2a++;
    a2c++;
    const ms = await roundTrip(p, req, res);
    if (ms === null) altered++;
    return ms;
  };
  await rt(initializeRequest(++id), initializeResult(id));
  await rt(newSessionRequest(++id), newSessionResult(id));
  const flood = async (size, count) => {
    const fid = ++id;
    const exp = expected(fid, size, count);
    const t0 = performance.now();
    const got = p.expect(exp.len);
    p.send(promptRequest(fid, `flood ${size} ${count}`));
    const r = await got;
    c2a++;
    a2c += count + 1;
    if (r.hash !== exp.hash) altered++;
    return { bytes: exp.len, frames: count, ms: r.t - t0 };
  };
  // Between floods, a tap run waits until its recording has caught up (timed apart as catchUpMs):
  // each flood then starts with an empty hand-off ring, as the alternated variants start idle.
  const settle = async () => {
    if (!v.tap) return null;
    const ms = await recordedUpTo(db, a2c, id);
    if (ms === null) problem(`${v.name} round ${round + 1}: the recording stopped growing before it held ${a2c} agent frames`);
    return ms;
  };
  await flood(1024, 2000); // warm-up: JIT, pipe buffers
  await settle();
  for (const size of o.sizes) {
    const count = Math.max(1, Math.floor((o.mb * 1024 * 1024) / size));
    const c0 = proxyCpu(v, p.pid);
    out.floods[size] = await flood(size, count);
    const c1 = proxyCpu(v, p.pid);
    out.floods[size].catchUpMs = await settle();
    out.floods[size].cpuFlood = cpuDiff(c0, c1);
    out.floods[size].cpu = cpuDiff(c0, proxyCpu(v, p.pid));
  }
  for (let i = 0; i < o.pings; i++) {
    const pid = ++id;
    const ms = await rt(promptRequest(pid, 'ping'), promptResult(pid));
    if (ms !== null) out.rtts.push(ms);
  }
  const tEnd = performance.now();
  const ex = await p.close();
  out.exitMs = performance.now() - tEnd;
  if (altered) problem(`${v.name} round ${round + 1}: ${altered} replies were not byte-exact`);
  if (ex.code !== 0) problem(`${v.name} round ${round + 1}: exit ${ex.code ?? ex.signal}; stderr: ${p.stderr.trim().split('\n')[0] ?? ''}`);
  if (v.tap) {
    const rec = await countRecorded(db);
    out.recorded = rec;
    if (rec.c2a !== c2a || rec.a2c !== a2c || rec.gaps !== 0 || rec.status !== 'complete') {
      problem(`${v.name} round ${round + 1}: recorded c2a ${rec.c2a}/${c2a}, a2c ${rec.a2c}/${a2c}, gaps ${rec.gaps}, status ${rec.status}${rec.reason ? ` (${rec.reason})` : ''}`);
    }
    out.expectedFrames = c2a + a2c;
    // A tap that leaves large logs to remove starts a detached indexer at its exit: it finishes
    // before the next round, which it would otherwise share the CPU with.
    await indexersGone(db, 20_000);
    rmSync(db, { force: true });
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
  }
  if (p.stderr.trim() && v.tap) log(`  (${v.name} stderr: ${p.stderr.trim().split('\n')[0]})`);
  return out;
}

const CLIENT_NAMES = {
  socket: 'the client on a socket pair (what Node\'s child_process gives)',
  pipe: 'the client on pipes (what most editors give)',
};

async function benchFlood(o, tmp, results, client) {
  if (client === 'pipe' && !nativePipes()) {
    log(`## Flood and round trips, ${CLIENT_NAMES[client]}: skipped (making pipes needs the native addon: npm run build:native)`);
    return;
  }
  log(`## Flood and round trips, ${CLIENT_NAMES[client]}: ${o.rounds} round(s), ${o.mb} MiB per frame size, ${o.pings} pings, variants alternating`);
  const cache = new Map();
  const expected = (id, size, count) => {
    const k = `${id}/${size}/${count}`;
    if (!cache.has(k)) cache.set(k, expectedFlood(id, size, count));
    return cache.get(k);
  };
  const vs = variants(tmp, o.jsTap, o.copyTap, client);
  const runs = Object.fromEntries(vs.map((v) => [v.name, []]));
  for (let r = 0; r < o.rounds; r++) {
    for (const v of vs) {
      const s = await session(v, o, expected, r);
      runs[v.name].push(s);
      const parts = o.sizes.map((size) => `${sizeName(size)} ${fmt(s.floods[size].bytes / 1048576 / (s.floods[size].ms / 1000), 0)} MiB/s`);
      const catchUp = v.tap ? `  recorded ${s.recorded.c2a + s.recorded.a2c}/${s.expectedFrames} frames, caught up ${o.sizes.map((size) => fmt(s.floods[size].catchUpMs, 0)).join('/')} ms after each flood` : '';
      log(`  round ${r + 1} ${pad(v.name, 15)} ${parts.join('  ')}  rtt p50 ${fmt(median(s.rtts), 3)} ms${catchUp}`);
    }
  }
  // Medians over rounds.
  const table = {};
  for (const v of vs) {
    const rs = runs[v.name];
    const row = { throughput: {}, framesPerSec: {}, rttP50: median(rs.map((s) => median(s.rtts))), rttP99: median(rs.map((s) => pct(s.rtts, 99))) };
    for (const size of o.sizes) {
      row.throughput[size] = median(rs.map((s) => s.floods[size].bytes / 1048576 / (s.floods[size].ms / 1000)));
      row.framesPerSec[size] = median(rs.map((s) => s.floods[size].frames / (s.floods[size].ms / 1000)));
    }
    table[v.name] = row;
  }
  log('');
  log(`  ${pad('variant', 16)}${o.sizes.map((s) => lpad(`${sizeName(s)} MiB/s`, 16)).join('')}${lpad('rtt p50 ms', 12)}${lpad('rtt p99 ms', 12)}`);
  for (const v of vs) {
    const row = table[v.name];
    log(`  ${pad(v.name, 16)}${o.sizes.map((s) => lpad(`${fmt(row.throughput[s], 0)} (${fmt(row.framesPerSec[s] / 1000, 0)}k f/s)`, 16)).join('')}${lpad(fmt(row.rttP50, 3), 12)}${lpad(fmt(row.rttP99, 3), 12)}`);
  }
  log('');
  log(`  CPU the proxy spends per GiB forwarded (ms; load-independent; tap: forwarding + recorder during the flood + recorder after it + other threads)`);
  log(`  ${pad('', 16)}${o.sizes.map((s) => lpad(sizeName(s), 26)).join('')}`);
  const cpuPerGiB = {};
  for (const v of vs) {
    if (v.name === 'direct') continue;
    const row = {};
    for (const size of o.sizes) {
      const per = (k, which = 'cpu') => median(runs[v.name].map((s) => s.floods[size][which][k] / (s.floods[size].bytes / 1073741824)));
      row[size] = v.tap ? { total: per('total'), main: per('main'), worker: per('worker'), workerFlood: per('worker', 'cpuFlood'), other: per('other') } : { total: per('total') };
    }
    cpuPerGiB[v.name] = row;
    log(`  ${pad(v.name, 16)}${o.sizes.map((size) => lpad(v.tap ? `${fmt(row[size].main, 0)}+${fmt(row[size].workerFlood, 0)}+${fmt(row[size].worker - row[size].workerFlood, 0)}+${fmt(row[size].other, 0)}` : fmt(row[size].total, 0), 26)).join('')}`);
  }
  log('');
  const ratios = {};
  for (const tapName of ['tap', 'tap --no-check']) {
    const t = table[tapName];
    const rel = table['cat relay'];
    const bare = table['bare node'];
    ratios[tapName] = {
      throughputVsRelay: Object.fromEntries(o.sizes.map((s) => [s, t.throughput[s] / rel.throughput[s]])),
      throughputVsBare: Object.fromEntries(o.sizes.map((s) => [s, t.throughput[s] / bare.throughput[s]])),
      rttP50VsRelay: t.rttP50 / rel.rttP50,
      rttP99VsRelay: t.rttP99 / rel.rttP99,
      rttP50VsBare: t.rttP50 / bare.rttP50,
    };
    // Beside the ratios of the medians (the targets): the ratio within each round, where the tap's
    // session and the relay's ran one after the other, sharing that moment's load of the machine.
    const paired = (f) => {
      const xs = runs[tapName].map((s, i) => f(s) / f(runs['cat relay'][i]));
      return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
    };
    ratios[tapName].paired = {
      throughputVsRelay: Object.fromEntries(o.sizes.map((size) => [size, paired((s) => s.floods[size].bytes / s.floods[size].ms)])),
      rttP50VsRelay: paired((s) => median(s.rtts)),
    };
    // Two figures that other work on the machine moves less, beside the ones above: each variant's
    // fastest round (a flood of a few tens of MiB lasts 50-300 ms, so one descheduled moment of the
    // driver, the agent or a relay halves a round's figure), and the CPU the forwarding itself costs
    // per GiB (the tap's forwarding threads against the relay's two cats).
    const best = (name, size) => Math.max(...runs[name].map((s) => s.floods[size].bytes / 1048576 / (s.floods[size].ms / 1000)));
    ratios[tapName].bestRoundVsRelay = Object.fromEntries(o.sizes.map((s) => [s, best(tapName, s) / best('cat relay', s)]));
    ratios[tapName].forwardCpuVsRelay = Object.fromEntries(o.sizes.map((s) => [s, cpuPerGiB[tapName][s].main / cpuPerGiB['cat relay'][s].total]));
    const r = ratios[tapName];
    const spread = (x) => `${fmt(x.median)} (${fmt(x.min)}–${fmt(x.max)})`;
    log(`  ${tapName}/relay throughput: ${o.sizes.map((s) => `${sizeName(s)} ${fmt(r.throughputVsRelay[s])}`).join(', ')}   (target at 1 KiB ≥ 0.85)`);
    log(`  ${tapName}/bare  throughput: ${o.sizes.map((s) => `${sizeName(s)} ${fmt(r.throughputVsBare[s])}`).join(', ')}   (target ≥ 0.9)`);
    log(`  ${tapName}/relay rtt: p50 ${fmt(r.rttP50VsRelay)}× (target ≤ 1.3), p99 ${fmt(r.rttP99VsRelay)}×;  ${tapName}/bare rtt p50 ${fmt(r.rttP50VsBare)}×`);
    log(`  ${tapName}/relay within each round, median (range): throughput ${o.sizes.map((s) => `${sizeName(s)} ${spread(r.paired.throughputVsRelay[s])}`).join(', ')}; rtt p50 ${spread(r.paired.rttP50VsRelay)}`);
    const tee = table['tee relay'];
    r.throughputVsTee = Object.fromEntries(o.sizes.map((s) => [s, t.throughput[s] / tee.throughput[s]]));
    r.forwardCpuVsTee = Object.fromEntries(o.sizes.map((s) => [s, cpuPerGiB[tapName][s].main / cpuPerGiB['tee relay'][s].total]));
    log(`  ${tapName}/tee relay (a relay that writes what it forwards to disk): throughput ${o.sizes.map((s) => `${sizeName(s)} ${fmt(r.throughputVsTee[s])}`).join(', ')};  forwarding CPU per GiB ${o.sizes.map((s) => `${sizeName(s)} ${fmt(r.forwardCpuVsTee[s])}×`).join(', ')};  tee/cat relay throughput ${o.sizes.map((s) => `${sizeName(s)} ${fmt(tee.throughput[s] / rel.throughput[s])}`).join(', ')}`);
    log(`  ${tapName}/relay throughput, best round of each: ${o.sizes.map((s) => `${sizeName(s)} ${fmt(r.bestRoundVsRelay[s])}`).join(', ')};  forwarding CPU per GiB: ${o.sizes.map((s) => `${sizeName(s)} ${fmt(r.forwardCpuVsRelay[s])}×`).join(', ')}`);
  }
  const perRound = {};
  for (const v of vs) perRound[v.name] = runs[v.name].map((s) => ({ floods: s.floods, rttP50: median(s.rtts), rttP99: pct(s.rtts, 99), recorded: s.recorded, exitMs: s.exitMs }));
  results[client === 'socket' ? 'flood' : 'floodPipe'] = { client, table, ratios, cpuPerGiB, perRound, rounds: o.rounds, mbPerSize: o.mb, pings: o.pings };
}

// ---- start-up ----------------------------------------------------------------------------------

/** Milliseconds from launching `cmd` until its first stdout byte (or its exit, when it writes none). */
function timeToFirstByte(cmd, args) {
  return new Promise((resolveT) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    let t = null;
    child.stdout.once('data', () => { t = performance.now() - t0; });
    child.on('close', () => resolveT(t ?? performance.now() - t0));
    child.stdin.end();
  });
}

/**
 * Start-up: the tap launched on an agent that writes one line at once (echo), from launch to that
 * line through the tap, against a bare `node -e ''` launched right before it, alternating. The target
 * is on the ratio of the two medians (as always); beside it, the median of the ratios of each
 * launch to the bare node launched just before it, and their quartiles: on a busy machine the
 * launches of one pair share its load, so the paired ratio says how steady the ratio of medians is.
 */
async function benchStartup(o, tmp, results) {
  log(`## Start-up: ${o.startups} launches each, alternating`);
  const db = join(tmp, 'startup.db');
  const echo = existsSync('/bin/echo') ? '/bin/echo' : 'echo';
  const kinds = {
    "bare node -e ''": () => timeToFirstByte(NODE, ['-e', '']),
    'agent alone (echo)': () => timeToFirstByte(echo, ['ready']),
    'tap -- echo': () => timeToFirstByte(NODE, [BIN, '--db', db, '--', echo, 'ready']),
  };
  await kinds['tap -- echo'](); // creates the database once, as an installed tap would find it
  const ms = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let i = 0; i < o.startups; i++) for (const [k, f] of Object.entries(kinds)) ms[k].push(await f());
  const med = Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, median(xs)]));
  for (const [k, m] of Object.entries(med)) log(`  ${pad(k, 22)} median ${fmt(m, 1)} ms  (min ${fmt(Math.min(...ms[k]), 1)}, max ${fmt(Math.max(...ms[k]), 1)})`);
  const ratio = med['tap -- echo'] / med["bare node -e ''"];
  log(`  tap start-up (launch to the agent's first byte) / bare node start: ${fmt(ratio)}×   (target ≤ 1.2)`);
  const paired = ms['tap -- echo'].map((t, i) => t / ms["bare node -e ''"][i]);
  const pairedRatio = { median: median(paired), p25: pct(paired, 25), p75: pct(paired, 75) };
  log(`  paired, each launch against the bare node just before it: median ${fmt(pairedRatio.median)}× (quartiles ${fmt(pairedRatio.p25)}–${fmt(pairedRatio.p75)})`);
  results.startup = { medians: med, ratio, pairedRatio, samples: ms };
}

// ---- idle memory ---------------------------------------------------------------------------------

/**
 * What a tap weighs while nothing happens: the tap (native forwarder, and the JavaScript one for the
 * record) and a bare Node pass-through holding the same pipes open, each with the agent connected
 * (initialize and session/new answered), then idle for `idleMs`; RSS read at the end. The three run
 * side by side each round (RSS does not depend on the machine's load); medians over the rounds.
 */
async function benchIdle(o, tmp, results) {
  const idleMs = o.quick ? 2000 : 10_000;
  const rounds = o.quick ? 1 : o.idleRounds;
  log(`## Idle: RSS after ${idleMs / 1000} s idle with the agent connected, ${rounds} round${rounds > 1 ? 's' : ''}`);
  const kinds = {
    tap: (i) => new Pipeline(NODE, [...TAP_NODE_ARGS, BIN, '--db', join(tmp, `idle-${i}.db`), '--', NODE, AGENT]),
    'tap (JavaScript forwarder)': (i) => new Pipeline(NODE, [BIN, '--db', join(tmp, `idle-js-${i}.db`), '--', NODE, AGENT], { env: { ...process.env, ACP_INSPECT_NATIVE: '0' } }),
    'bare node': () => new Pipeline(NODE, [BARE, NODE, AGENT]),
  };
  const rss = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  const anon = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    const ps = Object.entries(kinds).map(([k, mk]) => [k, mk(i)]);
    await Promise.all(ps.map(async ([k, p]) => {
      const ok = (await roundTrip(p, initializeRequest(1), initializeResult(1))) !== null
        && (await roundTrip(p, newSessionRequest(2), newSessionResult(2))) !== null;
      if (!ok) problem(`idle: ${k}: bytes altered`);
    }));
    await sleep(idleMs);
    for (const [k, p] of ps) {
      const s = readStatus(p.pid);
      if (s) { rss[k].push(s.rss / 1024); anon[k].push(s.anon / 1024); }
    }
    for (const [k, p] of ps) {
      const ex = await p.close(30_000);
      if (ex.code !== 0) problem(`idle: ${k} exit ${ex.code ?? ex.signal}: ${p.stderr.trim().split('\n')[0] ?? ''}`);
    }
  }
  const med = Object.fromEntries(Object.keys(kinds).map((k) => [k, median(rss[k])]));
  for (const k of Object.keys(kinds)) log(`  ${pad(k, 28)} RSS median ${fmt(med[k], 1)} MiB (${rss[k].map((x) => fmt(x, 1)).join(', ')}), anonymous ${fmt(median(anon[k]), 1)} MiB`);
  const ratio = med.tap / med['bare node'];
  const jsRatio = med['tap (JavaScript forwarder)'] / med['bare node'];
  log(`  idle tap RSS / bare node RSS: ${fmt(ratio)}×   (target ≤ 1.3);  JavaScript forwarder: ${fmt(jsRatio)}× (reported)`);
  results.idle = { idleMs, rounds, medians: med, anonMedians: Object.fromEntries(Object.keys(kinds).map((k) => [k, median(anon[k])])), samples: rss, ratio, jsRatio };
}

// ---- memory through a large flood --------------------------------------------------------------

function readStatus(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
    return { hwm: kb('VmHWM'), rss: kb('VmRSS'), anon: kb('RssAnon') };
  } catch {
    return null;
  }
}

/**
 * KiB a process keeps in tmpfs (RAM charged to the machine and to a container's memory limit, not
 * counted in its RSS): the blocks of the files under /dev/shm it holds open, unlinked or not.
 */
function tmpfsKiB(pid) {
  let kib = 0;
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (!readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('/dev/shm/')) continue;
        kib += (statSync(`/proc/${pid}/fd/${fd}`).blocks * 512) / 1024;
      } catch { /* closed meanwhile */ }
    }
  } catch { /* gone */ }
  return kib;
}

/** The tap's footprint now: its RSS plus what it keeps in tmpfs (KiB), or null when it is gone. */
function footprint(pid) {
  const s = readStatus(pid);
  if (!s || !Number.isFinite(s.rss)) return null;
  const shm = tmpfsKiB(pid);
  return { rss: s.rss, hwm: s.hwm, shm, sum: s.rss + shm };
}

/** Waits (at most `ms`) until no indexer of `db` runs. */
async function indexersGone(db, ms) {
  for (let i = 0; i < ms / 50 && indexerPids(db).length > 0; i++) await sleep(50);
}

/** Pids of the detached indexers (`acp-inspect index --db DB`) running for `db`. */
function indexerPids(db) {
  const out = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (cmd.includes('index') && cmd.includes(db)) out.push(Number(d));
    } catch { /* gone */ }
  }
  return out;
}

/**
 * Polls the tap's SQLite file (read-only, every 20 ms) until the recording holds the answer to
 * request `rpcId`, the last frame of the flood: the moment the recorder has indexed all of it.
 * Resolves with performance.now() of the first poll that saw it, or null after `idleMs` without it.
 * The poller's connection is closed as soon as the row is seen, so the tap's own close (which
 * checkpoints the log into the database only as the last connection) runs as it would alone.
 */
async function lastRowStored(db, rpcId, idleMs = 300_000) {
  const { default: Database } = await import('better-sqlite3');
  const t0 = performance.now();
  let d = null;
  try {
    while (performance.now() - t0 < idleMs) {
      try {
        d ??= new Database(db, { readonly: true, fileMustExist: true });
        const hit = d.prepare(`SELECT 1 FROM items WHERE recording_id = (SELECT max(id) FROM recordings) AND kind = 'result' AND rpc_id = ?`).get(String(rpcId));
        if (hit) return performance.now();
      } catch { /* not created yet, or busy */ }
      await sleep(20);
    }
    return null;
  } finally {
    d?.close();
  }
}

/** CPU ms of the tap so far: the whole process and its recorder thread (see recorderThread). */
function tapCpu(pid) {
  const ts = threadTimes(pid);
  return { total: ts.reduce((a, t) => a + t.ms, 0), worker: ts.filter(recorderThread(ts, pid)).reduce((a, t) => a + t.ms, 0) };
}

/**
 * The peer of the indexing rate: what SQLite alone takes to store the same rows. The flood's rows are
 * copied from the tap's file by `INSERT … SELECT` into a fresh database that the store created
 * (same schema and indexes, page size, write-ahead log, synchronous setting), as many rows per
 * transaction as the detached indexer's batches (INDEX_FLUSH_ITEMS): no JavaScript per row, no
 * checker, no reading of the log.
 * `checkpointMiB`: the log copied into the database every this many MiB (SQLite's automatic
 * checkpoint; the indexer copies it every WAL_BOUND_BYTES committed, see checkpointSoon in
 * store-writer.ts), or 0 for none until the database is closed (its log unbounded). Returns rows/s and CPU µs per row to the last row, and the
 * time to the close (the log copied into the database), or null.
 */
async function sqliteFloor(tmp, src, checkpointMiB) {
  let Store, per;
  try {
    ({ Store } = await import(pathToFileURL(join(ROOT, 'dist', 'src', 'store', 'store.js')).href));
    per = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'tap', 'recorder', 'batch-bounds.js')).href)).INDEX_FLUSH_ITEMS;
  } catch {
    return null;
  }
  const file = join(tmp, 'floor.db');
  const store = Store.open(file);
  try {
    const db = store.db;
    const page = db.pragma('page_size', { simple: true });
    db.pragma(`wal_autocheckpoint = ${Math.ceil((checkpointMiB * 1024 * 1024) / page)}`);
    db.prepare('ATTACH ? AS src').run(src);
    const rec = db.prepare('SELECT max(id) AS id FROM src.recordings').get().id;
    db.prepare('INSERT INTO main.recordings SELECT * FROM src.recordings WHERE id = ?').run(rec);
    const { lo, hi } = db.prepare('SELECT min(seq) AS lo, max(seq) AS hi FROM src.items WHERE recording_id = ?').get(rec);
    const copy = db.prepare('INSERT INTO main.items SELECT * FROM src.items WHERE recording_id = ? AND seq >= ? AND seq < ? ORDER BY seq');
    const batch = db.transaction((from) => copy.run(rec, from, from + per).changes);
    let rows = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let from = lo; from <= hi; from += per) rows += batch(from);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    store.close();
    const totalMs = performance.now() - t0;
    return { rows, per, checkpointMiB, rowsPerSec: rows / (ms / 1000), cpuUsPerRow: (c.user + c.system) / rows, totalMs };
  } finally {
    if (store.db.open) store.close();
    for (const x of ['', '-wal', '-shm']) rmSync(file + x, { force: true });
  }
}

async function benchRss(o, tmp, results) {
  const size = 1024;
  const count = Math.floor((o.rssMb * 1024 * 1024) / size);
  log(`## Memory and indexing: the tap through a ${o.rssMb} MiB flood of ${sizeName(size)} frames (${count} frames), checker on; the client closes stdin at the flood's end`);
  const db = join(tmp, 'rss.db');
  const p = new Pipeline(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--', NODE, AGENT]);
  // The footprint is RSS plus tmpfs, sampled every 50 ms (VmHWM is RSS alone); the detached
  // indexer that finishes the recording after the tap exits is a process of its own, sampled too.
  let peak = 0, peakRss = 0, peakShm = 0, indexerPeak = 0;
  const poll = setInterval(() => {
    const f = footprint(p.pid);
    if (f) { peak = Math.max(peak, f.sum); peakRss = Math.max(peakRss, f.hwm); peakShm = Math.max(peakShm, f.shm); }
    for (const pid of indexerPids(db)) { const s = readStatus(pid); if (s) indexerPeak = Math.max(indexerPeak, s.rss); }
  }, 50);
  // A valid session, as in the flood section: updates for a session never created would each be a
  // finding, and the run would measure a million error findings rather than a flood.
  const ok = (await roundTrip(p, initializeRequest(1), initializeResult(1))) !== null
    && (await roundTrip(p, newSessionRequest(2), newSessionResult(2))) !== null;
  const exp = expectedFlood(3, size, count);
  const t0 = performance.now();
  const got = p.expect(exp.len);
  p.send(promptRequest(3, `flood ${size} ${count}`));
  const r = await got;
  const floodMs = r.t - t0;
  const last = footprint(p.pid);
  if (last) { peak = Math.max(peak, last.sum); peakRss = Math.max(peakRss, last.hwm); }
  // What an editor does at the end: close the agent's stdin. The tap exits with its agent; what is
  // left to index is finished by a detached indexer (or, before, by the tap before it exited).
  const closed = p.close(300_000);
  const ex = await closed;
  const exitMs = performance.now() - r.t;
  // Indexing: from the flood's end (the client has its last byte) to the last frame's row in the
  // database, seen by a reader.
  const stored = await lastRowStored(db, 3);
  const indexMs = stored === null ? null : stored - r.t;
  // The recording is finished (its status written) a moment after its last row; the detached indexer
  // exits once it closed the database (the last connection copies the write-ahead log into it).
  for (let i = 0; i < 600 && (await countRecorded(db)).status === 'running'; i++) await sleep(100);
  await indexersGone(db, 60_000);
  const indexerDoneMs = performance.now() - r.t;
  clearInterval(poll);
  if (!ok || r.hash !== exp.hash) problem(`rss flood: bytes altered`);
  if (ex.code !== 0) problem(`rss flood: tap exit ${ex.code ?? ex.signal}: ${p.stderr.trim().split('\n')[0] ?? ''}`);
  if (stored === null) problem('rss flood: the last frame was never stored');
  const rec = await countRecorded(db);
  const expectedFrames = 4 + 2 + count;
  const indexRate = indexMs === null ? null : (count + 1) / (indexMs / 1000);
  log(`  flood ${fmt(exp.len / 1048576 / (floodMs / 1000), 0)} MiB/s; tap footprint peak (RSS + tmpfs) ${fmt(peak / 1024, 1)} MiB (RSS peak ${fmt(peakRss / 1024, 1)}, tmpfs peak ${fmt(peakShm / 1024, 1)})   (target ≤ 150)`);
  log(`  the tap exited ${fmt(exitMs, 0)} ms after the flood's end and stdin closed${indexerPeak ? `; the detached indexer's peak RSS ${fmt(indexerPeak / 1024, 1)} MiB` : ''}`);
  if (indexMs !== null) log(`  indexing: last frame stored ${fmt(indexMs, 0)} ms after the flood's end: ${fmt(indexRate / 1000, 1)}k frames/s   (target ≥ 150k)`);
  log(`  recorded ${rec.c2a + rec.a2c}/${expectedFrames} frames, gaps ${rec.gaps}, findings ${rec.findings}, status ${rec.status}`);
  if (rec.c2a + rec.a2c !== expectedFrames || rec.gaps) log(`  (a recording that misses frames or holds gaps: ${rec.reason ?? 'no reason stored'})`);
  if (indexMs !== null) log(`  the detached indexer exited (the database's log copied into it, the capture log removed) ${fmt(indexerDoneMs, 0)} ms after the flood's end`);
  // SQLite alone storing the same rows: with its log under the indexer's bound (a checkpoint every
  // WAL_BOUND_BYTES of log, as the indexer copies its log every that much committed: issue 44 bounds
  // it), with no checkpoint until its close (what the indexer did before that bound, and SQLite's
  // fastest to the last row, its log growing past 1 GiB), and with one every 64 MiB (the floor this
  // bench printed first). Each from a page cache with nothing dirty: the flood's capture log and the
  // indexer's copying leave gigabytes to write back, which would slow whichever ran first. Then the
  // same indexing as the floors run it (`acp-inspect index` of the flood's log, from a clean page
  // cache); in rounds, alternating, medians: one run of each moved 20-40 % from run to run here.
  const boundMiB = (await walBoundBytes()) / 1048576;
  const cleanLog = await makeCleanLog(tmp, size, count);
  const runs = { floor: [], floorBound: [], floor64: [], clean: [] };
  for (let round = 0; round < o.rssRounds; round++) {
    for (const [k, ck] of [['floor', 0], ['floorBound', boundMiB], ['floor64', 64]]) {
      spawnSync('sync');
      const f = await sqliteFloor(tmp, db, ck);
      if (f) runs[k].push(f);
    }
    if (cleanLog) {
      const c = await cleanIndexing(tmp, cleanLog);
      if (c) runs.clean.push(c);
    }
  }
  if (cleanLog) rmSync(cleanLog, { recursive: true, force: true });
  const medianOf = (rs) => (rs.length === 0 ? null : { ...rs[0], rowsPerSec: median(rs.map((f) => f.rowsPerSec)), cpuUsPerRow: median(rs.map((f) => f.cpuUsPerRow)), totalMs: median(rs.map((f) => f.totalMs)), runs: rs.length > 1 ? rs : undefined });
  const floor = medianOf(runs.floor), floorBound = medianOf(runs.floorBound), floor64 = medianOf(runs.floor64);
  const clean = runs.clean.length === 0 ? null : { lastMs: median(runs.clean.map((c) => c.lastMs)), exitMs: median(runs.clean.map((c) => c.exitMs)), runs: runs.clean.length > 1 ? runs.clean : undefined };
  // End to end: from the tap's exit to the indexer's (the rows stored, the database's log copied into
  // it), against SQLite alone to its close.
  const endToEnd = (f) => (indexMs === null ? null : f.totalMs / (indexerDoneMs - (exitMs ?? 0)));
  const best = [floor, floorBound, floor64].filter(Boolean).sort((a, b) => a.totalMs - b.totalMs)[0] ?? null;
  const cleanRate = clean && clean.lastMs ? (count + 1) / (clean.lastMs / 1000) : null;
  const several = o.rssRounds > 1 ? ` (medians of ${o.rssRounds} rounds)` : '';
  for (const f of [floorBound, floor, floor64]) {
    if (!f) continue;
    const how = f === floorBound ? `a checkpoint every ${f.checkpointMiB} MiB of its log, the indexer's bound` : f.checkpointMiB ? `a checkpoint every ${f.checkpointMiB} MiB` : 'no checkpoint until its close, its log unbounded';
    log(`  SQLite alone, storing the same ${f.rows} rows (INSERT … SELECT into a fresh file, same schema and settings, ${f.per} rows a transaction as the indexer's, ${how})${several}: ${fmt(f.rowsPerSec / 1000, 1)}k rows/s, ${fmt(f.cpuUsPerRow, 1)} µs CPU/row, ${fmt(f.totalMs, 0)} ms to its close; indexing reached ${indexRate ? `${fmt(indexRate / f.rowsPerSec)} of its rate to the last row, ${fmt(endToEnd(f))} end to end (from the tap's exit to the indexer's)` : 'nothing'}${cleanRate ? `; from a clean page cache as this, ${fmt(cleanRate / f.rowsPerSec)} and ${fmt(f.totalMs / clean.exitMs)}` : ''}`);
  }
  if (clean) log(`  the same flood's log left unindexed, then after a sync \`acp-inspect index\`${several}: last frame stored ${fmt(clean.lastMs, 0)} ms after its start (${fmt(cleanRate / 1000, 1)}k frames/s), its exit ${fmt(clean.exitMs, 0)} ms`);
  results.rss = {
    mb: o.rssMb, frameSize: size, peakMiB: peak / 1024, peakRssMiB: peakRss / 1024, peakTmpfsMiB: peakShm / 1024, indexerPeakMiB: indexerPeak / 1024,
    floodMiBs: exp.len / 1048576 / (floodMs / 1000), recorded: rec, expectedFrames, exitMs,
    indexMs, indexFramesPerSec: indexRate, indexerDoneMs, rounds: o.rssRounds, walBoundMiB: boundMiB,
    sqliteFloor: floor, sqliteFloorBound: floorBound, sqliteFloor64: floor64,
    indexVsFloor: floor && indexRate ? indexRate / floor.rowsPerSec : null,
    indexVsFloorBound: floorBound && indexRate ? indexRate / floorBound.rowsPerSec : null,
    indexVsBestEndToEnd: best ? endToEnd(best) : null,
    indexVsFloor64: floor64 && indexRate ? indexRate / floor64.rowsPerSec : null,
    cleanIndexing: clean ? { ...clean, framesPerSec: cleanRate } : null,
    cleanVsFloor: floor && cleanRate ? cleanRate / floor.rowsPerSec : null,
    cleanVsFloorBound: floorBound && cleanRate ? cleanRate / floorBound.rowsPerSec : null,
    cleanVsFloor64: floor64 && cleanRate ? cleanRate / floor64.rowsPerSec : null,
    cleanVsBestEndToEnd: best && clean ? best.totalMs / clean.exitMs : null,
  };
  for (const x of ['', '-wal', '-shm']) rmSync(db + x, { force: true });
  rmSync(`${db}-captures`, { recursive: true, force: true });
}

/** The indexer's bound on SQLite's log (store-writer.ts), in bytes: 128 MiB if the build has none to say. */
async function walBoundBytes() {
  try {
    return (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'tap', 'recorder', 'store-writer.js')).href)).WAL_BOUND_BYTES ?? 128 * 1048576;
  } catch {
    return 128 * 1048576;
  }
}

/**
 * A flood's log left unindexed: the tap floods `count` frames of `size` bytes and exits leaving its
 * log to be indexed (no detached indexer). The folder holding the database and its capture logs as
 * they were then, for cleanIndexing to index a copy of each time, or null.
 */
async function makeCleanLog(tmp, size, count) {
  const dir = join(tmp, 'clean-log');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const db = join(dir, 'clean.db');
  const env = { ...process.env, ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
  const p = new Pipeline(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--', NODE, AGENT], { env });
  const ok = (await roundTrip(p, initializeRequest(1), initializeResult(1))) !== null
    && (await roundTrip(p, newSessionRequest(2), newSessionResult(2))) !== null;
  const exp = expectedFlood(3, size, count);
  const got = p.expect(exp.len);
  p.send(promptRequest(3, `flood ${size} ${count}`));
  const r = await got;
  const ex = await p.close(300_000);
  if (!ok || r.hash !== exp.hash || ex.code !== 0) {
    problem('clean indexing: the flood failed');
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return dir;
}

/**
 * Indexing a flood's log measured as the floors are: a copy of what makeCleanLog left, the page cache
 * written back, then `acp-inspect index`. ms from its start to the last frame's row and to its exit,
 * or null.
 */
async function cleanIndexing(tmp, logDir) {
  const dir = join(tmp, 'clean');
  rmSync(dir, { recursive: true, force: true });
  cpSync(logDir, dir, { recursive: true });
  const db = join(dir, 'clean.db');
  try {
    const env = { ...process.env, ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
    spawnSync('sync');
    const t0 = performance.now();
    const ix = spawn(NODE, [BIN, 'index', '--db', db], { stdio: 'ignore', env });
    const exited = new Promise((res) => ix.on('exit', (code) => res({ code, t: performance.now() })));
    const stored = await lastRowStored(db, 3);
    const e = await exited;
    if (stored === null || e.code !== 0) {
      problem(`clean indexing: ${stored === null ? 'the last frame was never stored' : `index exited ${e.code}`}`);
      return null;
    }
    return { lastMs: stored - t0, exitMs: e.t - t0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- exit with the agent -----------------------------------------------------------------------

/**
 * What a store takes on its disk now (bytes): the database, SQLite's log and the capture logs, and
 * SQLite's log alone. Sampled through a flood and its indexing, beside the tap's footprint. Blocks
 * allocated, not sizes: the indexed part of a capture log is given back as it is indexed (a hole in
 * the file: see recorder/log-freer.ts), its size unchanged.
 */
function diskUse(db) {
  const size = (f) => { try { return statSync(f).blocks * 512; } catch { return 0; } };
  let captures = 0;
  try { for (const f of readdirSync(`${db}-captures`)) captures += size(join(`${db}-captures`, f)); } catch { /* none */ }
  const wal = size(`${db}-wal`);
  const main = size(db);
  return { sum: main + wal + captures, wal, db: main, captures };
}

/**
 * Polls until the latest recording of `db` is no longer running; ms waited, or null after `ms`. It
 * reads the status alone: counting the rows every 50 ms (a scan of them all, hundreds of ms at the
 * end of a flood) kept a reader in SQLite's log nearly all the time, which then could never start
 * over, and grew past 330 MiB for a 256 MiB flood (what a user's long `export` during indexing does
 * for its own length; not what watching a recording does).
 */
async function finished(db, ms = 600_000) {
  const { default: Database } = await import('better-sqlite3');
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    try {
      const d = new Database(db, { readonly: true, fileMustExist: true });
      try {
        const rec = d.prepare(`SELECT status FROM recordings ORDER BY id DESC LIMIT 1`).get();
        if (rec && rec.status !== 'running') return performance.now() - t0;
      } finally {
        d.close();
      }
    } catch { /* not there yet */ }
    await sleep(50);
  }
  return null;
}

/**
 * The tap's exit: after a flood of `exitFrames` frames the client closes stdin, or sends SIGTERM
 * (what editors do), and the time to the tap's exit is measured, then the time until the recording
 * is complete; and SIGKILL in the middle of such a flood: how many frames the client had, and how
 * many of them a plain `export` shows afterwards.
 */
async function benchExit(o, tmp, results) {
  const n = o.exitFrames;
  log(`## Exit with the agent: a ${n}-frame flood of 1 KiB frames, then the client closes stdin, or sends SIGTERM, at the flood's end or 1 s after the tap stored its last row; SIGKILL in the middle of one`);
  results.exit = {};
  for (const [how, later] of [['stdin', false], ['SIGTERM', false], ['stdin', true], ['SIGTERM', true]]) {
    const key = later ? `${how} after catching up` : how;
    const db = join(tmp, `exit-${how}${later ? '-later' : ''}.db`);
    const p = new Pipeline(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--', NODE, AGENT]);
    const ok = (await roundTrip(p, initializeRequest(1), initializeResult(1))) !== null && (await roundTrip(p, newSessionRequest(2), newSessionResult(2))) !== null;
    const exp = expectedFlood(3, 1024, n);
    const got = p.expect(exp.len);
    let diskPeak = 0, walPeak = 0, atPeak = null;
    const diskPoll = setInterval(() => {
      const d = diskUse(db);
      if (d.sum > diskPeak) { diskPeak = d.sum; atPeak = d; }
      walPeak = Math.max(walPeak, d.wal);
    }, 50);
    p.send(promptRequest(3, `flood 1024 ${n}`));
    const r = await got;
    // Later: the tap is still alive when its recorder has stored the flood, and its session ends a
    // second after (when a tap used to copy SQLite's log into the database on the thread that
    // takes its signals: see checkpoint() in store-writer.ts).
    // Meanwhile: how long the tap's own recorder takes to store the flood, and its footprint then.
    let aliveMs = null, alivePeak = 0;
    if (later) {
      const poll = setInterval(() => { const f = footprint(p.pid); if (f) alivePeak = Math.max(alivePeak, f.sum); }, 50);
      const stored = await lastRowStored(db, 3);
      clearInterval(poll);
      if (stored !== null) {
        aliveMs = stored - r.t;
        await sleep(1000);
      }
    }
    const t = performance.now();
    if (how === 'stdin') p.stdin.end();
    else p.child.kill('SIGTERM');
    const ex = await p.exited;
    const exitMs = performance.now() - t;
    const doneMs = await finished(db);
    clearInterval(diskPoll);
    const rec = await countRecorded(db);
    if (!ok || r.hash !== exp.hash) problem(`exit (${key}): bytes altered`);
    const complete = rec.c2a + rec.a2c === 4 + 2 + n && rec.status === 'complete';
    if (!complete) problem(`exit (${key}): recording ${rec.status} with ${rec.c2a + rec.a2c} of ${6 + n} frames`);
    log(`  ${pad(how === 'stdin' ? 'stdin closed' : 'SIGTERM', 12)} ${later ? '(1 s after the last row) ' : ''}the tap exited ${fmt(exitMs, 0)} ms later (${ex.code ?? ex.signal}); the recording ${rec.status} with ${rec.c2a + rec.a2c}/${6 + n} frames ${doneMs === null ? 'never' : `${fmt((doneMs + exitMs) / 1000, 1)} s`} after`);
    if (aliveMs !== null) log(`    (the tap alive, its recorder stored the flood's last row ${fmt(aliveMs, 0)} ms after the flood's end: ${fmt((n + 1) / aliveMs, 1)}k frames/s; its footprint (RSS + tmpfs) peaked at ${fmt(alivePeak / 1024, 1)} MiB meanwhile)`);
    log(`    peak disk use through the flood and its indexing (capture logs + database + SQLite's log) ${fmt(diskPeak / 1048576, 0)} MiB, ${fmt(diskPeak / exp.len)}× the flood   (target ≤ 2.3×); SQLite's log at most ${fmt(walPeak / 1048576, 0)} MiB   (target ≤ 256)`);
    if (atPeak) log(`    at the peak: capture logs ${fmt(atPeak.captures / exp.len)}×, database ${fmt(atPeak.db / exp.len)}×, SQLite's log ${fmt(atPeak.wal / exp.len)}× the flood`);
    results.exit[key] = { diskPeakMiB: diskPeak / 1048576, diskPeakVsTraffic: diskPeak / exp.len, diskAtPeakMiB: atPeak && { captures: atPeak.captures / 1048576, db: atPeak.db / 1048576, wal: atPeak.wal / 1048576 }, walPeakMiB: walPeak / 1048576, frames: n, exitMs, completeMs: doneMs === null ? null : doneMs + exitMs, exit: ex, recorded: rec, aliveIndexMs: aliveMs, aliveIndexFramesPerSec: aliveMs === null ? null : (n + 1) / (aliveMs / 1000), alivePeakMiB: later ? alivePeak / 1024 : null };
    // The detached indexer the tap started (it removes the logs the tap left) goes first.
    await indexersGone(db, 20_000);
    for (const x of ['', '-wal', '-shm']) rmSync(db + x, { force: true });
    rmSync(`${db}-captures`, { recursive: true, force: true });
  }
  // SIGKILL in the middle: the client counts whole lines as they arrive.
  const db = join(tmp, 'exit-kill.db');
  const p = new Pipeline(NODE, [...TAP_NODE_ARGS, BIN, '--db', db, '--', NODE, AGENT]);
  await roundTrip(p, initializeRequest(1), initializeResult(1));
  await roundTrip(p, newSessionRequest(2), newSessionResult(2));
  let lines = 0;
  const seen = [];
  p.stdout.on('data', (c) => { for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++; seen.push([performance.now(), lines]); });
  p.send(promptRequest(3, `flood 1024 ${n}`));
  while (lines < Math.min(n / 2, 200_000)) await sleep(5);
  await sleep(500);
  const killAt = performance.now();
  const had = lines;
  const hadSecondBefore = seen.filter(([t]) => t <= killAt - 1000).pop()?.[1] ?? 0;
  p.child.kill('SIGKILL');
  await p.exited;
  // A plain `export` (it waits for the indexing it starts), its agent frames counted as they stream.
  const { a2c, status } = await new Promise((res) => {
    const ex = spawn(NODE, [BIN, 'export', 'latest', '--db', db], { stdio: ['ignore', 'pipe', 'ignore'] });
    let count = 0, head = '', rest = '';
    ex.stdout.setEncoding('utf8');
    ex.stdout.on('data', (c) => {
      const parts = (rest + c).split('\n');
      rest = parts.pop();
      for (const l of parts) {
        if (!head) head = l;
        else if (l.includes('"dir":"a2c"')) count++;
      }
    });
    ex.on('close', () => res({ a2c: count, status: head ? JSON.parse(head).status : 'none' }));
  });
  // The agent's frames the client had: its two answers and the flood's; none of them may be missing.
  const lost = Math.max(0, had - a2c);
  if (lost > 0) problem(`exit (SIGKILL): the client had ${had} frames, export shows ${a2c}`);
  log(`  SIGKILL     the client had ${had} frames (${hadSecondBefore} a second before); a plain export shows ${a2c} (${status}): ${lost} lost, a loss window of ${lost === 0 ? '0 s' : 'more than 0 s'}`);
  results.exit.kill = { had, hadSecondBefore, exported: a2c, status, lost };
}

// ---- check speed -------------------------------------------------------------------------------

/** A recording of `n` frames of about 1 KiB: a session whose prompts each stream a few hundred updates. */
function writeBigTranscript(file, n, size = 1024) {
  return writeFloodTranscript(file, n, { size, perTurn: 500 });
}

/** The lines of a file too large for one string, read in 8 MiB slices. */
function* fileLines(file) {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(8 * 1024 * 1024);
    let rest = '';
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const parts = (rest + buf.toString('utf8', 0, n)).split('\n');
      rest = parts.pop();
      for (const l of parts) if (l) yield l;
    }
    if (rest) yield rest;
  } finally {
    closeSync(fd);
  }
}

/**
 * One `acp-inspect check FILE`: wall ms, CPU ms of all its threads (the checking thread included;
 * each thread's last reading), and its peak RSS (VmHWM, KiB), read from /proc while it runs.
 */
async function runCheckCli(file) {
  const t0 = performance.now();
  const p = spawn(NODE, [BIN, 'check', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += d; });
  let peakKiB = 0;
  const cpu = new Map();
  const sample = () => {
    const st = readStatus(p.pid);
    if (st && Number.isFinite(st.hwm)) peakKiB = Math.max(peakKiB, st.hwm);
    for (const th of threadTimes(p.pid)) cpu.set(th.tid, Math.max(cpu.get(th.tid) ?? 0, th.ms));
  };
  const poll = setInterval(sample, 20);
  const exit = await new Promise((res) => p.on('exit', (code, signal) => res(code ?? signal)));
  clearInterval(poll);
  const ms = performance.now() - t0;
  // The command's own thread (it reads the file) and the busiest other one (the checking thread, on
  // two threads): on a shared machine their CPU times say more than the wall clock.
  const mainMs = cpu.get(p.pid) ?? 0;
  const otherMs = Math.max(0, ...[...cpu].filter(([tid]) => tid !== p.pid).map(([, v]) => v));
  return { ms, exit, stderr, peakKiB, cpuMs: [...cpu.values()].reduce((a, b) => a + b, 0), mainMs, otherMs };
}

async function benchCheck(o, tmp, results) {
  log(`## check: ${o.checkFrames} frames of ~1 KiB`);
  const file = join(tmp, 'big.jsonl');
  const frames = writeBigTranscript(file, o.checkFrames);
  const fileMiB = statSync(file).size / 1048576;
  const out = { frames, fileMiB };
  // 1. The command, as a user runs it (a few times: wall clock is noisy on a shared machine; CPU time
  // and peak RSS, of the whole process with its checking thread, are less so).
  const runs = [];
  for (let i = 0; i < (o.quick ? 1 : 3); i++) runs.push(await runCheckCli(file));
  const r = [...runs].sort((a, b) => a.ms - b.ms)[runs.length >> 1];
  const peakMiB = Math.max(...runs.map((x) => x.peakKiB)) / 1024;
  const cliMs = r.ms;
  const firstErr = r.stderr.trim().split('\n')[0] ?? '';
  out.cli = { ms: cliMs, exit: r.exit, stderr: firstErr, framesPerSec: frames / (cliMs / 1000), cpuMs: r.cpuMs, mainMs: r.mainMs, otherMs: r.otherMs, peakMiB, runs: runs.map(({ ms, cpuMs, mainMs, otherMs, peakKiB, exit }) => ({ ms, cpuMs, mainMs, otherMs, peakMiB: peakKiB / 1024, exit })) };
  log(`  \`acp-inspect check\` on a ${fmt(fileMiB, 0)} MiB file: exit ${r.exit}, ${fmt(cliMs / 1000)} s = ${fmt(frames / (cliMs / 1000) / 1000, 0)}k frames/s (median of ${runs.length}; CPU ${fmt(r.cpuMs / 1000)} s), peak RSS ${fmt(peakMiB, 1)} MiB   (targets ≥ 400k frames/s, ≤ 100 MB)${firstErr ? `  [stderr: ${firstErr.slice(0, 160)}]` : ''}`);
  log(`  CPU by thread: reading (the command's own) ${fmt(r.mainMs / 1000)} s, checking ${fmt(r.otherMs / 1000)} s; the busier one bounds the wall clock: ${fmt(frames / (Math.max(r.mainMs, r.otherMs) / 1000) / 1000, 0)}k frames/s of its CPU`);
  if (runs.length > 1) log(`  runs: ${runs.map((x) => `${fmt(x.ms / 1000)} s, CPU ${fmt(x.cpuMs / 1000)} s (${fmt(x.mainMs / 1000)} + ${fmt(x.otherMs / 1000)}), ${fmt(x.peakKiB / 1024, 1)} MiB`).join('; ')}`);
  // 2. The checker's fold, in-process, streaming the same lines (parse, correlate, step).
  const dist = (p) => pathToFileURL(join(ROOT, 'dist', 'src', p)).href;
  let check;
  let makeFrame;
  let Correlator;
  try {
    check = await import(dist('check/index.js'));
    makeFrame = (await import(dist('wire/make-frame.js'))).frameFromText;
    Correlator = (await import(dist('wire/correlate.js'))).Correlator;
  } catch (e) {
    log(`  checker not importable from dist/ (${e.message}); run npm run build:engine`);
    results.check = out;
    return;
  }
  const pass = (withChecker) => {
    const corr = new Correlator();
    const c = withChecker ? check.createChecker() : null;
    let findings = 0;
    let seq = 0;
    const t = performance.now();
    for (const l of fileLines(file)) {
      if (l.startsWith('{"acpInspect"')) continue;
      const rec = JSON.parse(l);
      const f = makeFrame(++seq, rec.t, rec.dir, rec.raw);
      corr.observe(f);
      if (c) findings += c.step(f).length;
    }
    if (c) findings += c.end().length;
    return { ms: performance.now() - t, findings };
  };
  pass(false); // warm-up
  const base = pass(false);
  const full = pass(true);
  // The checker's share is a difference of two passes: under load the second can come out no slower.
  const stepMs = full.ms > base.ms ? full.ms - base.ms : null;
  out.inProcess = { parseMs: base.ms, parseAndCheckMs: full.ms, findings: full.findings, framesPerSec: frames / (full.ms / 1000), checkerOnlyFramesPerSec: stepMs === null ? null : frames / (stepMs / 1000) };
  out.rules = Array.isArray(check.RULES) ? check.RULES.length : null;
  log(`  in-process fold (transcript line → Frame → correlate → checker.step): ${fmt(frames / (full.ms / 1000) / 1000, 0)}k frames/s; checker.step alone ≈ ${stepMs === null ? '? (not measurable: the pass without it was no faster, the machine is busy)' : `${fmt(frames / (stepMs / 1000) / 1000, 0)}k frames/s`}; ${full.findings} findings; ${out.rules ?? '?'} rules   (target ≥ 200k frames/s)`);
  results.check = out;
  rmSync(file, { force: true });
}

// ---- compare of two recordings -----------------------------------------------------------------

/**
 * One run of a scripted coding session, as a transcript of about `n` frames: turns in which the agent
 * thinks, streams its answer, reads a file, asks permission and writes one, runs a command in a
 * terminal, and ends the turn; a new session every 400 turns. Run 'b' is the same scenario run again:
 * other session, tool call and terminal ids, another working directory, agent request ids counted
 * from elsewhere, other timestamps; and, here and there, a streamed text that differs, a tool update
 * it does not send, an extra chunk, and an answer streamed in other pieces. Returns the frame count.
 */
function writeRunTranscript(file, n, run) {
  const b = run === 'b';
  const fd = openSync(file, 'w');
  let buf = [];
  let bytes = 0;
  let t = b ? 3.5 : 1.25;
  let frames = 0;
  const put = (dir, obj) => {
    t += b ? 0.9 + (frames % 7) * 0.13 : 1 + (frames % 5) * 0.11;
    const s = `{"t":${t.toFixed(3)},"dir":"${dir}","raw":${JSON.stringify(JSON.stringify(obj))}}\n`;
    buf.push(s);
    bytes += s.length;
    frames++;
    if (bytes > 4 * 1024 * 1024) { writeSync(fd, buf.join('')); buf = []; bytes = 0; }
  };
  const cwd = b ? '/home/ci/work/run-8f2c/project' : '/home/dev/src/project';
  writeSync(fd, `${JSON.stringify({ acpInspect: 'recording', version: 1, name: `compare-${run}`, command: ['agent'], cwd })}\n`);
  const hex = (k, salt) => createHash('sha1').update(`${run}:${salt}:${k}`).digest('hex');
  let cid = 0;
  let aid = b ? 5000 : 0;
  const say = (text) => ({ content: { type: 'text', text } });
  const upd = (sessionId, update) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });
  put('c2a', { jsonrpc: '2.0', id: ++cid, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, clientInfo: { name: 'bench-editor', version: '1.0.0' } } });
  put('a2c', { jsonrpc: '2.0', id: cid, result: { protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { image: false } }, authMethods: [], agentInfo: { name: 'bench-agent', version: '2.1.0' } } });
  let sid = '';
  for (let turn = 0; frames < n; turn++) {
    if (turn % 400 === 0) {
      put('c2a', { jsonrpc: '2.0', id: ++cid, method: 'session/new', params: { cwd, mcpServers: [] } });
      sid = hex(turn, 'session');
      put('a2c', { jsonrpc: '2.0', id: cid, result: { sessionId: sid, modes: { currentModeId: 'code', availableModes: [{ id: 'code', name: 'Code' }, { id: 'ask', name: 'Ask' }] } } });
    }
    const pid = ++cid;
    const file = `${cwd}/src/module-${turn % 97}/file-${turn}.ts`;
    const tc = (k) => `toolu_${hex(`${turn}.${k}`, 'tool').slice(0, 24)}`;
    put('c2a', { jsonrpc: '2.0', id: pid, method: 'session/prompt', params: { sessionId: sid, prompt: [{ type: 'text', text: `Step ${turn}: refactor ${file.slice(cwd.length + 1)} and run its tests.` }] } });
    put('a2c', upd(sid, { sessionUpdate: 'agent_thought_chunk', ...say(`Looking at step ${turn}. The module probably needs its exports split; `) }));
    put('a2c', upd(sid, { sessionUpdate: 'agent_thought_chunk', ...say('first read the file, then edit it, then run the tests.') }));
    if (turn % 5 === 0) put('a2c', upd(sid, { sessionUpdate: 'plan', entries: [{ content: 'Read the file', priority: 'high', status: 'completed' }, { content: 'Edit it', priority: 'high', status: 'in_progress' }, { content: 'Run the tests', priority: 'medium', status: 'pending' }] }));
    // The answer, streamed: run b splits it otherwise every 307th turn.
    const answer = `I will refactor ${file} for step ${turn}. It exports ${turn % 13} functions; the ones used only here move to a private module, and the tests get a case for each.`;
    const cut = answer.indexOf(' for step');
    const cut2 = answer.indexOf(' the ones');
    const pieces = b && turn % 307 === 11 ? [answer.slice(0, cut2), answer.slice(cut2)] : [answer.slice(0, cut), answer.slice(cut, cut2), answer.slice(cut2)];
    for (const [i, text] of pieces.entries()) {
      put('a2c', upd(sid, { sessionUpdate: 'agent_message_chunk', ...say(b && turn % 97 === 41 && i === 1 ? text.toUpperCase() : text) }));
    }
    if (b && turn % 203 === 77) put('a2c', upd(sid, { sessionUpdate: 'agent_message_chunk', ...say(' (Also checking the lockfile.)') }));
    put('a2c', upd(sid, { sessionUpdate: 'tool_call', toolCallId: tc(1), title: `Read ${file}`, kind: 'read', status: 'pending', locations: [{ path: file }], rawInput: { path: file } }));
    put('a2c', { jsonrpc: '2.0', id: ++aid, method: 'fs/read_text_file', params: { sessionId: sid, path: file, limit: 400 } });
    put('c2a', { jsonrpc: '2.0', id: aid, result: { content: `export function f${turn}(x: number): number {\n  return x * ${turn % 17};\n}\n` } });
    if (!(b && turn % 151 === 30)) put('a2c', upd(sid, { sessionUpdate: 'tool_call_update', toolCallId: tc(1), status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `Read ${file} (3 lines)` } }] }));
    put('a2c', upd(sid, { sessionUpdate: 'tool_call', toolCallId: tc(2), title: `Edit ${file}`, kind: 'edit', status: 'pending', locations: [{ path: file, line: 1 }], rawInput: { path: file, old: `x * ${turn % 17}`, new: `x * ${turn % 17} + 1` } }));
    put('a2c', { jsonrpc: '2.0', id: ++aid, method: 'session/request_permission', params: { sessionId: sid, toolCall: { toolCallId: tc(2), title: `Edit ${file}`, kind: 'edit', status: 'pending' }, options: [{ optionId: 'allow-once', name: 'Allow', kind: 'allow_once' }, { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' }, { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' }] } });
    put('c2a', { jsonrpc: '2.0', id: aid, result: { outcome: { outcome: 'selected', optionId: 'allow-once' } } });
    put('a2c', { jsonrpc: '2.0', id: ++aid, method: 'fs/write_text_file', params: { sessionId: sid, path: file, content: `export function f${turn}(x: number): number {\n  return x * ${turn % 17} + 1;\n}\n` } });
    put('c2a', { jsonrpc: '2.0', id: aid, result: null });
    put('a2c', upd(sid, { sessionUpdate: 'tool_call_update', toolCallId: tc(2), status: 'completed', content: [{ type: 'diff', path: file, oldText: `x * ${turn % 17}`, newText: `x * ${turn % 17} + 1` }] }));
    put('a2c', upd(sid, { sessionUpdate: 'tool_call', toolCallId: tc(3), title: 'npm test', kind: 'execute', status: 'in_progress', rawInput: { command: 'npm', args: ['test', '--', `file-${turn}`] } }));
    put('a2c', { jsonrpc: '2.0', id: ++aid, method: 'terminal/create', params: { sessionId: sid, command: 'npm', args: ['test', '--', `file-${turn}`], cwd, outputByteLimit: 65536 } });
    const term = `term-${hex(turn, 'term').slice(0, 12)}`;
    put('c2a', { jsonrpc: '2.0', id: aid, result: { terminalId: term } });
    put('a2c', { jsonrpc: '2.0', id: ++aid, method: 'terminal/wait_for_exit', params: { sessionId: sid, terminalId: term } });
    put('c2a', { jsonrpc: '2.0', id: aid, result: { exitCode: 0, signal: null } });
    put('a2c', { jsonrpc: '2.0', id: ++aid, method: 'terminal/output', params: { sessionId: sid, terminalId: term } });
    const ms = b && turn % 10 === 3 ? 800 + (turn % 300) : 750 + (turn % 290);
    put('c2a', { jsonrpc: '2.0', id: aid, result: { output: `> test\n> vitest run file-${turn}\n\n ✓ src/module-${turn % 97}/file-${turn}.test.ts (${turn % 13 + 1} tests) ${ms}ms\n`, truncated: false, exitStatus: { exitCode: 0, signal: null } } });
    put('a2c', { jsonrpc: '2.0', id: ++aid, method: 'terminal/release', params: { sessionId: sid, terminalId: term } });
    put('c2a', { jsonrpc: '2.0', id: aid, result: null });
    put('a2c', upd(sid, { sessionUpdate: 'tool_call_update', toolCallId: tc(3), status: 'completed', content: [{ type: 'terminal', terminalId: term }] }));
    for (const text of ['The tests pass. ', `Step ${turn} is done: `, `${file} now exports what it should.`]) put('a2c', upd(sid, { sessionUpdate: 'agent_message_chunk', ...say(text) }));
    put('a2c', { jsonrpc: '2.0', id: pid, result: { stopReason: 'end_turn' } });
  }
  writeSync(fd, buf.join(''));
  closeSync(fd);
  return frames;
}

// ---- the UI on a large recording: its API and the page in a real browser ------------------------

/** Timeline filters a user types, the costly ones included (free text scans every frame's text). */
const UI_FILTERS = {
  'method:session/prompt': 'method:session/prompt',
  'negation -method:session/update': '-method:session/update',
  'session:sess-beta': 'session:sess-beta',
  'free text (rare) "slow path"': 'slow path',
  'free text (common) "module5"': 'module5',
  'negated text -parser': '-parser',
  'is:error': 'is:error',
  'has:finding': 'has:finding',
  'method + text': 'method:session/update tool_call_update',
};

/** The browser the UI tests use (Debian's chromium or ACP_INSPECT_CHROMIUM), or null. */
function findChromium() {
  const c = [process.env.ACP_INSPECT_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
  return c.find((p) => p && existsSync(p)) ?? null;
}

async function benchUi(o, tmp, results) {
  log(`## UI: a ${o.uiFrames}-frame recording in SQLite, its API and the page in chromium`);
  const dist = (p) => pathToFileURL(join(ROOT, 'dist', 'src', p)).href;
  if (!existsSync(join(ROOT, 'dist', 'src', 'server', 'index.js'))) {
    log('  the server (dist/src/server/index.js) does not exist yet: not measured');
    results.ui = { measured: false, reason: 'no server' };
    return;
  }
  const { buildUiRecording, describeUiRecording } = await import(pathToFileURL(join(ROOT, 'bench', 'ui-recording.js')).href);
  // BENCH_UI_DB: a database this bench built before (kept across runs while working on the UI).
  const keep = process.env.BENCH_UI_DB;
  const db = keep ?? join(tmp, 'ui.db');
  const built = keep && existsSync(keep) ? await describeUiRecording(ROOT, keep) : await buildUiRecording(ROOT, db, o.uiFrames);
  const id = built.id;
  log(`  built: ${built.items} items (${built.frames} frames, ${built.turns} turns, 2 sessions, ${built.findings} findings), ${fmt(statSync(db).size / 1048576, 0)} MiB; store writes ${fmt(built.ms.items / 1000, 1)} s + checker ${fmt(built.ms.check / 1000, 1)} s`);
  const server = await import(dist('server/index.js'));
  const tOpen = performance.now();
  const srv = await server.startServer({ dbPath: db, port: 0 });
  const base = new URL(srv.url).origin;
  const get = async (path) => {
    const t = performance.now();
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${srv.token}` } });
    const body = await res.text();
    return { ms: performance.now() - t, status: res.status, body };
  };
  const out = { measured: true, frames: o.uiFrames, items: built.items, build: built, samples: {}, browser: null };
  const api = `/api/recordings/${id}`;
  const expect = {};
  try {
    // 1. The API, as the page calls it: the recording, its first rows, rows far down, each filter, a position.
    await get('/api/recordings');
    await get(api);
    const first = await get(`${api}/items?q=&offset=0&limit=200`);
    out.firstRowsMs = performance.now() - tOpen;
    out.firstRowsStatus = first.status;
    log(`  API: server start → list → recording → first 200 rows: ${fmt(out.firstRowsMs, 0)} ms (HTTP ${first.status}, ${first.body.length} bytes)`);
    if (first.status !== 200) problem(`UI first rows: HTTP ${first.status}: ${first.body.slice(0, 120)}`);
    const probes = { 'rows far down (offset 90%)': `${api}/items?q=&offset=${Math.floor(built.items * 0.9)}&limit=200` };
    for (const [name, q] of Object.entries(UI_FILTERS)) probes[`filter ${name}`] = `${api}/items?q=${encodeURIComponent(q)}&offset=0&limit=200`;
    probes['position of a seq at 90%'] = `${api}/position?q=&seq=${Math.floor(built.items * 0.9)}`;
    for (const [name, path] of Object.entries(probes)) {
      const xs = [];
      let last;
      for (let i = 0; i < (o.quick ? 2 : 5); i++) {
        last = await get(path);
        xs.push(last.ms);
      }
      out.samples[name] = { path, status: last.status, first: xs[0], median: median(xs), bytes: last.body.length };
      let partial = '';
      if (name.startsWith('filter ') && last.status === 200) {
        // The exact count (a long filter answers `partial` first and is counted in the background).
        let page = JSON.parse(last.body);
        if (page.partial) partial = `, partial (${page.total} found so far)`;
        for (let k = 0; page.partial && k < 600; k++) {
          await sleep(100);
          page = JSON.parse((await get(path)).body);
        }
        expect[name.slice(7)] = { total: page.total, firstSeq: page.rows[0]?.seq ?? null };
      }
      log(`  API: ${pad(name, 40)} HTTP ${last.status}: first ${lpad(fmt(xs[0], 1), 7)} ms, median ${lpad(fmt(median(xs), 1), 7)} ms, ${last.body.length} bytes${partial}`);
      if (last.status !== 200) problem(`UI ${name}: HTTP ${last.status}`);
    }
  } finally {
    await srv.close?.();
  }
  // 2. The page in chromium, as a user drives it, on a server of its own (nothing cached by the probes above).
  const srv2 = await server.startServer({ dbPath: db, port: 0 });
  try {
    out.browser = await benchUiBrowser(o, srv2, id, built, expect);
  } finally {
    await srv2.close?.();
  }
  results.ui = out;
}

/** Compare as a user meets it: the served UI's request for two recordings, and `acp-inspect diff`. */
async function benchCompare(o, tmp, results) {
  const n = o.compareFrames;
  log(`## compare: two runs of one scenario, ${n} frames each`);
  const db = join(tmp, 'compare.db');
  const ids = [];
  for (const run of ['a', 'b']) {
    const file = join(tmp, `compare-${run}.jsonl`);
    writeRunTranscript(file, n, run);
    const imp = spawnSync(NODE, [BIN, 'import', '--db', db, file], { encoding: 'utf8', timeout: 300_000 });
    if (imp.status !== 0) {
      log(`  import failed (exit ${imp.status}): ${(imp.stderr ?? '').trim().split('\n')[0]}`);
      results.compare = { measured: false, reason: 'import failed' };
      return;
    }
    ids.push(Number(imp.stdout.trim()));
    rmSync(file, { force: true });
  }
  const [a, b] = ids;
  const out = { measured: true, frames: n, runs: o.compareRuns };
  // 1. The served UI. The Compare view asks for the totals and every row's status (`paged=1`), then the
  // first page of rows: timed until both are read. Beside it, the whole answer in one request (every
  // row with its previews and diffs), as the view asked before it paged.
  const server = await import(pathToFileURL(join(ROOT, 'dist', 'src', 'server', 'index.js')).href);
  const srv = await server.startServer({ dbPath: db, port: 0 });
  try {
    const origin = new URL(srv.url).origin;
    const fetchText = async (path) => {
      const res = await fetch(origin + path, { headers: { authorization: `Bearer ${srv.token}` } });
      return { status: res.status, body: await res.text() };
    };
    const timed = async (ask) => {
      const xs = [];
      const cpu = [];
      let last;
      for (let i = 0; i < o.compareRuns; i++) {
        const c0 = process.cpuUsage();
        const t = performance.now();
        last = await ask();
        xs.push(performance.now() - t);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
      }
      return { xs, cpu, ...last };
    };
    const view = await timed(async () => {
      const index = await fetchText(`/api/compare?a=${a}&b=${b}&paged=1`);
      if (index.status !== 200) return { status: index.status, body: index.body, bytes: index.body.length };
      const first = await fetchText(`/api/compare/rows?id=${JSON.parse(index.body).id}&offset=0&limit=200`);
      return { status: first.status === 200 ? 200 : first.status, body: index.body, bytes: index.body.length + first.body.length, firstRows: first.status === 200 ? JSON.parse(first.body).rows.length : 0 };
    });
    let vs = {};
    try {
      const j = JSON.parse(view.body);
      vs = { rows: j.total, changed: j.changed, missing: j.missing, extra: j.extra, matched: j.matched };
    } catch { /* reported by the status */ }
    out.view = { status: view.status, first: view.xs[0], median: median(view.xs), min: Math.min(...view.xs), cpuMedian: median(view.cpu), bytes: view.bytes, firstRows: view.firstRows, ...vs };
    log(`  the Compare view (GET /api/compare?paged=1, then its first 200 rows): HTTP ${view.status}, first ${fmt(view.xs[0], 0)} ms, median ${fmt(median(view.xs), 0)} ms (CPU ${fmt(median(view.cpu), 0)} ms), ${fmt(view.bytes / 1048576, 1)} MiB; ${vs.rows ?? '?'} rows: ${vs.changed ?? '?'} changed, ${vs.missing ?? '?'} missing, ${vs.extra ?? '?'} extra`);
    if (view.status !== 200) problem(`compare API (paged): HTTP ${view.status}: ${view.body.slice(0, 120)}`);
    const whole = await timed(() => fetchText(`/api/compare?a=${a}&b=${b}`));
    const { xs, cpu, status, body } = whole;
    let summary = {};
    try {
      const j = JSON.parse(body);
      summary = { rows: j.rows.length, changed: j.changed, missing: j.missing, extra: j.extra, matched: j.matched };
    } catch { /* reported by the status */ }
    out.api = { status, first: xs[0], median: median(xs), min: Math.min(...xs), cpuMedian: median(cpu), bytes: body.length, ...summary };
    log(`  GET /api/compare, the whole answer in one request: HTTP ${status}, first ${fmt(xs[0], 0)} ms, median ${fmt(median(xs), 0)} ms (CPU ${fmt(median(cpu), 0)} ms), ${fmt(body.length / 1048576, 1)} MiB; ${summary.rows ?? '?'} rows: ${summary.changed ?? '?'} changed, ${summary.missing ?? '?'} missing, ${summary.extra ?? '?'} extra`);
    if (status !== 200) problem(`compare API: HTTP ${status}: ${body.slice(0, 120)}`);
    if (vs.rows !== summary.rows || vs.changed !== summary.changed || vs.missing !== summary.missing || vs.extra !== summary.extra) problem('compare API: the paged answer and the whole one disagree');
  } finally {
    await srv.close?.();
  }
  // 2. The command, as a user runs it (a fresh process each time: start-up, loading both, aligning, printing).
  const ys = [];
  let r;
  for (let i = 0; i < o.compareRuns; i++) {
    const t = performance.now();
    r = spawnSync(NODE, [BIN, 'diff', '--db', db, String(a), String(b)], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 300_000 });
    ys.push(performance.now() - t);
  }
  const last = (r.stdout ?? '').trimEnd().split('\n').pop() ?? '';
  out.cli = { exit: r.status, first: ys[0], median: median(ys), min: Math.min(...ys), lines: (r.stdout ?? '').split('\n').length, summary: last };
  log(`  \`acp-inspect diff\`: exit ${r.status}, first ${fmt(ys[0], 0)} ms, median ${fmt(median(ys), 0)} ms; ${last}`);
  if (r.status !== 1) problem(`acp-inspect diff of two different runs exited ${r.status}: ${(r.stderr ?? '').trim().split('\n')[0]}`);
  log('  (target ≤ 1000 ms, median)');
  results.compare = out;
}

/**
 * Times the page in chromium: opening the recording until its first rows show, each filter from Enter
 * until the list shows its rows (and until it is counted), going to a seq (`#SEQ` in the filter box)
 * until that row shows selected, a jump from a finding's link in the Findings view, and a link that
 * opens the recording at a seq (`?rec=ID&sel=SEQ`).
 */
async function benchUiBrowser(o, srv, id, built, expect) {
  const exe = findChromium();
  if (!exe) {
    log('  browser: no chromium found (install Debian\'s chromium or set ACP_INSPECT_CHROMIUM): not measured');
    return { measured: false, reason: 'no chromium' };
  }
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (e) {
    log(`  browser: playwright-core is not installed (${e.message}): not measured`);
    return { measured: false, reason: 'no playwright-core' };
  }
  const browser = await chromium.launch({ executablePath: exe, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'] });
  const out = { measured: true, openMs: [], filters: {}, goTo: null, jump: null, openAtSeq: null };
  const reps = o.quick ? 1 : 3;
  try {
    // bypassCSP: the timing probes below build their conditions from text (new Function), which the page's CSP forbids.
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 860 }, bypassCSP: true });
    const page = await ctx.newPage();
    const origin = new URL(srv.url).origin;
    await page.goto(srv.url); // sets the session cookie
    await page.waitForSelector('table, .empty, main', { timeout: 30_000 }).catch(() => undefined);
    // Opening the recording (a fresh page load each time) until its first row is on screen.
    // Times are taken in the page (performance.now()): from the navigation's start, or from the
    // user's Enter or click (a capturing listener), to the frame where the row is on screen; the
    // driver's own round trips are not counted.
    const mark = () => page.evaluate(() => {
      if (window.__benchMarks) return;
      window.__benchMarks = true;
      document.addEventListener('keydown', (e) => { if (e.key === 'Enter') window.__t0 = performance.now(); }, true);
      document.addEventListener('click', () => { window.__t0 = performance.now(); }, true);
    });
    // The probe checks its condition on every change of the page's DOM (a MutationObserver: polling
    // by animation frames is throttled in a headless page) and answers the time it first held.
    const since = (cond, arg, fromNavigation = false) => page.evaluate(({ cond, arg, fromNavigation }) => new Promise((resolve, reject) => {
      // eslint-disable-next-line no-new-func
      const ok = new Function('arg', cond);
      let mo = null;
      const timer = setTimeout(() => { mo?.disconnect(); reject(new Error(`timed out waiting for ${JSON.stringify(arg)}`)); }, 60_000);
      const check = () => {
        if (!ok(arg)) return false;
        mo?.disconnect();
        clearTimeout(timer);
        resolve(performance.now() - (fromNavigation ? 0 : window.__t0));
        return true;
      };
      if (check()) return;
      mo = new MutationObserver(check);
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    }), { cond: cond.toString().replace(/^[^{]*\{/, '').replace(/\}$/, ''), arg, fromNavigation });
    const rowVisible = (arg) => {
      const r = document.querySelector(`.scroller .row[data-seq="${arg.seq}"]${arg.selected ? '[aria-selected="true"]' : ''}`);
      return !!r && r.getBoundingClientRect().height > 0;
    };
    for (let i = 0; i < reps; i++) {
      await page.goto(`${origin}/?rec=${id}`, { waitUntil: 'commit' });
      out.openMs.push(await since(rowVisible, { seq: 1 }, true));
    }
    log(`  browser: open the recording → first rows shown: ${out.openMs.map((x) => fmt(x, 0)).join(', ')} ms   (target ≤ 1000 ms)`);
    // Each filter: typed into the filter box, Enter, until the list says how many match and shows the first.
    const input = page.locator('input[type=search]').first();
    // Rows shown: the list is the filter's (data-q) and its first match is on screen; counted: the
    // list says how many match (a free-text filter over a long recording shows rows before it is counted).
    const listOf = (arg) => {
      const sc = document.querySelector('.scroller');
      if (!sc || sc.getAttribute('data-q') !== arg.q) return false;
      if (arg.firstSeq === null) return !!sc.querySelector('.empty');
      const r = sc.querySelector(`.row[data-seq="${arg.firstSeq}"]`);
      return !!r && r.getBoundingClientRect().height > 0;
    };
    const countOf = (arg) => {
      const l = document.querySelector('.scroller')?.getAttribute('aria-label') ?? '';
      return l.startsWith(`Timeline, ${arg.total} items`) && !l.includes('still filtering');
    };
    const shows = (q, firstSeq) => since(listOf, { q, firstSeq });
    const counted = (total) => since(countOf, { total });
    await mark();
    for (const [name, q] of Object.entries(UI_FILTERS)) {
      const e = expect[name];
      if (!e) continue;
      const xs = [];
      const cs = [];
      for (let i = 0; i < reps; i++) {
        await input.fill(q);
        const rowsShown = shows(q, e.firstSeq);
        const allCounted = counted(e.total);
        await input.press('Enter');
        xs.push(await rowsShown);
        cs.push(await allCounted);
        await input.fill('');
        await input.press('Enter');
        await shows('', 1);
        await counted(built.items);
      }
      out.filters[name] = { q, total: e.total, ms: xs, first: xs[0], median: median(xs), countedMs: cs };
      log(`  browser: filter ${pad(name, 34)} Enter → rows shown: ${xs.map((x) => lpad(fmt(x, 0), 4)).join(', ')} ms; counted (${e.total} match): ${cs.map((x) => fmt(x, 0)).join(', ')} ms`);
    }
    // Go to a seq: `#SEQ` typed in the filter box, Enter, until that row is on screen and selected.
    const goXs = [];
    const goSeqs = [Math.floor(built.items * 0.97), Math.floor(built.items * 0.31), Math.floor(built.items * 0.64)];
    for (let i = 0; i < reps; i++) {
      const seq = goSeqs[i % goSeqs.length];
      await input.fill(`#${seq}`);
      const shown = since(rowVisible, { seq, selected: true });
      await input.press('Enter');
      goXs.push(await shown);
    }
    out.goTo = { seqs: goSeqs.slice(0, reps), ms: goXs, median: median(goXs), first: goXs[0] };
    log(`  browser: go to a seq (#SEQ, Enter in the filter box) → row shown selected: ${goXs.map((x) => fmt(x, 0)).join(', ')} ms   (target ≤ 200 ms)`);
    // A jump: the Findings view lists every finding; clicking the last one's seq opens the timeline there.
    const jumpXs = [];
    let jumpSeq = null;
    for (let i = 0; i < reps; i++) {
      await page.goto(`${origin}/?rec=${id}&view=findings`);
      const links = page.locator('.finding-list button.link');
      await links.first().waitFor({ timeout: 60_000 });
      const link = links.nth(i % 2 === 0 ? (await links.count()) - 1 : Math.floor((await links.count()) / 2));
      jumpSeq = Number((await link.textContent()).replace('#', ''));
      await mark();
      const shown = since(rowVisible, { seq: jumpSeq, selected: true });
      await link.click();
      jumpXs.push(await shown);
    }
    out.jump = { seq: jumpSeq, ms: jumpXs, median: median(jumpXs), first: jumpXs[0] };
    log(`  browser: jump from the Findings view (a finding's #seq link, far down) → timeline shown, row selected: ${jumpXs.map((x) => fmt(x, 0)).join(', ')} ms`);
    // A link to one item (as Compare and shared URLs make): a page load that opens the recording there.
    const atXs = [];
    const atSeq = Math.floor(built.items * 0.9);
    for (let i = 0; i < reps; i++) {
      await page.goto(`${origin}/?rec=${id}&sel=${atSeq + i}`, { waitUntil: 'commit' });
      atXs.push(await since(rowVisible, { seq: atSeq + i, selected: true }, true));
    }
    out.openAtSeq = { seq: atSeq, ms: atXs, median: median(atXs) };
    log(`  browser: open a link to #${atSeq} (?rec=${id}&sel=${atSeq}) → row shown selected: ${atXs.map((x) => fmt(x, 0)).join(', ')} ms`);
    await ctx.close();
  } catch (e) {
    problem(`UI in chromium: ${e.message.split('\n')[0]}`);
    out.error = e.message.split('\n')[0];
  } finally {
    await browser.close();
  }
  return out;
}

/** The issue's targets against what was measured (only those measured in this run). */
function targets(r) {
  const out = [];
  const add = (what, value, ok) => out.push({ what, value, ok });
  for (const f of [r.flood, r.floodPipe]) {
    if (!f) continue;
    const t = f.ratios.tap;
    const on = f.client === 'pipe' ? ' (client on pipes)' : '';
    const within = (x) => (x ? ` (within rounds: median ${fmt(x.median)}, ${fmt(x.min)}–${fmt(x.max)})` : '');
    const best = t.bestRoundVsRelay ? `; best rounds ${fmt(t.bestRoundVsRelay[1024])}, forwarding CPU/GiB ${fmt(t.forwardCpuVsRelay[1024])}×` : '';
    add(`throughput tap/relay at 1 KiB ≥ 0.85${on}`, `${fmt(t.throughputVsRelay[1024])}${within(t.paired?.throughputVsRelay[1024])}${best}`, t.throughputVsRelay[1024] >= 0.85);
    // Issue 28's anchor: a recorder that keeps every byte on the database's disk within 1 s does at
    // least the work of a plain `tee` into a file, whose own throughput against the `cat` relay this
    // machine's page cache sets (see docs/performance.md).
    if (t.throughputVsTee) add(`throughput tap/tee relay at 1 KiB ≥ 1.0 (better than a plain tee to a file)${on}`, `${fmt(t.throughputVsTee[1024])}; forwarding CPU/GiB ${fmt(t.forwardCpuVsTee[1024])}× tee's; tee itself reaches ${fmt(f.table['tee relay'].throughput[1024] / f.table['cat relay'].throughput[1024])} of the cat relay`, t.throughputVsTee[1024] >= 1.0);
    // The recorder leaves a burst alone until it is over (the bytes are safe in the capture log): its
    // CPU while the flood arrives stays a small part of what the forwarding costs.
    const rec = f.cpuPerGiB?.tap?.[1024];
    if (rec) add(`recorder CPU while a 1 KiB flood arrives ≤ 0.25× the forwarding's (indexing waits for a burst to end)${on}`, `${fmt(rec.workerFlood, 0)} ms/GiB against ${fmt(rec.main, 0)}`, rec.workerFlood <= 0.25 * rec.main);
    const minBare = Math.min(...Object.values(t.throughputVsBare));
    add(`throughput tap/bare node ≥ 0.9 (every frame size)${on}`, Object.entries(t.throughputVsBare).map(([s, x]) => `${sizeName(Number(s))} ${fmt(x)}`).join(', '), minBare >= 0.9);
    add(`p50 round trip tap/relay ≤ 1.3${on}`, `${fmt(t.rttP50VsRelay)}${within(t.paired?.rttP50VsRelay)}`, t.rttP50VsRelay <= 1.3);
  }
  if (r.startup) add('start-up tap/bare node ≤ 1.2', `${fmt(r.startup.ratio)} (paired launches: median ${fmt(r.startup.pairedRatio.median)}, quartiles ${fmt(r.startup.pairedRatio.p25)}–${fmt(r.startup.pairedRatio.p75)})`, r.startup.ratio <= 1.2);
  if (r.idle) add(`idle tap RSS/bare node RSS ≤ 1.3 (agent connected, ${r.idle.idleMs / 1000} s idle)`, fmt(r.idle.ratio), r.idle.ratio <= 1.3);
  if (r.rss) {
    const all = r.rss.recorded.c2a + r.rss.recorded.a2c === r.rss.expectedFrames && !r.rss.recorded.gaps;
    add(`tap peak RSS through a ${r.rss.mb} MiB flood ≤ 100 MiB, nothing lost (issue 20)`, `${fmt(r.rss.peakMiB, 1)} MiB${all ? '' : ', frames lost'}`, r.rss.peakMiB <= 100 && all);
    const rate = r.rss.indexFramesPerSec;
    add('recorder indexing after a burst ≥ 150k frames/s, 1 KiB frames, checker on (issue 20)', rate === null ? 'never finished' : `${fmt(rate / 1000, 1)}k frames/s`, rate !== null && rate >= 150_000);
    // Issues 28 and 44: to the last row against SQLite writing as the indexer does, its log under the
    // same bound (issue 44 bounds the indexer's log; SQLite with no checkpoint until its close, the
    // floor of issue 28 when neither checkpointed, lets its log grow past 1 GiB: printed beside), and
    // end to end against the fastest of SQLite's ways. Like for like: the indexer from a clean page
    // cache, as the floors run (right after the flood, printed beside it, it also waits on the
    // flood's writeback).
    const vs = r.rss.cleanVsFloorBound ?? r.rss.indexVsFloorBound, e2e = r.rss.cleanVsBestEndToEnd ?? r.rss.indexVsBestEndToEnd;
    const unbounded = r.rss.cleanVsFloor ?? r.rss.indexVsFloor;
    if (vs !== null && vs !== undefined && e2e !== null) add(`indexing ≥ 0.9 of SQLite alone storing the same rows, its log under the same bound (issues 28, 44): to the last row (a checkpoint every ${fmt(r.rss.walBoundMiB, 0)} MiB of log, both), and end to end (the fastest SQLite), both from a clean page cache${r.rss.rounds > 1 ? `, medians of ${r.rss.rounds} rounds` : ''}`, `${fmt(vs)} and ${fmt(e2e)}; right after the flood ${fmt(r.rss.indexVsFloorBound)} and ${fmt(r.rss.indexVsBestEndToEnd)}; to the last row against SQLite with its log unbounded (no checkpoint until its close) ${fmt(unbounded)}, against SQLite checkpointing every 64 MiB ${fmt(r.rss.cleanVsFloor64 ?? r.rss.indexVsFloor64)}`, vs >= 0.9 && e2e >= 0.9);
  }
  if (r.exit) {
    const ends = Object.entries(r.exit).filter(([k]) => k !== 'kill');
    if (ends.length > 0) {
      const worst = Math.max(...ends.map(([, e]) => e.exitMs));
      add('the tap exits ≤ 200 ms after stdin closes or SIGTERM, with every frame recorded afterwards (issue 28)', ends.map(([k, e]) => `${k} ${fmt(e.exitMs, 0)} ms`).join(', '), worst <= 200 && ends.every(([, e]) => e.recorded.status === 'complete'));
    }
    // Issue 28: indexing whether or not the tap is alive. The tap alive, its own recorder indexes the
    // flood (after it, the tap's helper); measured in this section, against the floor measured in the rss one.
    const alive = ends.map(([, e]) => e).filter((e) => e.aliveIndexFramesPerSec);
    const floor = r.rss?.sqliteFloorBound, unbounded = r.rss?.sqliteFloor;
    if (alive.length > 0 && floor) {
      const rates = alive.map((e) => e.aliveIndexFramesPerSec / floor.rowsPerSec);
      add('indexing with the tap alive ≥ 0.9 of SQLite alone storing the same rows, its log under the same bound (issues 28, 44): to the last row', `${rates.map((x) => fmt(x)).join(', ')}${unbounded ? `; against SQLite with its log unbounded (no checkpoint until its close): ${alive.map((e) => fmt(e.aliveIndexFramesPerSec / unbounded.rowsPerSec)).join(', ')}` : ''}`, rates.every((x) => x >= 0.9));
    }
    if (alive.length > 0) {
      const peak = Math.max(...alive.map((e) => e.alivePeakMiB));
      add('tap footprint (RSS + tmpfs) ≤ 150 MiB while it indexes a flood, alive (issue 28)', `${fmt(peak, 1)} MiB`, peak <= 150);
    }
    if (r.exit.kill) add('SIGKILL loses nothing the client had a second before (issue 28)', `${r.exit.kill.lost} lost`, r.exit.kill.lost === 0);
  }
  if (r.check?.cli) {
    add(`check ≥ 400k frames/s (the command, end to end, ${r.check.frames} frames)`, `${fmt(r.check.cli.framesPerSec / 1000, 0)}k/s`, r.check.cli.exit === 0 && r.check.cli.framesPerSec >= 400_000);
    add(`check peak RSS ≤ 100 MB (${r.check.frames} frames)`, `${fmt(r.check.cli.peakMiB * 1.048576, 0)} MB (${fmt(r.check.cli.peakMiB, 1)} MiB)`, r.check.cli.peakMiB * 1.048576 <= 100);
  }
  if (r.ui?.measured) {
    const b = r.ui.browser;
    const n = `${Math.round(r.ui.items / 1000)}k`;
    if (b?.measured && b.openMs?.length) {
      add(`UI on ${n} items in chromium: first rows ≤ 1000 ms (open the recording, first load)`, `${fmt(b.openMs[0], 0)} ms`, b.openMs[0] <= 1000);
      const filt = Object.entries(b.filters ?? {});
      if (filt.length) {
        const [wn, wv] = filt.reduce((a, c) => (c[1].first > a[1].first ? c : a));
        add(`UI on ${n} items in chromium: worst filter ≤ 300 ms (first application, Enter → rows shown)`, `${fmt(wv.first, 0)} ms (${wn})`, wv.first <= 300);
      }
      if (b.goTo) add(`UI on ${n} items in chromium: jump to a seq ≤ 200 ms (median, #SEQ Enter → row shown selected)`, `${fmt(b.goTo.median, 0)} ms`, b.goTo.median <= 200);
    } else {
      add('UI first rows ≤ 1000 ms (API only: no browser)', `${fmt(r.ui.firstRowsMs, 0)} ms`, r.ui.firstRowsMs <= 1000);
      const filt = Object.entries(r.ui.samples).filter(([k]) => k.startsWith('filter'));
      const worst = Math.max(...filt.map(([, v]) => v.first));
      add('UI filter ≤ 300 ms (API only: first request, worst filter)', `${fmt(worst, 0)} ms`, worst <= 300);
    }
  }
  if (r.compare?.measured) {
    if (r.compare.view) add(`compare of two ${r.compare.frames}-frame recordings in the Compare view (totals, statuses, first rows) ≤ 1 s (median)`, `${fmt(r.compare.view.median, 0)} ms`, r.compare.view.status === 200 && r.compare.view.median <= 1000);
    add(`compare of two ${r.compare.frames}-frame recordings in the served UI ≤ 1 s (median)`, `${fmt(r.compare.api.median, 0)} ms`, r.compare.api.status === 200 && r.compare.api.median <= 1000);
    add(`\`acp-inspect diff\` of two ${r.compare.frames}-frame recordings ≤ 1 s (median)`, `${fmt(r.compare.cli.median, 0)} ms`, r.compare.cli.exit === 1 && r.compare.cli.median <= 1000);
  }
  if (r.big?.commands) {
    for (const c of Object.values(r.big.commands)) {
      add(`${c.what} on ${r.big.frames} 1 KiB frames: done, or refused in one line, within ${r.big.targetMiB} MiB (issue 32)`, `exit ${c.exit}, ${fmt(c.ms / 1000)} s, ${fmt(c.peakMiB, 0)} MiB`, c.peakMiB <= r.big.targetMiB && [0, 1, 2, 413].includes(c.exit) && !/heap|stack|Invalid string length/i.test(c.stderr));
      // A refusal reads nothing, a slice a part: only what read it all is held to the speed of reading the data once.
      if (c.exit === 0 && c.ratio !== undefined && !c.slice) add(`${c.what} on ${r.big.frames} 1 KiB frames: at the speed of reading the data once (issue 32: time ≤ 1× the ${c.floor} floor's)`, `${fmt(c.ratio, 2)}×`, c.ratio <= 1);
    }
    // The same commands on text that is not ASCII (issue 45): bounded, and within 2× ASCII's time.
    for (const [text, t] of Object.entries(r.big.texts ?? {})) {
      if (text === 'ascii') continue;
      for (const [name, c] of Object.entries(t.commands ?? {})) {
        const a = r.big.commands[name];
        const ratio = a && a.exit === 0 && c.exit === 0 ? c.ms / a.ms : undefined;
        add(`${c.what} on ${r.big.frames} 1 KiB frames of ${text} text: within ${r.big.targetMiB} MiB${ratio === undefined ? '' : ` and ${r.big.timeTarget}× its time on ASCII text`} (issue 45)`,
          `exit ${c.exit}, ${fmt(c.ms / 1000)} s${ratio === undefined ? '' : ` (${fmt(ratio, 2)}×)`}, ${fmt(c.peakMiB, 0)} MiB`,
          c.peakMiB <= r.big.targetMiB && String(c.exit) === String(a?.exit ?? c.exit) && (ratio === undefined || ratio <= r.big.timeTarget));
      }
    }
  }
  if (r.remote) {
    for (const row of r.remote.rows.filter((x) => !x.path.endsWith('direct'))) {
      add(`${row.path}: added p50 round trip ≤ 1 ms (issue 42)`, `${fmt(row.addedP50Ms)} ms (direct ${fmt(row.p50Ms - row.addedP50Ms)} ms)`, row.addedP50Ms <= 1);
      add(`${row.path}: throughput of 1 KiB updates ≥ 0.8 of direct, both warm (issue 42)`, `${fmt(row.throughputRatio)} (first turn ${fmt(row.coldThroughputRatio)})`, row.throughputRatio >= 0.8);
    }
    // Flat: what the process holds late in the long turn is what it held early in it (a leak or a queue would grow with the stream).
    for (const m of r.remote.memory) add(`${m.path}: RSS flat over a ${m.mib} MiB turn (peak in its last 10% ≤ 1.25× the peak in its first 10%) (issue 42)`, `${fmt(m.firstTenthPeakMiB, 1)} → ${fmt(m.lastTenthPeakMiB, 1)} MiB, peak ${fmt(m.peakMiB, 1)}`, m.lastTenthPeakMiB <= 1.25 * m.firstTenthPeakMiB);
  }
  return out;
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) fail('dist/ is missing; run `npm run build:engine` first (npm run bench does)');
  const tmp = mkdtempSync(join(tmpdir(), 'acp-inspect-bench-'));
  const cpu = /^model name\s*:\s*(.*)$/m.exec(existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '')?.[1] ?? cpus()[0]?.model ?? '?';
  const machine = { nproc: cpus().length, cpu, node: process.version, platform: `${process.platform} ${process.arch}` };
  log(`# acp-inspect bench${o.quick ? ' (quick)' : ''}: ${machine.nproc} CPUs, ${machine.cpu}, Node ${machine.node}, ${machine.platform}`);
  const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
  machine.loadAtStart = loadavg()[0];
  log(`# load average at start: ${load()} (other work on the machine makes every number noisier; the CPU-per-GiB figures are the least affected)`);
  const results = { machine, options: o };
  const want = (s) => !o.only || o.only.includes(s);
  const t0 = performance.now();
  try {
    if (want('flood')) {
      for (const client of o.clients) { await benchFlood(o, tmp, results, client); log(''); }
    }
    if (want('startup')) { await benchStartup(o, tmp, results); log(''); }
    if (want('idle')) { await benchIdle(o, tmp, results); log(''); }
    if (want('rss')) { await benchRss(o, tmp, results); log(''); }
    if (want('exit')) { await benchExit(o, tmp, results); log(''); }
    if (want('check')) { await benchCheck(o, tmp, results); log(''); }
    if (want('ui')) { await benchUi(o, tmp, results); log(''); }
    if (want('compare')) { await benchCompare(o, tmp, results); log(''); }
    if (want('big')) { results.big = await benchBigRecording({ frames: o.bigFrames, log }); log(''); }
    if (want('remote')) {
      log('## Remote agents (issue 42): the bridge and the proxy against the SDK\'s client and server directly');
      results.remote = await benchRemote({ rounds: o.remoteRounds, trips: o.remoteTrips, warmup: o.remoteWarmup, updates: o.remoteUpdates, rssMb: o.remoteRssMb, log, problem });
      log('');
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }
  const verdicts = targets(results);
  if (verdicts.length) {
    log('## Targets (issues 6, 20 and 42)');
    for (const v of verdicts) log(`  ${v.ok ? 'met   ' : 'MISSED'}  ${v.what}: ${v.value}`);
    results.targets = verdicts;
  }
  machine.loadAtEnd = loadavg()[0];
  log(`# load average at end: ${load()}`);
  results.problems = problems;
  results.seconds = (performance.now() - t0) / 1000;
  if (o.json) writeFileSync(o.json, JSON.stringify(results, null, 2));
  log(`done in ${fmt(results.seconds, 0)} s; ${problems.length ? `${problems.length} PROBLEM(S):\n  ${problems.join('\n  ')}` : 'every byte arrived unchanged and every frame was recorded'}`);
  process.exit(problems.length ? 1 : 0);
}

main().catch((e) => {
  process.stderr.write(`bench: ${e.stack ?? e}\n`);
  process.exit(2);
});
