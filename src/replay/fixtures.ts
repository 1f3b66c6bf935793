/**
 * Fixtures for test suites: stand up a mock agent from a transcript (.jsonl) in-process, or drive a
 * real agent with a recorded client side, and assert that every recorded interaction was used.
 *
 * Record modes in the spirit of VCR: `none` only replays (the fixture must exist); `once` records
 * against the real agent when the fixture is missing; `all` always re-records. The environment
 * variable `ACP_INSPECT_RECORD=none|once|all` overrides the mode, so a suite's fixtures can be
 * refreshed with one flag.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { type Frame, type Item } from '../wire/frame.js';
import { frameFromText } from '../wire/make-frame.js';
import { Correlator } from '../wire/correlate.js';
import { LineSplitter } from '../wire/line-splitter.js';
import { serializeTranscript } from '../transcript/format.js';
import { readTranscriptFile } from '../source.js';
import { Aligner, describeFrame, type Divergence } from './aligner.js';
import type { AgentReplayer, AgentReplaySummary } from './agent-replayer.js';
import { serveMockAgent } from './agent-stdio.js';
import { runReplayClient } from './client-process.js';
import type { FaultPlan } from './faults.js';
import { IgnoreSet } from './json-diff.js';
import { renderDivergences, summarize } from './report.js';
import { makeDirs } from '../store/paths.js';

export type RecordMode = 'none' | 'once' | 'all';

export interface MockAgentOptions {
  /** Transcript file (.jsonl) to replay, or to write when recording. */
  fixture: string;
  /** Default `none`; `ACP_INSPECT_RECORD` overrides it. */
  mode?: RecordMode;
  /** The real agent command, needed to record (`once` with a missing fixture, `all`). */
  agent?: string[];
  /** Working directory of the real agent when recording. */
  cwd?: string;
  /** 0 = instant (default), 1 = as recorded, N = N times faster. */
  speed?: number;
  /**
   * Default `true`: a client request whose params differ from the recorded one (a changed prompt, a
   * new capability) is unmatched, answered with a JSON-RPC error, and named by `assertAllUsed()`
   * with a path-level diff. A fixture is a test oracle, so a change must fail the test; list paths
   * that may change in `ignore`, or pass `false` to only log the differences (`divergences()`).
   */
  strict?: boolean;
  ignore?: string[];
  faults?: FaultPlan;
  /** Diagnostics (default: collected in `log`, not printed). */
  onLog?: (text: string) => void;
}

export interface MockAgent {
  /** Write the client's frames here (the agent's stdin) — e.g. `ndJsonStream(mock.writable, mock.readable)`. */
  readonly writable: WritableStream<Uint8Array>;
  /** Read the agent's frames here (the agent's stdout). */
  readonly readable: ReadableStream<Uint8Array>;
  /** The same two ends as Node streams. */
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** True when this run records the real agent instead of replaying. */
  readonly recording: boolean;
  /** Diagnostics written so far (mismatch explanations, param diffs). */
  readonly log: string[];
  /** Recorded client frames the client has not sent (yet). Empty while recording. */
  unused(): Frame[];
  /** Live client frames that matched nothing, and matched ones whose params differ. */
  divergences(): Divergence[];
  /** Throws an Error listing every unused recorded client frame and every unmatched live frame. */
  assertAllUsed(): void;
  /** Ends the session: closes the streams; when recording, stops the agent and writes the fixture. */
  close(): Promise<AgentReplaySummary | undefined>;
}

/** The four ends a client connects to: web streams for the SDK's ndJsonStream, and the Node streams. */
function ends(stdin: PassThrough, stdout: PassThrough): Pick<MockAgent, 'writable' | 'readable' | 'stdin' | 'stdout'> {
  return {
    writable: Writable.toWeb(stdin) as WritableStream<Uint8Array>,
    readable: Readable.toWeb(stdout) as unknown as ReadableStream<Uint8Array>,
    stdin,
    stdout,
  };
}

/** The effective record mode: `ACP_INSPECT_RECORD` wins over the option. */
export function recordMode(mode: RecordMode | undefined): RecordMode {
  const env = process.env.ACP_INSPECT_RECORD;
  if (env === 'none' || env === 'once' || env === 'all') return env;
  return mode ?? 'none';
}

