/**
 * terminal/* when the client advertised `terminal`: output truncated from the start at a character
 * boundary, output that answers at once while the command runs, wait_for_exit, kill (the id stays
 * valid) and release (the process ends and the id becomes invalid). The commands are small shell
 * one-liners (Node scripts where there is no /bin/sh), so they behave the same on every machine.
 * Every terminal a scenario creates is released before the scenario ends (or, if the scenario was cut
 * short, at the end of the battery).
 */
import { M } from '../../spec/methods.js';
import { type Answer, type ClientFacts, type ClientScenario, type Outcome, type ScenarioContext, CLIENT_QUOTES, clip, describeReply, fail, failAnswer, graded, isObject, pass } from './scenario.js';

const needTerminal = (c: ClientFacts): string | undefined => c.caps.terminal ? undefined : 'the client did not advertise terminal: the probe sent no terminal/*';

/** 2 ASCII bytes, 40 two-byte characters, then "Z": 83 bytes, so a 50-byte limit falls inside a character. */
export const LIMIT_OUTPUT = `ab${'é'.repeat(40)}Z`;
export const LIMIT_BYTES = 50;

/**
 * The commands the terminals run: /bin/sh one-liners where there is one (they start in a millisecond),
 * Node scripts run with the probe's own Node elsewhere. Each prints what the scenario checks.
 */
interface Command { command: string; args: string[] }
const SH = process.platform !== 'win32';
const sh = (script: string): Command => ({ command: '/bin/sh', args: ['-c', script] });
const node = (script: string): Command => ({ command: process.execPath, args: ['-e', script] });
const COMMANDS = {
  /** Writes LIMIT_OUTPUT and exits 0. */
  limitOutput: SH ? sh(`printf '%s' '${LIMIT_OUTPUT}'`) : node(`process.stdout.write(${JSON.stringify(LIMIT_OUTPUT)})`),
  /** Prints its pid, then runs until killed (the shell execs sleep, which keeps the pid). */
  runsUntilKilled: SH ? sh('echo "probe-running pid $$"; exec sleep 600')
    : node("process.stdout.write('probe-running pid ' + process.pid + '\\n'); setInterval(() => {}, 1000);"),
  /** Exits with code 3 after 100 ms. */
  exits3: SH ? sh('echo "exiting with 3"; sleep 0.1; exit 3') : node("setTimeout(() => process.exit(3), 100); process.stdout.write('exiting with 3\\n');"),
};

interface Created { id: string; released: boolean }

async function create(ctx: ScenarioContext, cmd: Command, extra: Record<string, unknown> = {}): Promise<Created | Outcome> {
  const r = await ctx.request(M.terminalCreate, {
    sessionId: ctx.sessionId, ...cmd, cwd: ctx.cwd,
    env: [{ name: 'ACP_INSPECT_PROBE', value: '1' }], ...extra,
  });
  if (r.kind !== 'result') return failAnswer(r, describeReply(M.terminalCreate, r));
  const id = isObject(r.result) ? r.result.terminalId : undefined;
  if (typeof id !== 'string' || !id) return graded(fail(`terminal/create answered without a terminalId: ${describeReply(M.terminalCreate, r)}`), 'capability', CLIENT_QUOTES.req('the terminal/create result: "terminalId TerminalId req" (4.2)'));
  const t: Created = { id, released: false };
  ctx.atEnd(async () => {
    if (!t.released) await ctx.request(M.terminalRelease, { sessionId: ctx.sessionId, terminalId: id });
  });
  return t;
}

/** Creates a terminal, runs `body` with it, and releases it after unless `body` did: inside the scenario, so its recording is complete. */
async function usingTerminal(ctx: ScenarioContext, cmd: Command, params: Record<string, unknown>, body: (t: Created) => Promise<Outcome>): Promise<Outcome> {
  const t = await create(ctx, cmd, params);
  if (!('id' in t)) return t;
  const o = await body(t);
  if (!t.released) await release(ctx, t);
  return o;
}

const term = (ctx: ScenarioContext, method: string, id: string, provoke = false): Promise<Answer> =>
  ctx.request(method, { sessionId: ctx.sessionId, terminalId: id }, { provoke });

interface OutputResult { output: string; truncated: boolean; exitStatus: unknown }

const isOutcome = (o: OutputResult | Outcome): o is Outcome => 'status' in o;
const prefixed = (what: string, o: Outcome): Outcome => ({ ...o, why: `${what}, ${o.why}` });

