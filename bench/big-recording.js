#!/usr/bin/env node
/**
 * The big-frame case (issue 32): one recording of a million 1 KiB `session/update` frames in one
 * prompt turn (about 1.1 GB as a transcript), and every command a user reaches for next run on it as
 * a separate process, each with its wall time and peak RSS. Called by scripts/bench.js (section
 * `big`); runs alone too:
 *
 *   node bench/big-recording.js [--frames N] [--dir DIR] [--bin BIN] [--only export,import,...] [--text ascii,multibyte,...] [--no-floors] [--json FILE]
 *
 * `--only` names commands (the keys of the result: import, checkFile, serveWaterfall, ...): a name
 * picks that command only, a name ending in `*` every command it begins (`export*`). `--no-floors`
 * skips the floors (below): on a 1 GiB recording of four kinds of text they take a quarter hour.
 *
 * It does so for each kind of chunk text (bench/frames.js's TEXT_KINDS: ASCII prose, multi-byte UTF-8,
 * text full of JSON escapes, and a mix), a recording of each, and ends with a table of every command's
 * time and peak RSS per kind beside ASCII's (issue 45: what an agent streams is not ASCII, and no
 * command may fall off a cliff on it). `--text` picks the kinds.
 *
 * `--dir` keeps the transcript and the database there (made once, reused when present: the
 * recording takes a minute to make); `--bin` measures another build of acp-inspect on the same files.
 * Each command's peak RSS is its process's (every thread) high-water mark: /usr/bin/time's where it
 * exists, else VmHWM read from /proc while the command runs.
 *
 * The issue asks each command to run at least at the speed of reading the data once. That speed is
 * measured first, as plainly as Node and SQLite do it (bench/big-floor.js, each a process of its own
 * like the commands): `scan`, one SQL scan of the recording's rows (the floor of what reads the store:
 * export, show, check ID, the download routes; `write`, the same scan writing each raw line to a
 * file, is shown beside it: an export writes as much); `read`, the transcript read and every line parsed by
 * JSON.parse (the floor of what reads the file: check FILE, export FILE); `read + insert`, that and
 * SQLite storing the same rows into a new database in one transaction (the floor of import). Each
 * command's line ends with its time divided by its floor's (a slice's ratio is below 1: it reads less),
 * and the same of CPU time (user + system, every thread), which other work on the machine disturbs less.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { closeSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { TEXT_KINDS, floodChunks, initializeRequest, initializeResult, newSessionRequest, newSessionResult, promptRequest, promptResult } from './frames.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = process.execPath;
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
/** What the issue asks of every command on a 1 GiB recording. */
export const RSS_TARGET_MIB = 300;
/** What issue 45 asks of every command on a text that is not ASCII: at most this many times its time on ASCII text. */
export const TEXT_TIME_TARGET = 2;

/**
 * Writes a transcript of `frames` frames: initialize, session/new, then prompt turns of
 * `perTurn` `session/update` frames of `size` bytes each (one turn of everything by default, the
 * shape of a session/load of a big history or a long flood). `newSession: false` leaves session/new
 * out, so every prompt and update is for a session never opened: a finding on each frame. `text`: the
 * kind of the updates' text (bench/frames.js's TEXT_KINDS). Returns the number of frames.
 */
export function writeFloodTranscript(file, frames, { size = 1024, perTurn = Infinity, newSession = true, text = 'ascii' } = {}) {
  const fd = openSync(file, 'w');
  let buf = [];
  let bytes = 0;
  let t = 0;
  const put = (dir, line) => {
    t += 0.01;
    const s = `{"t":${t.toFixed(2)},"dir":"${dir}","raw":${JSON.stringify(line.toString().trimEnd())}}\n`;
    buf.push(s);
    bytes += s.length;
    if (bytes > 4 * 1024 * 1024) {
      writeSync(fd, buf.join(''));
      buf = [];
      bytes = 0;
    }
  };
  writeSync(fd, `{"acpInspect":"recording","version":1,"name":"big-frames"}\n`);
  let id = 0;
  let n = 0;
  put('c2a', initializeRequest(++id)); put('a2c', initializeResult(id));
  n += 2;
  if (newSession) {
    put('c2a', newSessionRequest(++id)); put('a2c', newSessionResult(id));
    n += 2;
  }
  while (n < frames) {
    const pid = ++id;
    put('c2a', promptRequest(pid, 'go'));
    n++;
    const k = Math.min(perTurn, frames - n - 1);
    if (k > 0) {
      for (const c of floodChunks(size, k, size, text)) put('a2c', c);
      n += k;
    }
    put('a2c', promptResult(pid));
    n++;
  }
  writeSync(fd, buf.join(''));
  closeSync(fd);
  return n;
}

