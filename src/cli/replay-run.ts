/**
 * `acp-inspect replay` behind the commander layer: validates flags into one-line errors, then runs
 * the mock agent on stdio (or, with --listen, as a remote agent) or the mock client against a spawned
 * agent, and sets the exit code.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { loadRecordingRef, type MemoryLimit } from '../source.js';
import { CliError } from '../errors.js';
import { IgnoreSet } from '../replay/json-diff.js';
import { type FaultPlan, parseDelay } from '../replay/faults.js';
import { serveMockAgent } from '../replay/agent-stdio.js';
import { runReplayClient } from '../replay/client-process.js';
import { recordedCwd } from '../replay/client-replayer.js';
import { renderDivergences, summarize } from '../replay/report.js';
import type { AgentReplayerOptions, AgentReplaySummary } from '../replay/agent-replayer.js';
import type { Recording } from '../transcript/format.js';
import { colorFor } from './color.js';
import { parseListen } from './commands/proxy.js';

/** The flags of `acp-inspect replay` as commander hands them over. */
export interface ReplayCliOptions {
  as?: string;
  db?: string;
  speed?: string;
  strict?: boolean;
  cwd?: string;
  ignore?: string[];
  record?: boolean;
  mergeChunks?: boolean;
  name?: string;
  timeout?: string;
  delay?: string[];
  drop?: string[];
  duplicate?: string[];
  errorFor?: string[];
  injectMalformed?: string;
  killAfter?: string;
  color?: boolean;
  listen?: string;
}

function count(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new CliError(`${name} must be a whole number ≥ 1, got "${v}"`, 2);
  return Number(v);
}

export function faultPlanFrom(opts: ReplayCliOptions): FaultPlan {
  const delay = (opts.delay ?? []).map((d) => {
    const p = parseDelay(d);
    if (!p) throw new CliError(`--delay needs METHOD=MS (e.g. session/update=500), got "${d}"`, 2);
    return p;
  });
  return {
    delay,
    drop: opts.drop ?? [],
    duplicate: opts.duplicate ?? [],
    errorFor: opts.errorFor ?? [],
    malformedAfter: count('--inject-malformed', opts.injectMalformed),
    killAfter: count('--kill-after', opts.killAfter),
  };
}

function parseSpeed(v: string | undefined): number {
  const s = Number(v ?? '0');
  if (v !== undefined && (!/^\d+(\.\d+)?$/.test(v) || !Number.isFinite(s))) {
    throw new CliError(`--speed must be 0 (instant), 1 (as recorded) or a positive factor, got "${v}"`, 2);
  }
  return s;
}

/**
 * What replay holds at most: the whole recording, parsed, with its matching state (a few times the
 * recorded bytes).
 */
export const REPLAY_LIMIT: MemoryLimit = {
  items: 100_000,
  bytes: 64 * 1024 * 1024,
  use: 'replay',
  fix: 'replay a part of it: acp-inspect export REF --turn SEQ (or --seq A-B) -o part.jsonl, then replay part.jsonl',
};