/** terminal/output's result, or the failure to return (no answer and a missing `req` field are required ones). */
function outputOf(r: Answer): OutputResult | Outcome {
  if (r.kind !== 'result') return failAnswer(r, describeReply(M.terminalOutput, r));
  const x = r.result;
  if (!isObject(x) || typeof x.output !== 'string' || typeof x.truncated !== 'boolean') {
    return graded(fail(`terminal/output answered without output and truncated: ${describeReply(M.terminalOutput, r)}`), 'capability',
      CLIENT_QUOTES.req('the terminal/output result: "output string req; truncated boolean req" (4.2)'));
  }
  return { output: x.output, truncated: x.truncated, exitStatus: x.exitStatus ?? null };
}

/** Polls terminal/output until `done` holds (or `maxMs` passes); the last answer. */
async function outputUntil(ctx: ScenarioContext, id: string, done: (o: OutputResult) => boolean, maxMs = 3000): Promise<OutputResult | Outcome> {
  const until = Date.now() + maxMs;
  for (;;) {
    const o = outputOf(await term(ctx, M.terminalOutput, id));
    if (isOutcome(o) || done(o) || Date.now() > until) return o;
    await ctx.sleep(50);
  }
}

const release = async (ctx: ScenarioContext, t: Created): Promise<Answer> => {
  t.released = true;
  return term(ctx, M.terminalRelease, t.id);
};

const pidAlive = (pid: number): boolean => {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
};