function readHwmKiB(pid) {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `bin args` as its own process: wall ms, CPU ms (user + system, every thread; null without
 * /usr/bin/time), peak RSS (MiB), exit status, the first line of
 * stderr, and what it wrote on stdout (its length; the text when `keep`).
 */
export function measure(bin, args, { input, keep = false, timeoutMs = 600_000, env } = {}) {
  return new Promise((res) => {
    const timeFile = TIME ? join(tmpdir(), `acp-inspect-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`) : null;
    const cmd = TIME ? TIME : NODE;
    const argv = TIME ? ['-f', '%M %U %S', '-o', timeFile, NODE, bin, ...args] : [bin, ...args];
    const t0 = performance.now();
    const p = spawn(cmd, argv, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    let outBytes = 0;
    let err = '';
    let hwm = 0;
    let cpuMs = null;
    p.stdout.on('data', (d) => { outBytes += d.length; if (keep) out += d; });
    p.stderr.on('data', (d) => { if (err.length < 65536) err += d; });
    if (input !== undefined) p.stdin.end(input);
    // Without /usr/bin/time: the high-water mark of the node process (time's child, or the process itself).
    const poll = TIME ? null : setInterval(() => { hwm = Math.max(hwm, readHwmKiB(p.pid)); }, 20);
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      const ms = performance.now() - t0;
      if (timeFile) {
        try {
          const [kib, user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
          if (Number.isFinite(kib)) hwm = kib;
          if (Number.isFinite(user + sys)) cpuMs = (user + sys) * 1000;
        } catch { /* killed before time wrote it */ }
        rmSync(timeFile, { force: true });
      }
      const lines = err.split('\n').filter((l) => l.trim() && !/^Command (exited|terminated)/.test(l));
      res({ ms, cpuMs, peakMiB: hwm / 1024, exit: code ?? signal, stderr: lines[0] ?? '', stderrLines: lines.length, outBytes, out });
    });
  });
}

/** An OTLP/HTTP collector that takes every POST and answers 200 (it counts what it got). */
async function startSink() {
  let bytes = 0;
  let posts = 0;
  const server = createServer((req, res) => {
    req.on('data', (d) => { bytes += d.length; });
    req.on('end', () => {
      posts++;
      res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, stats: () => ({ bytes, posts }), close: () => new Promise((r) => server.close(r)) };
}

/** CPU ms a running process has used so far (user + system, from /proc: clock ticks of 10 ms), or null. */
function readCpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/** Starts `serve` on the database; resolves with its URL (token included) and the process. */
function startServe(bin, db) {
  return new Promise((res, rej) => {
    const p = spawn(NODE, [bin, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/\S+)/.exec(out);
      if (m) res({ url: new URL(m[1]), p });
    });
    p.on('exit', (code) => rej(new Error(`serve exited (${code}) before printing its URL`)));
  });
}

/**
 * GETs `path` from a fresh `serve` (POSTs the file `upload` to it, when given), reading the answer to
 * its end: ms, bytes, status, the server's peak RSS and CPU (its start-up included).
 */
async function measureRoute(bin, db, path, { upload } = {}) {
  const { url, p } = await startServe(bin, db);
  const token = url.searchParams.get('token');
  const base = `${url.protocol}//${url.host}`;
  const t0 = performance.now();
  let status = 0;
  let bytes = 0;
  let first = '';
  try {
    const body = upload ? { method: 'POST', body: Readable.toWeb(createReadStream(upload)), duplex: 'half' } : {};
    const r = await fetch(`${base}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {}, ...body });
    status = r.status;
    const reader = r.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!first) first = Buffer.from(value.subarray(0, 300)).toString('utf8');
      bytes += value.length;
    }
  } catch (e) {
    first = String(e.message);
  }
  const ms = performance.now() - t0;
  const peakMiB = readHwmKiB(p.pid) / 1024;
  const cpuMs = readCpuMs(p.pid);
  p.kill('SIGTERM');
  await new Promise((r) => p.on('exit', r));
  // The HTTP status as an exit status: 200 is 0, a refusal keeps its status (413).
  return { ms, cpuMs, peakMiB, exit: status === 200 || status === 201 ? 0 : status, outBytes: bytes, stderr: status === 200 || status === 201 ? '' : first.split('\n')[0] };
}

/** One MCP session over stdio: initialize, then the tool calls; ends with stdin. */
function mcpInput(calls) {
  const msgs = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: c.name, arguments: c.args } })),
  ];
  return msgs.map((m) => JSON.stringify(m)).join('\n') + '\n';
}

/** Runs bench/big-floor.js `mode` on `args` as its own process (see the header). */
function floor(mode, ...args) {
  return measure(join(ROOT, 'bench', 'big-floor.js'), [mode, ...args], { keep: true });
}

/**
 * Which floor each command is compared with (the rest: `scan`); null: none (the runs on the
 * findings transcript, another file, and the upload of a part).
 */
const FLOOR_OF = { import: 'import', checkFile: 'read', exportFileSeq: 'read', diffFile: 'scan', checkFindingsJson: null, checkFindingsText: null, importFindings: null, checkFindingsId: null, serveImport: null };
const floorOf = (name) => (name in FLOOR_OF ? FLOOR_OF[name] : 'scan');
/** Commands that read a part of the recording through the indexes (the issue asks them to take under a second, not a whole read's time). */
const SLICES = new Set(['exportSeq', 'mcp', 'serveFixture']);

/** CPU seconds as a column (blank without /usr/bin/time). */
const cpu = (ms) => (ms === null || ms === undefined ? '' : `(cpu ${(ms / 1000).toFixed(1).padStart(5)} s)`);

const fmt = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '?' : x.toFixed(d));

/**
 * The floors, then the commands of the issue's table and the others it names, on each target's
 * `file` (the transcript) and `db` (recording `id` in it), and check and import on its `findings` (a
 * transcript with a finding on every frame), when given. The targets (one per kind of text) take
 * turns command by command, so that what else runs on the machine weighs on each alike. `want(name)`
 * picks the commands. Returns each target's commands and floors, by its `text`.
 */
export async function runBigCommands({ bin, dir, targets, id, want = () => true, floors: withFloors = true, log = console.log }) {
  const out = {};
  const floors = {};
  for (const tg of targets) {
    out[tg.text] = {};
    floors[tg.text] = {};
  }
  const many = targets.length > 1;
  const label = (what, tg) => (many ? `${what} [${tg.text}]` : what);
  const o = (name, tg) => join(dir, `out-${tg.text}-${name}`);
  const floorRow = async (name, what, run) => {
    if (!withFloors) return;
    for (const tg of targets) {
      const r = await run(tg);
      floors[tg.text][name] = { what, ms: r.ms, cpuMs: r.cpuMs, peakMiB: r.peakMiB, exit: r.exit, stdout: r.out.trim() };
      log(`  ${label(`floor: ${what}`, tg).padEnd(44)} exit ${String(r.exit).padEnd(3)} ${fmt(r.ms / 1000).padStart(7)} s ${cpu(r.cpuMs)}  ${fmt(r.peakMiB, 0).padStart(6)} MiB   [${r.exit === 0 ? r.out.trim() : r.stderr}]`);
    }
  };
  await floorRow('scan', 'one SQL scan of the rows', (tg) => floor('scan', tg.db, String(id)));
  await floorRow('write', 'the scan, each raw line written to a file', async (tg) => {
    const r = await floor('write', tg.db, String(id), o('floor.txt', tg));
    rmSync(o('floor.txt', tg), { force: true });
    return r;
  });
  await floorRow('read', 'read FILE, JSON.parse each line', (tg) => floor('read', tg.file));
  await floorRow('insert', 'SQLite INSERT … SELECT the rows', (tg) => floor('insert', tg.db, String(id)));
  for (const tg of targets) {
    const f = floors[tg.text];
    if (f.read && f.insert) f.import = { what: 'read + insert', ms: f.read.ms + f.insert.ms, cpuMs: f.read.cpuMs + f.insert.cpuMs };
  }
  const row = async (name, what, run, { when = () => true } = {}) => {
    if (!want(name)) return;
    for (const tg of targets) {
      if (!when(tg)) continue;
      const r = await run(tg);
      const fl = floorOf(name);
      const f = fl === null ? null : floors[tg.text][fl];
      const ratio = f ? r.ms / f.ms : undefined;
      const cpuRatio = !f || r.cpuMs === null || r.cpuMs === undefined || !f.cpuMs ? null : r.cpuMs / f.cpuMs;
      const w = typeof what === 'function' ? what(tg) : what;
      out[tg.text][name] = { what: w, ms: r.ms, cpuMs: r.cpuMs, peakMiB: r.peakMiB, exit: r.exit, outBytes: r.outBytes, stderr: r.stderr, floor: fl, ratio, cpuRatio, slice: SLICES.has(name) };
      const ok = r.peakMiB <= RSS_TARGET_MIB ? '' : '   OVER';
      log(`  ${label(w, tg).padEnd(44)} exit ${String(r.exit).padEnd(3)} ${fmt(r.ms / 1000).padStart(7)} s ${cpu(r.cpuMs)}  ${fmt(r.peakMiB, 0).padStart(6)} MiB  ${f ? `${fmt(ratio, 2).padStart(5)}× ${fl.padEnd(6)}` : ' '.repeat(13)}${cpuRatio === null ? '' : ` (cpu ${fmt(cpuRatio, 2)}×)`}${ok}${r.stderr ? `   [${r.stderr.slice(0, 150)}]` : ''}`);
    }
  };
  const cli = (args, opts) => measure(bin, args, opts);
  const mid = (tg) => Math.floor(tg.frames / 2);
  const turnSeq = 6;
  await row('export', `export ${id} -o f.jsonl`, (tg) => cli(['export', String(id), '--db', tg.db, '-o', o('export.jsonl', tg)]));
  await row('exportStdout', `export ${id} > f.jsonl (stdout)`, (tg) => cli(['export', String(id), '--db', tg.db]));
  await row('exportTurn', `export ${id} --turn ${turnSeq}`, (tg) => cli(['export', String(id), '--db', tg.db, '--turn', String(turnSeq), '-o', o('turn.jsonl', tg)]));
  await row('exportSeq', (tg) => `export ${id} --seq ${mid(tg)}-${mid(tg) + 999} (1,000 items)`, (tg) => cli(['export', String(id), '--db', tg.db, '--seq', `${mid(tg)}-${mid(tg) + 999}`, '-o', o('seq.jsonl', tg)]));
  await row('exportFileSeq', (tg) => `export FILE --seq ${mid(tg)}-${mid(tg) + 999}`, (tg) => cli(['export', tg.file, '--seq', `${mid(tg)}-${mid(tg) + 999}`, '-o', o('fseq.jsonl', tg)]));
  await row('exportHtml', `export ${id} --html`, (tg) => cli(['export', String(id), '--db', tg.db, '--html', '-o', o('report.html', tg)]));
  if (want('exportOtlp')) {
    const sink = await startSink();
    await row('exportOtlp', `export ${id} --otlp URL`, (tg) => cli(['export', String(id), '--db', tg.db, '--otlp', sink.url]));
    for (const tg of targets) if (out[tg.text].exportOtlp) out[tg.text].exportOtlp.collector = sink.stats();
    await sink.close();
  }
  await row('import', (tg) => `import f.jsonl (${fmt(statSync(tg.file).size / 1048576, 0)} MiB)`, (tg) => {
    const idb = join(dir, `import-${tg.text}.db`);
    for (const x of ['', '-wal', '-shm']) rmSync(idb + x, { force: true });
    return cli(['import', '--db', idb, tg.file]);
  });
  await row('checkFile', 'check f.jsonl', (tg) => cli(['check', tg.file]));
  await row('checkId', `check ${id} (stored)`, (tg) => cli(['check', String(id), '--db', tg.db]));
  // A finding on every frame (its session never opened): check and import hold none of them.
  const withFindings = { when: (tg) => !!tg.findings };
  const fdb = (tg) => join(dir, `findings-${tg.text}.db`);
  await row('checkFindingsJson', 'check g.jsonl --json (a finding a frame)', (tg) => cli(['check', tg.findings, '--json']), withFindings);
  await row('checkFindingsText', 'check g.jsonl (a finding a frame)', (tg) => cli(['check', tg.findings]), withFindings);
  await row('importFindings', 'import g.jsonl (a finding a frame)', (tg) => {
    for (const x of ['', '-wal', '-shm']) rmSync(fdb(tg) + x, { force: true });
    return cli(['import', '--db', fdb(tg), tg.findings]);
  }, withFindings);
  await row('checkFindingsId', 'check ID --json (a finding a frame, stored)', (tg) => cli(['check', '1', '--db', fdb(tg), '--json']), withFindings);
  for (const tg of targets) for (const x of ['', '-wal', '-shm']) rmSync(fdb(tg) + x, { force: true });
  await row('show', `show ${id}`, (tg) => cli(['show', String(id), '--db', tg.db]));
  await row('diffSame', `diff ${id} ${id}`, (tg) => cli(['diff', String(id), String(id), '--db', tg.db]));
  await row('diffFile', `diff ${id} f.jsonl`, (tg) => cli(['diff', String(id), tg.file, '--db', tg.db]));
  await row('replayAgent', `replay --as agent ${id}`, (tg) => cli(['replay', '--as', 'agent', String(id), '--db', tg.db], { input: '' }));
  await row('mcp', 'mcp: get_turn, list_frames, diff_recordings (file)', (tg) => cli(['mcp', '--db', tg.db], {
    input: mcpInput([
      { name: 'get_turn', args: { recording: id, seq: turnSeq } },
      { name: 'list_frames', args: { recording: id, cursor: String(mid(tg)) } },
      { name: 'diff_recordings', args: { a: id, b: tg.file, aSeq: `${mid(tg)}-${mid(tg) + 999}`, bSeq: `${mid(tg)}-${mid(tg) + 999}` } },
    ]),
  }));
  await row('serveExport', 'serve: GET /api/recordings/ID/export', (tg) => measureRoute(bin, tg.db, `/api/recordings/${id}/export`));
  await row('serveFixture', (tg) => `serve: GET …/fixture?seq=${mid(tg)}-${mid(tg) + 999}`, (tg) => measureRoute(bin, tg.db, `/api/recordings/${id}/fixture?seq=${mid(tg)}-${mid(tg) + 999}`));
  await row('serveHtml', 'serve: GET …/export?format=html', (tg) => measureRoute(bin, tg.db, `/api/recordings/${id}/export?format=html`));
  await row('serveWaterfall', 'serve: GET …/waterfall', (tg) => measureRoute(bin, tg.db, `/api/recordings/${id}/waterfall`));
  await row('serveInsights', 'serve: GET …/insights', (tg) => measureRoute(bin, tg.db, `/api/recordings/${id}/insights`));
  if (want('serveImport')) {
    // The upload limit is 256 MiB: a part of that size, exported first.
    const parts = new Map();
    for (const tg of targets) {
      const part = o('upload.jsonl', tg);
      const n = Math.min(tg.frames, 200_000);
      const made = await cli(['export', String(id), '--db', tg.db, '--seq', `1-${n}`, '-o', part]);
      if (made.exit === 0) parts.set(tg.text, part);
    }
    await row('serveImport', (tg) => `serve: POST /api/import (${fmt(statSync(parts.get(tg.text)).size / 1048576, 0)} MiB)`, (tg) => measureRoute(bin, tg.db, '/api/import', { upload: parts.get(tg.text) }), { when: (tg) => parts.has(tg.text) });
    for (const part of parts.values()) rmSync(part, { force: true });
  }
  for (const tg of targets) {
    for (const f of ['export.jsonl', 'turn.jsonl', 'seq.jsonl', 'fseq.jsonl', 'report.html']) rmSync(o(f, tg), { force: true });
    for (const x of ['', '-wal', '-shm']) rmSync(join(dir, `import-${tg.text}.db`) + x, { force: true });
  }
  const res = {};
  for (const tg of targets) res[tg.text] = { commands: out[tg.text], floors: floors[tg.text] };
  return res;
}

/**
 * The section as scripts/bench.js runs it: for each text kind (ASCII first), the recording made
 * (transcript, then imported), then every command on each kind in turn; then the table of the kinds
 * side by side. The result holds ASCII's commands as `commands` and every kind's in `texts`.
 */
export async function benchBigRecording({ frames = 1_000_000, dir, bin = join(ROOT, 'bin', 'acp-inspect.js'), only = null, texts = TEXT_KINDS, floors = true, log = console.log } = {}) {
  const keep = !!dir;
  dir ??= mkdtempSync(join(tmpdir(), 'acp-inspect-big-'));
  mkdirSync(dir, { recursive: true });
  const result = { frames, targetMiB: RSS_TARGET_MIB, timeTarget: TEXT_TIME_TARGET, commands: {}, texts: {} };
  try {
    log(`## big frames: ${frames} session/update frames of 1 KiB in one turn, text ${texts.join(', ')}, each command as its own process (target ≤ ${RSS_TARGET_MIB} MiB peak RSS${texts.length > 1 ? `, ≤ ${TEXT_TIME_TARGET}× ASCII's time` : ''})`);
    const want = (name) => !only || only.some((o) => (o.endsWith('*') ? name.startsWith(o.slice(0, -1)) : name === o));
    const targets = [];
    for (const text of texts) {
      // ASCII's files keep the names they had.
      const suffix = text === 'ascii' ? '' : `-${text}`;
      const tg = { text, file: join(dir, `big${suffix}.jsonl`), db: join(dir, `big${suffix}.db`), frames };
      if (!existsSync(tg.file)) {
        const t0 = performance.now();
        tg.frames = writeFloodTranscript(tg.file, frames, { text });
        log(`  made the ${text} transcript (${fmt(statSync(tg.file).size / 1048576, 0)} MiB) in ${fmt((performance.now() - t0) / 1000)} s`);
      }
      if (!existsSync(tg.db)) {
        const r = await measure(bin, ['import', '--db', tg.db, '--name', `big-frames-${text}`, tg.file], { keep: true });
        if (r.exit !== 0) {
          log(`  import of the ${text} transcript into its database failed (exit ${r.exit}): ${r.stderr}`);
          result.texts[text] = { error: r.stderr };
          if (text === 'ascii') result.error = r.stderr;
          continue;
        }
      }
      // The same number of frames, 256 bytes each, for a session never opened: a finding on each.
      const findings = join(dir, `findings${suffix}.jsonl`);
      if (['checkFindingsJson', 'checkFindingsText', 'importFindings', 'checkFindingsId'].some(want) && !existsSync(findings)) writeFloodTranscript(findings, frames, { size: 256, newSession: false, text });
      if (existsSync(findings)) tg.findings = findings;
      targets.push(tg);
    }
    const runs = await runBigCommands({ bin, dir, targets, id: 1, want, floors, log });
    for (const tg of targets) {
      result.texts[tg.text] = { ...runs[tg.text], fileMiB: statSync(tg.file).size / 1048576 };
      if (tg.text === 'ascii') Object.assign(result, { commands: runs.ascii.commands, floors: runs.ascii.floors, fileMiB: result.texts.ascii.fileMiB });
    }
    if (targets.length > 1) logTextTable(result.texts, log);
    return result;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every command's time and peak RSS per text kind, each beside ASCII's: its wall and CPU time over
 * ASCII's (the CPU time's ratio is the steadier on a busy machine), `!` past a target.
 */
function logTextTable(texts, log) {
  const kinds = Object.keys(texts);
  const ascii = texts.ascii?.commands ?? {};
  log(`## big frames by text kind: time, its ratio to ASCII's (wall/CPU), peak RSS (targets ≤ ${TEXT_TIME_TARGET}× and ≤ ${RSS_TARGET_MIB} MiB)`);
  log(`  ${'command'.padEnd(44)} ${kinds.map((k) => k.padStart(30)).join('')}`);
  const names = [...new Set(kinds.flatMap((k) => Object.keys(texts[k].commands ?? {})))];
  for (const name of names) {
    const cells = kinds.map((k) => {
      const c = texts[k].commands?.[name];
      if (!c) return ''.padStart(30);
      const base = ascii[name];
      const same = base && base.exit === 0 && c.exit === 0 && k !== 'ascii';
      const ratio = same ? c.ms / base.ms : undefined;
      const cpuRatio = same && c.cpuMs && base.cpuMs ? c.cpuMs / base.cpuMs : undefined;
      const over = c.peakMiB > RSS_TARGET_MIB || (ratio !== undefined && ratio > TEXT_TIME_TARGET) || String(c.exit) !== String(base?.exit ?? c.exit);
      const rel = ratio === undefined ? '' : ` ${fmt(ratio, 2)}/${fmt(cpuRatio, 2)}×`;
      return `${fmt(c.ms / 1000)} s${rel} ${fmt(c.peakMiB, 0)} MiB${over ? '!' : ''}${c.exit === 0 ? '' : ` e${c.exit}`}`.padStart(30);
    });
    log(`  ${(ascii[name]?.what ?? texts[kinds[0]].commands?.[name]?.what ?? name).slice(0, 44).padEnd(44)} ${cells.join('')}`);
  }
  log("  (! marks a cell over a target, or an exit status other than ASCII's)");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  const frames = Number(opt('--frames') ?? 1_000_000);
  const res = await benchBigRecording({ frames, dir: opt('--dir'), bin: opt('--bin') ? resolve(opt('--bin')) : undefined, only: opt('--only')?.split(',') ?? null, texts: opt('--text')?.split(',') ?? TEXT_KINDS, floors: !args.includes('--no-floors') });
  if (opt('--json')) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(opt('--json'), JSON.stringify(res, null, 2));
  }
}