/** Stands up a mock agent (or records the real one, depending on the mode). */
export async function mockAgent(opts: MockAgentOptions): Promise<MockAgent> {
  const mode = recordMode(opts.mode);
  const exists = existsSync(opts.fixture);
  const record = mode === 'all' || (mode === 'once' && !exists);
  if (record) {
    if (!opts.agent?.length) throw new Error(`mockAgent: mode "${mode}" needs to record ${opts.fixture}, but no agent command was given (option agent)`);
    return recordAgent(opts, opts.agent);
  }
  if (!exists) {
    throw new Error(`mockAgent: fixture ${opts.fixture} does not exist; record it with mode "once" (or ACP_INSPECT_RECORD=once) and an agent command`);
  }
  const recording = readTranscriptFile(opts.fixture);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const log: string[] = [];
  const run = serveMockAgent(recording, {
    input: stdin,
    output: stdout,
    log: (t) => { log.push(t); opts.onLog?.(t); },
  }, { speed: opts.speed, strict: opts.strict ?? true, ignore: new IgnoreSet(opts.ignore ?? []), faults: opts.faults, patches: true });
  const replayer: AgentReplayer = run.replayer;
  let summary: AgentReplaySummary | undefined;
  return {
    ...ends(stdin, stdout),
    recording: false,
    log,
    unused: () => replayer.aligner.unconsumed('c2a').filter((f) => !Aligner.isNoise(f)),
    divergences: () => replayer.aligner.divergences.filter((d) => d.kind !== 'missing'),
    assertAllUsed() {
      const unused = replayer.aligner.unconsumed('c2a').filter((f) => !Aligner.isNoise(f));
      const extra = replayer.aligner.divergences.filter((d) => d.kind === 'extra');
      if (unused.length === 0 && extra.length === 0) return;
      const lines = [`mock agent ${opts.fixture}: ${unused.length} recorded client frame(s) unused, ${extra.length} live frame(s) unmatched`];
      for (const f of unused) lines.push(`  unused #${f.seq} ${describeFrame(f)}`);
      if (extra.length) lines.push(renderDivergences(extra, { patch: true }));
      throw new Error(lines.join('\n'));
    },
    async close() {
      if (!summary) {
        if (!stdin.writableEnded) stdin.end();
        summary = await run.done;
      }
      return summary;
    },
  };
}

/** Records the real agent into the fixture while the client talks to it through the same interface. */
function recordAgent(opts: MockAgentOptions, command: string[]): MockAgent {
  const [cmd, ...args] = command;
  const child: ChildProcess = spawn(cmd!, args, { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const t0 = performance.now();
  const items: Item[] = [];
  const corr = new Correlator();
  const log: string[] = [];
  const push = (dir: 'c2a' | 'a2c' | 'stderr', line: string): void => {
    const t = performance.now() - t0;
    if (dir === 'stderr') items.push({ seq: items.length + 1, t, dir, raw: line });
    else {
      const f = frameFromText(items.length + 1, t, dir, line);
      corr.observe(f);
      items.push(f);
    }
  };
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const inSplit = new LineSplitter();
  const outSplit = new LineSplitter();
  const errSplit = new LineSplitter();
  stdin.on('data', (c: Buffer) => {
    child.stdin!.write(c);
    for (const l of inSplit.push(c)) push('c2a', l.toString('utf8'));
  });
  stdin.on('end', () => child.stdin!.end());
  child.stdin!.on('error', () => {});
  child.stdout!.on('data', (c: Buffer) => {
    stdout.write(c);
    for (const l of outSplit.push(c)) push('a2c', l.toString('utf8'));
  });
  child.stderr!.on('data', (c: Buffer) => {
    for (const l of errSplit.push(c)) push('stderr', l.toString('utf8'));
  });
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => { stdout.end(); resolve(); });
    child.once('error', (e) => { log.push(`could not start ${cmd}: ${e.message}`); stdout.end(); resolve(); });
  });
  let closed = false;
  return {
    ...ends(stdin, stdout),
    recording: true,
    log,
    unused: () => [],
    divergences: () => [],
    assertAllUsed() { /* recording: nothing to check */ },
    async close() {
      if (closed) return undefined;
      closed = true;
      if (!stdin.writableEnded) stdin.end();
      const kill = setTimeout(() => child.kill('SIGTERM'), 500);
      await exited;
      clearTimeout(kill);
      makeDirs(dirname(opts.fixture));
      writeFileSync(opts.fixture, serializeTranscript({
        header: { acpInspect: 'recording', version: 1, name: 'fixture', command, cwd: opts.cwd ?? process.cwd(), startedAt: new Date().toISOString() },
        items,
      }));
      return undefined;
    },
  };
}

export interface ReplayClientOptions {
  /** Transcript file (.jsonl) whose client side is replayed. */
  fixture: string;
  /** The agent command to drive. */
  agent: string[];
  /** Working directory of the agent; the recorded cwd is mapped to it. */
  cwd?: string;
  ignore?: string[];
  timeoutMs?: number;
  faults?: FaultPlan;
  /** Compare streamed message chunks as whole messages. */
  mergeChunks?: boolean;
}

export interface ReplayClientResult {
  equivalent: boolean;
  divergences: Divergence[];
  /** The readable report (unified diffs), empty when equivalent. */
  report: string;
  /** `N changed, N missing, N extra`. */
  summary: string;
  /** What the agent wrote on stderr. */
  stderr: string[];
}

/** Drives a real agent with the client side of a fixture and compares what it sends. */
export async function replayClient(opts: ReplayClientOptions): Promise<ReplayClientResult> {
  const recording = readTranscriptFile(opts.fixture);
  const ignore = new IgnoreSet(opts.ignore ?? []);
  const stderr: string[] = [];
  const run = await runReplayClient(recording, {
    command: opts.agent, cwd: opts.cwd, ignore, timeoutMs: opts.timeoutMs, faults: opts.faults, mergeChunks: opts.mergeChunks,
    agentStderr: (l) => stderr.push(l),
  });
  if (run.spawnError) throw new Error(run.spawnError);
  return {
    equivalent: run.equivalent,
    divergences: run.divergences,
    report: run.divergences.length ? renderDivergences(run.divergences, { map: run.replayer.map, ignore }) : '',
    summary: summarize(run.divergences).text,
    stderr,
  };
}