export async function runReplayCli(ref: string, agent: string[], opts: ReplayCliOptions): Promise<void> {
  const speed = parseSpeed(opts.speed);
  const faults = faultPlanFrom(opts);
  const ignore = new IgnoreSet(opts.ignore ?? []);
  if (opts.as === 'agent') {
    if (agent.length > 0) throw new CliError(`replay --as agent takes no agent command (got "${agent.join(' ')}"); did you mean --as client?`, 2);
    for (const [flag, v] of [['--cwd', opts.cwd], ['--record', opts.record]] as const) {
      if (v) throw new CliError(`${flag} only applies to replay --as client`, 2);
    }
    const listen = opts.listen === undefined ? undefined : parseListen(opts.listen);
    const { recording } = loadRecordingRef(ref, opts.db, { limit: REPLAY_LIMIT });
    const color = colorFor(process.stderr, opts);
    if (listen) return serveRemote(recording, listen, opts, { speed, strict: opts.strict, ignore, faults, color });
    const run = serveMockAgent(recording, {
      input: process.stdin,
      output: process.stdout,
      log: (t) => process.stderr.write(`${t}\n`),
    }, { speed, strict: opts.strict, ignore, faults, color });
    const stop = (): void => { process.stdin.destroy(); process.stdin.emit('end'); };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    // The client went away (EPIPE): end quietly instead of crashing.
    process.stdout.on('error', stop);
    const summary = await run.done;
    const diverged = summary.unmatched > 0 || summary.changed > 0 || summary.unused.length > 0;
    process.exitCode = diverged && opts.strict ? 1 : 0;
    // stdin may keep the loop alive after a signal.
    setImmediate(() => process.exit(process.exitCode ?? 0));
    return;
  }

  if (opts.listen !== undefined) throw new CliError('--listen only applies to replay --as agent', 2);
  if (agent.length === 0) throw new CliError('replay --as client needs the agent command after --, e.g. acp-inspect replay --as client latest -- node agent.js', 2);
  const timeoutMs = count('--timeout', opts.timeout) ?? 10_000;
  const { recording } = loadRecordingRef(ref, opts.db, { limit: REPLAY_LIMIT });
  let cwd: string | undefined;
  if (opts.cwd) {
    cwd = resolve(opts.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new CliError(`--cwd ${opts.cwd} is not a folder; create it or pick another`, 2);
  } else {
    const rc = recordedCwd(recording);
    cwd = rc && existsSync(rc) ? rc : process.cwd();
  }
  const rc = recordedCwd(recording);
  if (rc && rc !== cwd) process.stderr.write(`replay: mapping the recorded cwd ${rc} to ${cwd}\n`);
  const color = colorFor(process.stdout, opts);
  // The agent runs in `cwd` (the recorded folder, when it exists): relative paths the user typed in
  // the agent command are meant from here, so make the ones that name existing files absolute.
  const command = cwd === process.cwd() ? agent : agent.map((a) => (/^\.{0,2}\//.test(a) || (a.includes('/') && !isAbsolute(a))) && existsSync(a) ? resolve(a) : a);
  const run = await runReplayClient(recording, {
    command,
    cwd,
    ignore,
    timeoutMs,
    faults,
    strict: opts.strict,
    mergeChunks: opts.mergeChunks,
    log: (t) => process.stderr.write(`${t}\n`),
    agentStderr: (l) => process.stderr.write(`agent: ${l}\n`),
    record: opts.record ? { db: opts.db, name: opts.name } : undefined,
  });
  if (run.spawnError) throw new CliError(`${run.spawnError}; check the agent command after --`, 2);
  if (!run.items.some((i) => i.dir === 'a2c') && run.ended !== 'complete') {
    if (run.ended === 'timeout') throw new CliError(`the agent sent nothing within ${timeoutMs}ms; check that the command after -- is an ACP agent speaking on stdout (or raise --timeout)`, 2);
    throw new CliError(`the agent exited (${run.exitSignal ?? `code ${run.exitCode}`}) before sending anything; check the agent command after --`, 2);
  }
  const s = summarize(run.divergences);
  if (run.divergences.length > 0) {
    process.stdout.write(`${renderDivergences(run.divergences, { color, map: run.replayer.map, ignore, liveLabel: 'live', recordedLabel: 'recorded' })}\n`);
  }
  const verdict = run.equivalent ? 'equivalent' : 'diverged';
  process.stdout.write(`replay: ${verdict}: ${run.matched} agent frames matched; ${s.text}${run.ended !== 'complete' ? ` (ended: ${run.ended})` : ''}\n`);
  if (run.recordingId !== undefined) process.stdout.write(`replay: stored this run as recording ${run.recordingId}\n`);
  process.exitCode = run.equivalent ? 0 : 1;
}

/** Loaded through a variable: the SDK's server stays out of the start-up bundle (see tap/run.ts). */
const MOCK_REMOTE_AGENT = '../replay/agent-remote.js';

/**
 * `replay --as agent REF --listen HOST:PORT`: the recording as a mock remote agent until SIGINT or
 * SIGTERM; prints its URL on stdout. Exit 1 under --strict when a connection diverged.
 */
async function serveRemote(recording: Recording, listen: { host: string; port: number }, opts: ReplayCliOptions, replayOpts: AgentReplayerOptions): Promise<void> {
  const { serveMockRemoteAgent } = await (import(MOCK_REMOTE_AGENT) as Promise<typeof import('../replay/agent-remote.js')>);
  let agent: Awaited<ReturnType<typeof serveMockRemoteAgent>>;
  try {
    agent = await serveMockRemoteAgent(recording, listen, (t) => process.stderr.write(`${t}\n`), replayOpts);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the address is in use; choose another --listen port' : code === 'EACCES' ? 'permission denied; choose a port above 1023' : (e as Error).message;
    throw new CliError(`cannot listen on ${opts.listen}: ${why}`, 1);
  }
  process.stdout.write(`${agent.url}\n`);
  process.stderr.write(`acp-inspect: replaying as a remote agent at ${agent.url} (WebSocket: ${agent.url.replace(/^http/, 'ws')}); press Ctrl-C to stop\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const summaries = await Promise.race([agent.close(), new Promise<AgentReplaySummary[]>((r) => setTimeout(() => r([]), 5000).unref())]);
  const diverged = summaries.some((s) => s.unmatched > 0 || s.changed > 0 || s.unused.length > 0);
  process.exit(diverged && opts.strict ? 1 : 0);
}