export const TERMINAL_SCENARIOS: ClientScenario[] = [
  {
    id: 'terminal-output-limit',
    title: 'outputByteLimit truncates from the start, at a character boundary, with truncated true',
    tier: 'advisory', spec: '4.4 rule 5', group: 'terminal', gate: needTerminal,
    quote: '"`terminal/create`: the client keeps at most `outputByteLimit` bytes, truncating from the beginning, always at a character boundary" (4.4 rule 5): it says what the client does, with no "must"',
    async run(ctx) {
      return usingTerminal(ctx, COMMANDS.limitOutput, { outputByteLimit: LIMIT_BYTES }, async (t) => {
        const o = await outputUntil(ctx, t.id, (x) => x.exitStatus !== null);
        if (isOutcome(o)) return o;
        const bytes = Buffer.byteLength(o.output);
        const shown = JSON.stringify(clip(o.output, 60));
        if (o.output.includes('\uFFFD')) return fail(`the output was cut inside a character (it holds U+FFFD): ${shown}`);
        if (bytes > LIMIT_BYTES) return fail(`kept ${bytes} bytes, more than outputByteLimit ${LIMIT_BYTES}`);
        if (!LIMIT_OUTPUT.endsWith(o.output)) {
          return fail(LIMIT_OUTPUT.startsWith(o.output) ? `kept the start of the output (${shown}); truncation drops the start and keeps the end`
            : `the output ${shown} is not the end of what the command wrote`);
        }
        if (bytes < LIMIT_BYTES - 3) return fail(`kept only ${bytes} of the ${LIMIT_BYTES} bytes allowed`);
        if (!o.truncated) return fail(`kept the last ${bytes} bytes but said truncated false`);
        return pass(`kept the last ${bytes} bytes (the limit ${LIMIT_BYTES} falls inside a 2-byte character), truncated true`);
      });
    },
  },
  {
    id: 'terminal-output-running',
    title: 'terminal/output answers at once while the command runs, with a null exit status',
    tier: 'advisory', spec: '4.2', group: 'terminal', gate: needTerminal,
    quote: 'terminal/output "returns current content without waiting" (4.2): it says what the client does, with no "must"',
    async run(ctx) {
      return usingTerminal(ctx, COMMANDS.runsUntilKilled, {}, async (t) => {
        await ctx.sleep(150);
        const r = await term(ctx, M.terminalOutput, t.id);
        const o = outputOf(r);
        await release(ctx, t);
        // Answered only once the command ends: a client that waits, which the spec says it does not (advisory).
        if (isOutcome(o)) return r.kind === 'timeout' ? fail(`${o.why}, while the command was still running: terminal/output returns without waiting for the command`) : o;
        if (o.exitStatus !== null) return fail(`the command still runs, but exitStatus is ${JSON.stringify(o.exitStatus)}, not null`);
        return pass(`answered in ${Math.round(r.ms)} ms with exitStatus null while the command ran`);
      });
    },
  },
  {
    id: 'terminal-wait-for-exit',
    title: 'terminal/wait_for_exit returns the exit code, and output then carries the exit status',
    tier: 'advisory', spec: '2.11', group: 'terminal', gate: needTerminal,
    quote: 'WaitForTerminalExitResponse: "exitCode integer | null ...; signal string | null (null if exited normally)" (2.11); exitStatus "present once the command has completed": it says what the client does, with no "must"',
    async run(ctx) {
      return usingTerminal(ctx, COMMANDS.exits3, {}, async (t) => {
        const r = await term(ctx, M.terminalWait, t.id);
        if (r.kind !== 'result' || !isObject(r.result)) return failAnswer(r, describeReply(M.terminalWait, r));
        if (r.result.exitCode !== 3) return fail(`exitCode is ${JSON.stringify(r.result.exitCode)}; the command exited with 3`);
        if (r.result.signal != null) return fail(`signal is ${JSON.stringify(r.result.signal)} for a command that exited normally`);
        const o = outputOf(await term(ctx, M.terminalOutput, t.id));
        if (isOutcome(o)) return prefixed('after the exit', o);
        const st = o.exitStatus;
        if (!isObject(st) || st.exitCode !== 3) return fail(`after the exit, terminal/output's exitStatus is ${JSON.stringify(st)}, not {"exitCode":3}`);
        if (o.truncated) return fail(`terminal/output says truncated true for ${Buffer.byteLength(o.output)} bytes of output and no outputByteLimit`);
        return pass('exitCode 3, signal null; terminal/output then reports exitStatus {exitCode: 3}, not truncated');
      });
    },
  },
  {
    id: 'terminal-kill',
    title: 'terminal/kill ends the command and the terminal id stays valid',
    tier: 'advisory', spec: '3', group: 'terminal', gate: needTerminal,
    quote: 'Terminal running → `terminal/kill` → "command killed, id still valid"; "`terminal/output` and other terminal methods still work" (3): it says what the client does, with no "must"',
    async run(ctx) {
      return usingTerminal(ctx, COMMANDS.runsUntilKilled, {}, async (t) => {
        await ctx.sleep(100);
        const k = await term(ctx, M.terminalKill, t.id);
        if (k.kind !== 'result') return failAnswer(k, describeReply(M.terminalKill, k));
        const o = outputOf(await term(ctx, M.terminalOutput, t.id));
        if (isOutcome(o)) return prefixed('after kill, the id no longer works', o);
        const w = await term(ctx, M.terminalWait, t.id);
        if (w.kind !== 'result') return failAnswer(w, `after kill, ${describeReply(M.terminalWait, w)}`);
        const r = await release(ctx, t);
        if (r.kind !== 'result') return failAnswer(r, `after kill, ${describeReply(M.terminalRelease, r)}`);
        return pass(`killed; terminal/output, wait_for_exit (${clip(JSON.stringify(w.result) ?? '', 60)}) and release still work on the id`);
      });
    },
  },
  {
    id: 'terminal-release',
    title: 'terminal/release ends a running command and the id becomes invalid',
    tier: 'advisory', spec: '3', group: 'terminal', gate: needTerminal, provokes: ['terminal-released'],
    quote: 'Terminal running or exited → `terminal/release` → released: "command killed if still running; id invalid for `terminal/*`" (3): it says what the client does, with no "must"',
    async run(ctx) {
      return usingTerminal(ctx, COMMANDS.runsUntilKilled, {}, async (t) => {
        const before = await outputUntil(ctx, t.id, (x) => /pid \d+/.test(x.output), 2000);
        const pid = isOutcome(before) ? undefined : Number(/pid (\d+)/.exec(before.output)?.[1]);
        const r = await release(ctx, t);
        if (r.kind !== 'result') return failAnswer(r, describeReply(M.terminalRelease, r));
        const after = await term(ctx, M.terminalOutput, t.id, true);
        if (after.kind === 'result') return fail('after release, terminal/output still answered for the released id, which release invalidates');
        if (after.kind !== 'error') return failAnswer(after, `after release, ${describeReply(M.terminalOutput, after)}`);
        if (pid) {
          const until = Date.now() + 2000;
          while (pidAlive(pid) && Date.now() < until) await ctx.sleep(50);
          if (pidAlive(pid)) return fail(`after release, the command (pid ${pid}) is still running: release kills it`);
        }
        return pass(`released${pid ? `, the command (pid ${pid}) ended` : ''}, and terminal/output on the id then failed`);
      });
    },
  },
];
