/**
 * `acp-inspect probe agent` against real peers through real pipes and a real SQLite file: the SDK's
 * example agent, a small complete agent (test/peers/probe-agent.mjs) that comes out conformant, and
 * the same agent with one planted defect at a time, each caught by the scenario meant for it. The
 * runs are independent, so they run concurrently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_AGENT, PEERS, cli, tempDir } from '../helpers.js';
import { probeAgent } from '../../src/probe/agent/run.js';
import { AGENT_SCENARIOS } from '../../src/probe/agent/scenarios.js';
import type { ProbeReport, ScenarioResult } from '../../src/probe/report.js';
import { Store } from '../../src/store/store.js';
import { getProbeRun, listProbeRuns } from '../../src/store/probe-runs.js';

const AGENT = join(PEERS, 'probe-agent.mjs');
let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('acp-probe-'); });
afterAll(() => tmp?.cleanup());

const byId = (r: ProbeReport, id: string): ScenarioResult => {
  const s = r.scenarios.find((x) => x.id === id);
  if (!s) throw new Error(`no scenario ${id} in the report`);
  return s;
};

/** The test agent with one defect (or quirk), probed on a few scenarios (plus initialize, which always runs). */
async function probeDefect(defect: string, only: string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}, parallel?: number): Promise<ProbeReport> {
  const store = tempDir('acp-probe-store-');
  try {
    const { report } = await probeAgent({
      command: [process.execPath, AGENT], db: join(tmp.dir, `defects.sqlite`), only, timeoutMs, auth: 'token', parallel,
      env: { ...process.env, PROBE_AGENT_DEFECT: defect, PROBE_AGENT_AUTH: '1', PROBE_AGENT_STORE: store.dir, ...env },
    });
    return report;
  } finally {
    store.cleanup();
  }
}

// defect → the scenario that must catch it, how (status at tier: a required or capability failure
// decides the verdict, an advisory one is reported, an info one reports what the agent did where the
// spec's words decide nothing, an unstable one never decides), and what it says.
const DEFECTS: Array<[string, string, `${ScenarioResult['status']} ${ScenarioResult['tier']}`, RegExp]> = [
  ['version-echo', 'version-unsupported', 'fail advisory', /accepted protocol version 65535/],
  ['invalid-params-code', 'session-new-missing-fields', 'info info', /answered error -32603 .*JSON-RPC's code for invalid params is -32602/],
  ['unknown-method-result', 'unknown-method', 'fail advisory', /got result \{\}; -32601 is the code for a method that does not exist/],
  ['extension-unanswered', 'extension-request', 'fail required', /got no answer in time/],
  ['answers-notifications', 'unknown-notifications', 'fail required', /answered a notification/],
  ['unknown-session-ok', 'unknown-session', 'info info', /answered result \{"stopReason":"end_turn"\}/],
  ['not-json-exit', 'not-json', 'info info', /did not survive a line that was not JSON; the agent exited \(code 4\)/],
  ['resource-link-refused', 'prompt-resource-link', 'fail required', /resource_link got error -32602/],
  ['cancel-end-turn', 'cancel-mid-turn', 'fail advisory', /the turn ended "end_turn", and a second turn cancelled right after its prompt ended "end_turn"; it should be "cancelled"/],
  ['update-after-cancel', 'cancel-mid-turn', 'fail advisory', /session\/update of the turn \(agent_message_chunk\) after the cancelled answer/],
  ['permission-cancel-end-turn', 'cancel-pending-permission', 'fail advisory', /stopReason "end_turn"; it should be "cancelled"/],
  ['fs-without-capability', 'capabilities-off', 'fail advisory', /called fs\/read_text_file although/],
  ['cancel-request-unanswered', 'cancel-request', 'fail required', /got no answer in time after session\/cancel/],
  ['bogus-mode-ok', 'set-mode', 'info info', /the bogus mode got result/],
  ['bogus-config-ok', 'set-config-option', 'info info', /the bogus value got result/],
  ['load-history-after-answer', 'session-load', 'fail advisory', /history update\(s\) after the load's answer/],
  ['resume-replays-history', 'session-resume', 'fail advisory', /sent 1 update\(s\) before answering/],
  ['list-without-array', 'session-list', 'fail capability', /got result \{\}; the result has a sessions array/],
  ['closed-session-prompt-ok', 'session-close', 'info info', /a prompt to it got result/],
  ['fork-same-id', 'session-fork', 'fail unstable', /answered the same session id/],
  ['auth-wrong-code', 'authenticate', 'info info', /got error -32603 .*the authentication-required error is -32000/],
  ['crash-in-turn', 'prompt-turn', 'fail required', /the agent exited \(code 3\)/],
  ['concurrent-prompt-unanswered', 'concurrent-prompts', 'fail required', /first prompt ended end_turn; the second got no answer in time in the 4000 ms after the first was answered; every request gets a response/],
  ['stdout-log', 'initialize', 'fail advisory', /the checker found not-json at #\d+ \(spec 4\): agent wrote a line that is not JSON/],
];

/** The defects seen only by waiting for an answer that never comes. */
const SEEN_BY_WAITING = ['extension-unanswered', 'cancel-request-unanswered', 'concurrent-prompt-unanswered'];

// The example agent's scenarios that take no whole turn (its turn sleeps about 5 s): the others
// were run on it by hand with the same outcome (see docs/probe.md).
const EXAMPLE_ONLY = ['initialize', 'version-unsupported', 'session-new-missing-fields', 'unknown-method', 'extension-request', 'unknown-notifications',
  'unknown-session', 'not-json', 'prompt-resource-link', 'cancel-mid-turn', 'cancel-pending-permission', 'session-load', 'prompt-image'];

describe('probe agent', () => {
  it.concurrent('grades the SDK example agent through the binary: it passes every required scenario, and its one real defect (end_turn after a cancelled permission) is a "should", advisory; with --json, --report and --html', async () => {
    const db = join(tmp.dir, 'example.sqlite');
    const reportFile = join(tmp.dir, 'example.json');
    const html = join(tmp.dir, 'example.html');
    const r = await cli(['probe', 'agent', '--db', db, '--json', '--report', reportFile, '--html', html, '--parallel', '8', '--only', EXAMPLE_ONLY.join(','), '--', process.execPath, EXAMPLE_AGENT], { timeoutMs: 120_000 });
    const report = JSON.parse(r.stdout.toString()) as ProbeReport;
    expect(JSON.parse(readFileSync(reportFile, 'utf8'))).toEqual(report);
    expect(Object.keys(report)).toEqual(expect.arrayContaining(['probe', 'target', 'verdict', 'counts', 'scenarios']));
    expect(report.probe).toBe('agent');
    expect(report.target.command).toEqual([process.execPath, EXAMPLE_AGENT]);
    for (const s of report.scenarios) expect(Object.keys(s)).toEqual(expect.arrayContaining(['id', 'title', 'tier', 'status', 'spec', 'why', 'recording', 'findings']));
    // The example agent answers end_turn when the turn is cancelled while its permission request is
    // pending (it returns normally on a cancelled outcome): the probe reports it, and the checker
    // agrees, as a "should" of part 3: advisory, so the verdict does not hang on it.
    const failedGraded = report.scenarios.filter((s) => s.status === 'fail' && (s.tier === 'required' || s.tier === 'capability')).map((s) => s.id);
    expect(failedGraded).toEqual([]);
    expect(report.verdict).toBe('conformant');
    expect(r.code).toBe(0);
    const cpp = byId(report, 'cancel-pending-permission');
    expect(cpp).toMatchObject({ status: 'fail', tier: 'advisory', spec: '3', quote: expect.stringContaining('should') });
    expect(cpp.why).toContain('end_turn');
    expect(cpp.findings.map((f) => f.rule)).toContain('cancel-stop-reason');
    expect(report.scenarios.map((s) => s.id)).toEqual(EXAMPLE_ONLY);
    for (const id of ['initialize', 'version-unsupported', 'unknown-method', 'extension-request', 'unknown-notifications', 'not-json', 'prompt-resource-link', 'cancel-mid-turn']) expect(byId(report, id).status, id).toBe('pass');
    for (const id of ['session-new-missing-fields', 'unknown-session']) expect(byId(report, id)).toMatchObject({ status: 'info', tier: 'info' });
    // It takes an image it did not advertise: the spec binds the client not to send one, so that is info.
    expect(byId(report, 'prompt-image')).toMatchObject({ status: 'info', tier: 'info', why: expect.stringContaining('accepted although') });
    // Every result quotes the words its tier rests on.
    for (const s of report.scenarios) expect(s.quote, s.id).toEqual(expect.any(String));
    // Capability scenarios it does not advertise are skipped with their reason, never failed.
    expect(byId(report, 'session-load')).toMatchObject({ status: 'skip', why: 'loadSession is not advertised' });
    // Findings its provocations caused are the probe's.
    expect(byId(report, 'not-json').probeFindings!.map((f) => f.rule)).toContain('not-json');
    expect(byId(report, 'not-json').findings.map((f) => f.rule)).not.toContain('not-json');
    // Every scenario that ran is a recording named after the run, listed like any other.
    const list = JSON.parse((await cli(['list', '--db', db, '--json'])).stdout.toString()) as Array<{ id: number; name: string }>;
    const ran = report.scenarios.filter((s) => s.recording !== null);
    for (const s of ran) expect(list.find((x) => x.id === s.recording)?.name).toBe(`probe agent #${report.run}: ${s.id}`);
    const shown = await cli(['show', String(cpp.recording), '--db', db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.toString()).toContain('session/request_permission');
    expect(readFileSync(html, 'utf8')).toContain('cancel-pending-permission');
    expect(readFileSync(html, 'utf8')).toContain('spec: ');
  });

  it.concurrent('finds the clean test agent conformant, capability scenarios and authentication included, and keeps the report in the store', async () => {
    const db = join(tmp.dir, 'clean.sqlite');
    const told: string[] = [];
    const sessions = tempDir('acp-probe-store-');
    const { report } = await probeAgent({
      command: [process.execPath, AGENT], db, timeoutMs: 8000, auth: 'token', parallel: 6, env: { ...process.env, PROBE_AGENT_AUTH: '1', PROBE_AGENT_STORE: sessions.dir },
      onScenario: (r, done, total) => told.push(`${done}/${total} ${r.id}`),
    }).finally(() => sessions.cleanup());
    expect(told).toHaveLength(AGENT_SCENARIOS.length);
    expect(told[0]).toBe(`1/${AGENT_SCENARIOS.length} initialize`);
    expect(report.scenarios.filter((s) => s.status === 'fail')).toEqual([]);
    expect(report.verdict).toBe('conformant');
    expect(report.scenarios.map((s) => s.id)).toEqual(AGENT_SCENARIOS.map((s) => s.id));
    expect(report.scenarios.filter((s) => s.status === 'skip')).toEqual([]);
    expect(report.target).toMatchObject({ name: 'probe-test-agent', version: '1.0.0' });
    expect(report.counts).toMatchObject({ fail: 0, skip: 0, info: 11, total: AGENT_SCENARIOS.length });
    // Its only finding outside the scenarios: fork, UNSTABLE, advertised in initialize; reported once, an info.
    expect(report.ambient?.map((a) => [a.rule, a.tier])).toEqual([['unstable-field', 'info']]);
    const store = Store.open(db);
    try {
      expect(getProbeRun(store, report.run!)).toMatchObject({ probe: 'agent', verdict: 'conformant', report });
    } finally {
      store.close();
    }
  });

  it.concurrent.each(DEFECTS)('catches the planted defect %s with the scenario %s (%s), naming its spec section, its words and recording', async (defect, scenario, graded, why) => {
    // A defect seen only by waiting gets 4 s to be seen (its message names the wait); every other one
    // a wait no loaded machine reaches, which costs nothing as an answer ends it: 4 s let a slow
    // start-up beside a second full suite (load 10) fail session-new-missing-fields unanswered.
    const report = await probeDefect(defect, [scenario], SEEN_BY_WAITING.includes(defect) ? 4000 : 30_000);
    const s = byId(report, scenario);
    expect(`${s.status} ${s.tier}`, s.why).toBe(graded);
    expect(s.why).toMatch(why);
    expect(s.recording).toEqual(expect.any(Number));
    expect(s.quote).toEqual(expect.any(String));
    const [status, tier] = graded.split(' ');
    const decides = status === 'fail' && (tier === 'required' || tier === 'capability');
    expect(s.spec).toBe(AGENT_SCENARIOS.find((x) => x.id === scenario)!.spec);
    expect(report.verdict).toBe(decides ? 'not conformant' : 'conformant');
    expect(report.scenarios.filter((x) => x.status === 'fail').map((x) => x.id)).toEqual(status === 'fail' ? [scenario] : []);
    // A failure that does not decide quotes words with no "must" (or a "should"); one that decides quotes a must.
    if (decides) expect(s.quote).toMatch(/\bmust\b|\breq\b|MUST/);
  });

  it.concurrent('cannot probe an agent that answers initialize with another version: it does not support version 1 (9 rule 2), so exit 2 and one line, not a failure', async () => {
    const r = await cli(['probe', 'agent', '--db', join(tmp.dir, 'v2.sqlite'), '--', process.execPath, AGENT], { env: { PROBE_AGENT_DEFECT: 'initialize-version-2' }, timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toBe('acp-inspect: the agent answered initialize with protocol version 2: it does not support version 1, the only one this probe tests (9 rule 2)\n');
  });

  it.concurrent('does not fail a conformant agent whose short turn ends as the cancel arrives', async () => {
    const { report } = await probeAgent({
      command: [process.execPath, AGENT], db: join(tmp.dir, 'short.sqlite'), only: ['cancel-mid-turn', 'cancel-request'], timeoutMs: 4000,
      env: { ...process.env, PROBE_AGENT_SHORT_TURN: '1' },
    });
    expect(byId(report, 'cancel-mid-turn').status, byId(report, 'cancel-mid-turn').why).toBe('pass');
    expect(byId(report, 'cancel-request').status, byId(report, 'cancel-request').why).not.toBe('fail');
    expect(report.verdict).toBe('conformant');
  });

  it.concurrent('reopens a session only in a new process, the one that ran it ended, keeping the first as a setup recording', async () => {
    const store = tempDir('acp-probe-store-');
    const db = join(tmp.dir, 'stored.sqlite');
    try {
      const { report } = await probeAgent({
        command: [process.execPath, AGENT], db, only: ['session-load', 'session-resume'], timeoutMs: 4000,
        env: { ...process.env, PROBE_AGENT_STORE: store.dir },
      });
      for (const id of ['session-load', 'session-resume']) expect(byId(report, id), byId(report, id).why).toMatchObject({ status: 'pass', why: expect.stringContaining('in a new process') });
      const list = JSON.parse((await cli(['list', '--db', db, '--json'])).stdout.toString()) as Array<{ name: string }>;
      expect(list.map((r) => r.name)).toEqual(expect.arrayContaining([`probe agent #${report.run}: session-load (setup)`, `probe agent #${report.run}: session-load`]));
    } finally {
      store.cleanup();
    }
  });

  it.concurrent('session-load and session-resume make their sessions on one process and reopen them on one new process, started once the first is gone; each still judges only its own session', async () => {
    const db = join(tmp.dir, 'reopened.sqlite');
    const probe = async (env: NodeJS.ProcessEnv) => {
      const store = tempDir('acp-probe-store-');
      const pids = join(store.dir, 'pids');
      try {
        // One worker: the two scenarios must not wait on each other through the queue.
        const { report } = await probeAgent({
          command: [process.execPath, AGENT], db, only: ['session-load', 'session-resume'], timeoutMs: 4000, parallel: 1,
          env: { ...process.env, PROBE_AGENT_PIDFILE: pids, ...env.PROBE_AGENT_STORE === '' ? {} : { PROBE_AGENT_STORE: store.dir }, ...env },
        });
        return { report, starts: readFileSync(pids, 'utf8').trim().split('\n').length };
      } finally {
        store.cleanup();
      }
    };
    const { report, starts } = await probe({});
    for (const id of ['session-load', 'session-resume']) expect(byId(report, id), byId(report, id).why).toMatchObject({ status: 'pass', why: expect.stringContaining('in a new process') });
    // initialize's process (ended: no shared scenario wanted), the sessions' first and their second: not 1 + 2 + 2.
    expect(starts).toBe(3);
    const list = JSON.parse((await cli(['list', '--db', db, '--json'])).stdout.toString()) as Array<{ id: number; name: string }>;
    const store = Store.open(db, { readonly: true });
    try {
      const rec = (name: string) => store.getRecording(list.find((r) => r.name === `probe agent #${report.run}: ${name}`)!.id)!;
      const methods = (name: string) => store.readItems(rec(name).id, 0, 1000).flatMap((i) => ('method' in i && i.dir === 'c2a' && i.kind === 'request' ? [i.method] : []));
      const first = rec("reopened sessions' first process").pid;
      expect(rec('session-load (setup)').pid).toBe(first);
      expect(rec('session-resume (setup)').pid).toBe(first);
      expect(rec('session-load').pid).toBe(rec("reopened sessions' second process").pid);
      expect(rec('session-resume').pid).toBe(rec('session-load').pid);
      expect(rec('session-load').pid).not.toBe(first);
      // The first process made both sessions and ran their turns, and reopened nothing; it was ended
      // (its recording kept) before the second was asked to reopen them.
      expect(methods("reopened sessions' first process")).toEqual(['initialize', 'session/new', 'session/prompt', 'session/new', 'session/prompt']);
      expect(methods("reopened sessions' second process")).toEqual(['initialize', 'session/load', 'session/resume']);
      expect(rec("reopened sessions' first process").id).toBeLessThan(rec('session-load').id);
      // Each scenario's recording is the handshake and its own reopening, not the other's.
      expect(methods('session-load')).toEqual(['initialize', 'session/load']);
      expect(methods('session-resume')).toEqual(['initialize', 'session/resume']);
    } finally {
      store.close();
    }
    // An agent that forgets its sessions when its process ends fails both: a reopening on the process
    // that made the session would pass.
    const forgets = (await probe({ PROBE_AGENT_STORE: '' })).report;
    for (const id of ['session-load', 'session-resume']) expect(byId(forgets, id), byId(forgets, id).why).toMatchObject({ status: 'fail', why: expect.stringContaining('in a new process') });
    // Each planted defect fails its own scenario only, though the two share their processes.
    const late = (await probe({ PROBE_AGENT_DEFECT: 'load-history-after-answer' })).report;
    expect([byId(late, 'session-load').status, byId(late, 'session-resume').status]).toEqual(['fail', 'pass']);
    const replays = (await probe({ PROBE_AGENT_DEFECT: 'resume-replays-history' })).report;
    expect([byId(replays, 'session-load').status, byId(replays, 'session-resume').status]).toEqual(['pass', 'fail']);
  });

  it.concurrent('the permission scenarios share a process: each answers the permissions of its own session by its own policy (allow, reject, hold then cancelled)', async () => {
    const only = ['prompt-turn', 'cancel-pending-permission', 'permission-rejected', 'capabilities-off'];
    const report = await probeDefect('', only, 4000, {}, 1);
    expect(report.scenarios.map((s) => [s.id, s.status, !!s.sharedProcess])).toEqual([
      ['prompt-turn', 'pass', true], ['cancel-pending-permission', 'pass', true], ['capabilities-off', 'pass', true], ['permission-rejected', 'info', true],
    ]);
    expect(byId(report, 'permission-rejected').why).toMatch(/^asked permission, the probe rejected it/);
    const store = Store.open(join(tmp.dir, 'defects.sqlite'), { readonly: true });
    try {
      const answers = (id: string) => {
        const items = store.readItems(byId(report, id).recording!, 0, 1000);
        return items.filter((i) => 'method' in i && i.method === 'session/request_permission' && i.dir === 'a2c').map((ask) => {
          const a = items.find((i) => i.dir === 'c2a' && 'replyTo' in i && i.replyTo === ask.seq);
          return a && 'raw' in a ? JSON.parse(a.raw).result.outcome : undefined;
        });
      };
      expect(answers('prompt-turn')).toEqual([{ outcome: 'selected', optionId: 'allow' }]);
      expect(answers('permission-rejected')).toEqual([{ outcome: 'selected', optionId: 'reject' }]);
      expect(answers('cancel-pending-permission')).toEqual([{ outcome: 'cancelled' }]);
      const pids = new Set(only.map((id) => store.getRecording(byId(report, id).recording!)!.pid));
      expect(pids.size).toBe(1);
    } finally {
      store.close();
    }
  });

  it.concurrent('reports an image accepted unadvertised as info: the spec binds the client not to send it', async () => {
    const report = await probeDefect('image-accepted', ['prompt-image'], 4000);
    expect(byId(report, 'prompt-image')).toMatchObject({ status: 'info', tier: 'info', quote: expect.stringContaining('The client must adapt') });
    expect(report.verdict).toBe('conformant');
  });

  // What real agents do that is no defect: each comes out a true reading.
  it.concurrent('an update before the session/new answer is one ambient finding for the run, failing no scenario that opened a session', async () => {
    const only = ['prompt-turn', 'not-json', 'unknown-notifications', 'set-mode', 'session-list'];
    const report = await probeDefect('', only, 4000, { PROBE_AGENT_QUIRKS: 'early-update' });
    expect(report.scenarios.filter((s) => s.status === 'fail')).toEqual([]);
    for (const s of report.scenarios) expect(s.findings.map((f) => f.rule), s.id).not.toContain('session-unknown');
    const a = report.ambient!.find((x) => x.rule === 'session-unknown')!;
    expect(a).toMatchObject({ tier: 'advisory', severity: 'error', recording: expect.any(Number) });
    expect(a.scenarios.sort()).toEqual(only.filter((id) => id !== 'initialize').sort());
    expect(report.ambient!.filter((x) => x.rule === 'session-unknown')).toHaveLength(1);
    // The checker flags it (the client cannot know the session yet), but no "must" of the spec forbids
    // it: reported once, advisory, and the verdict does not hang on it.
    expect(report.verdict).toBe('conformant');
  });

  it.concurrent('a queued second turn that streams longer than --timeout after the first answer is waited for as a turn: info, not an unanswered request', async () => {
    // Updates 0.3 s apart for 7.5 s against a 4 s timeout: longer than it, with room for a loaded machine's stalls.
    const report = await probeDefect('', ['concurrent-prompts'], 4000, { PROBE_AGENT_QUIRKS: 'queue-prompts,slow-queued-turn' });
    expect(byId(report, 'concurrent-prompts')).toMatchObject({ status: 'info', why: expect.stringMatching(/^first prompt ended end_turn; second ended end_turn/) });
  });

  it.concurrent('a second prompt that waits for the first turn to end, then runs, is answered: info, what the agent did', async () => {
    const report = await probeDefect('', ['concurrent-prompts'], 4000, { PROBE_AGENT_QUIRKS: 'queue-prompts' });
    expect(byId(report, 'concurrent-prompts')).toMatchObject({ status: 'info', tier: 'info', why: 'first prompt ended end_turn; second ended end_turn' });
  });

  it.concurrent('a later process of the agent slow to answer initialize (its start-up on a loaded machine) skips its scenario, saying so: not a failure of what the scenario provokes', async () => {
    const starts = join(tmp.dir, 'slow-restart.log');
    const report = await probeDefect('', ['prompt-turn', 'not-json', 'version-unsupported'], 1000, { PROBE_AGENT_SLOW_RESTART: starts });
    // not-json and version-unsupported (whose own initialize asks 65535) start a process of their own, slow; prompt-turn runs on the initialize scenario's, handed over (no second start).
    for (const id of ['not-json', 'version-unsupported']) expect(byId(report, id)).toMatchObject({ status: 'skip', why: expect.stringMatching(/^not graded: this scenario's own process did not answer initialize within 11000 ms/) });
    expect(byId(report, 'prompt-turn')).toMatchObject({ status: 'pass', sharedProcess: true });
    expect(report.verdict).toBe('conformant');
  });

  it.concurrent('cancels only once the turn runs: a session-level update before the turn starts is no sign of it', async () => {
    const report = await probeDefect('', ['cancel-mid-turn'], 4000, { PROBE_AGENT_QUIRKS: 'commands-before-turn' });
    expect(byId(report, 'cancel-mid-turn')).toMatchObject({ status: 'pass', why: 'answered cancelled; no update after the answer' });
  });

  it.concurrent('answers a permission asked right after the cancel with the cancelled outcome, and the turn ends', async () => {
    const report = await probeDefect('', ['cancel-mid-turn'], 4000, { PROBE_AGENT_QUIRKS: 'permission-after-cancel' });
    const s = byId(report, 'cancel-mid-turn');
    expect(s.status, s.why).toBe('pass');
    const store = Store.open(join(tmp.dir, 'defects.sqlite'));
    try {
      const items = store.readItems(s.recording!, 0, 1000);
      const ask = items.find((i) => 'method' in i && i.method === 'session/request_permission' && i.dir === 'a2c');
      expect(ask).toBeDefined();
      // Asked after the cancel, whenever the cancel came: the agent's turn runs until it.
      const cancel = items.find((i) => 'method' in i && i.method === 'session/cancel' && i.dir === 'c2a');
      expect(ask!.seq).toBeGreaterThan(cancel!.seq);
      const answer = items.find((i) => i.dir === 'c2a' && 'replyTo' in i && i.replyTo === ask!.seq);
      expect(answer && 'raw' in answer ? JSON.parse(answer.raw).result : undefined).toEqual({ outcome: { outcome: 'cancelled' } });
    } finally {
      store.close();
    }
  });

  it.concurrent('answers a permission asked before the session\'s first turn, which the turn waits for, so the held-permission scenarios still provoke their own', async () => {
    const report = await probeDefect('', ['cancel-pending-permission', 'cancel-mid-turn'], 2000, { PROBE_AGENT_QUIRKS: 'permission-before-turn' });
    for (const id of ['cancel-pending-permission', 'cancel-mid-turn']) expect(byId(report, id).status, byId(report, id).why).toBe('pass');
    const store = Store.open(join(tmp.dir, 'defects.sqlite'));
    try {
      const items = store.readItems(byId(report, 'cancel-pending-permission').recording!, 0, 1000);
      const asks = items.filter((i) => 'method' in i && i.method === 'session/request_permission' && i.dir === 'a2c');
      const answerOf = (seq: number) => {
        const a = items.find((i) => i.dir === 'c2a' && 'replyTo' in i && i.replyTo === seq);
        return a && 'raw' in a ? JSON.parse(a.raw).result : undefined;
      };
      // The session's own question, before the prompt: allowed, as a user would; the turn's: cancelled.
      // When the session's question arrives only after the prompt went out (it is asked right after
      // session/new, racing the prompt), it is the one the turn waits on and is cancelled with it.
      const answers = asks.map((a) => answerOf(a.seq));
      expect(answers.at(-1)).toEqual({ outcome: { outcome: 'cancelled' } });
      expect(answers.slice(0, -1)).toEqual(answers.length === 2 ? [{ outcome: { outcome: 'selected', optionId: 'index' } }] : []);
      expect(answers.length).toBeGreaterThanOrEqual(1);
    } finally {
      store.close();
    }
  });

  it.concurrent('a session/new with a relative cwd runs in a process of its own: an agent that fails on that folder later fails no other scenario', async () => {
    // One worker: on a shared process, the scenario after it would have met the exit.
    const report = await probeDefect('', ['session-new-relative-cwd', 'prompt-embedded-resource'], 4000, { PROBE_AGENT_QUIRKS: 'relative-cwd-exit' }, 1);
    expect(byId(report, 'prompt-embedded-resource').status, byId(report, 'prompt-embedded-resource').why).toBe('pass');
    expect(byId(report, 'session-new-relative-cwd')).toMatchObject({ status: 'info', why: expect.stringMatching(/^answered result/) });
    expect(byId(report, 'session-new-relative-cwd').sharedProcess).toBeFalsy();
    expect(report.verdict).toBe('conformant');
  });

  it.concurrent('a line the agent was writing when the probe\'s signal ended it is kept as the probe\'s cut, not checked as the agent\'s malformed frame', async () => {
    const report = await probeDefect('', ['version-unsupported'], 4000, { PROBE_AGENT_QUIRKS: 'cut-on-stop' });
    const s = byId(report, 'version-unsupported');
    expect(s.status, s.why).toBe('pass');
    expect(s.findings.map((f) => f.rule)).not.toContain('not-json');
    expect(report.ambient!.map((a) => a.rule)).not.toContain('not-json');
    const store = Store.open(join(tmp.dir, 'defects.sqlite'));
    try {
      const items = store.readItems(s.recording!, 0, 1000);
      const cut = items.find((i) => i.dir === 'event' && 'type' in i && i.type === 'stdout-cut');
      expect(cut && 'data' in cut ? cut.data : undefined).toMatchObject({ signal: 'SIGTERM', bytes: expect.any(Number), raw: expect.stringMatching(/^\{"jsonrpc":"2.0","method":"session\/update".*x{1000}$/) });
      expect(items.filter((i) => i.dir === 'a2c' && 'raw' in i && !i.raw.endsWith('}'))).toEqual([]);
    } finally {
      store.close();
    }
  });

  it.concurrent('loads a session from a new process, never on its own connection where the agent would wipe its history', async () => {
    const report = await probeDefect('', ['session-load'], 4000, { PROBE_AGENT_LOAD_OPEN: 'wipe' });
    expect(byId(report, 'session-load')).toMatchObject({ status: 'pass', why: expect.stringMatching(/^replayed \d+ updates, then answered \(in a new process/) });
  });

  it.concurrent('runs the scenarios that need no fresh process on one, after one handshake, each recording its own part; a crash there costs only its scenario', async () => {
    const only = ['prompt-turn', 'unknown-method', 'extension-request', 'not-json'];
    // One worker: its shared process carries every shared scenario, one after another.
    const report = await probeDefect('crash-in-turn', only, 4000, {}, 1);
    expect(report.handshakeMs).toEqual(expect.any(Number));
    const st = Object.fromEntries(report.scenarios.map((x) => [x.id, [x.status, !!x.sharedProcess]]));
    // prompt-turn crashed its shared process (code 3); the shared scenarios after it got a new one.
    expect(st).toEqual({ 'prompt-turn': ['fail', true], 'unknown-method': ['pass', true], 'extension-request': ['pass', true], 'not-json': ['pass', false] });
    expect(byId(report, 'prompt-turn').why).toMatch(/the agent exited \(code 3\)/);
    const store = Store.open(join(tmp.dir, 'defects.sqlite'));
    try {
      for (const id of ['unknown-method', 'extension-request']) {
        // Its recording: the shared handshake, then its own exchange, numbered from 1 and checked as one.
        const items = store.readItems(byId(report, id).recording!, 0, 1000);
        const methods = items.filter((i) => i.dir === 'c2a').map((i) => ('method' in i ? i.method : undefined)).filter(Boolean);
        expect(methods[0]).toBe('initialize');
        expect(methods).not.toContain('session/prompt');
        expect(items.map((i) => i.seq)).toEqual(items.map((_, k) => k + 1));
        expect(byId(report, id).findings.filter((f) => f.severity === 'error')).toEqual([]);
      }
    } finally {
      store.close();
    }
  });

  it.concurrent('leaves out of a shared scenario what the agent still says about an earlier scenario\'s session, and keeps it in the shared process\'s recording', async () => {
    const report = await probeDefect('', ['prompt-turn', 'unknown-method', 'extension-request'], 4000, { PROBE_AGENT_QUIRKS: 'late-permission' }, 1);
    expect(report.scenarios.map((s) => [s.id, s.status, !!s.sharedProcess])).toEqual([['prompt-turn', 'pass', true], ['unknown-method', 'pass', true], ['extension-request', 'pass', true]]);
    expect((report.ambient ?? []).map((a) => a.rule)).not.toContain('session-unknown');
    const list = JSON.parse((await cli(['list', '--db', join(tmp.dir, 'defects.sqlite'), '--json'])).stdout.toString()) as Array<{ id: number; name: string }>;
    const whole = list.find((r) => r.name === `probe agent #${report.run}: shared process 1`)!;
    const shown = (await cli(['show', String(whole.id), '--db', join(tmp.dir, 'defects.sqlite')])).stdout.toString();
    expect(shown.match(/session\/request_permission/g)!.length).toBeGreaterThanOrEqual(2); // the late ask and its answer
    // The shared process is the initialize scenario's, handed over (authenticated, as --auth asks) rather than a second start-up.
    const store = Store.open(join(tmp.dir, 'defects.sqlite'), { readonly: true });
    try {
      const pidOf = (name: string) => store.getRecording(list.find((r) => r.name === `probe agent #${report.run}: ${name}`)!.id)!.pid;
      expect(pidOf('shared process 1')).toEqual(expect.any(Number));
      expect(pidOf('shared process 1')).toBe(pidOf('initialize'));
    } finally {
      store.close();
    }
    expect(shown).toMatch(/authenticate/);
  });

  it.concurrent('keeps a CI baseline: --write-baseline writes the failures, --baseline exits 0 on known ones, 1 on a new one, and reports a stale entry', async () => {
    const db = join(tmp.dir, 'baseline.sqlite');
    const file = join(tmp.dir, 'baseline.json');
    const probe = (defect: string, ...flags: string[]) => cli(['probe', 'agent', '--db', db, '--json', '--timeout', '4000', '--only', 'prompt-resource-link,unknown-notifications', ...flags, '--', process.execPath, AGENT],
      { env: { PROBE_AGENT_DEFECT: defect }, timeoutMs: 60_000 });
    const first = await probe('resource-link-refused', '--write-baseline', file);
    expect(first.code).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ acpInspect: 'probe-baseline', version: 1, probe: 'agent', failures: ['prompt-resource-link'] });
    const known = await probe('resource-link-refused', '--baseline', file);
    expect(JSON.parse(known.stdout.toString()).baseline).toEqual({ file, known: ['prompt-resource-link'], unexpected: [], stale: [] });
    expect(known.code).toBe(0);
    const fixed = await probe('', '--baseline', file);
    expect(JSON.parse(fixed.stdout.toString()).baseline).toMatchObject({ known: [], unexpected: [], stale: ['prompt-resource-link'] });
    expect(fixed.code).toBe(0);
    const other = await probe('answers-notifications', '--baseline', file);
    expect(JSON.parse(other.stdout.toString()).baseline).toMatchObject({ known: [], unexpected: ['unknown-notifications'], stale: ['prompt-resource-link'] });
    expect(other.code).toBe(1);
    const text = await cli(['probe', 'agent', '--db', db, '--timeout', '4000', '--only', 'prompt-resource-link', '--baseline', file, '--', process.execPath, AGENT], { timeoutMs: 60_000 });
    expect(text.stdout.toString()).toContain(`Baseline ${file}: 0 known failures; no new failure; stale (now passing, drop them): prompt-resource-link`);
    writeFileSync(join(tmp.dir, 'bad-baseline.json'), '{"acpInspect":"probe-baseline","version":1,"probe":"agent","failures":["nope"]}');
    const bad = await cli(['probe', 'agent', '--db', db, '--baseline', join(tmp.dir, 'bad-baseline.json'), '--', process.execPath, AGENT]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`acp-inspect: --baseline ${join(tmp.dir, 'bad-baseline.json')}: no scenario "nope"; see --list\n`);
  });

  it.concurrent('exits 2 with one line when it cannot run: no such command, an unknown scenario, an authentication method not advertised', async () => {
    const db = join(tmp.dir, 'norun.sqlite');
    const missing = await cli(['probe', 'agent', '--db', db, '--', join(tmp.dir, 'no-such-agent')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^acp-inspect: could not start .*no-such-agent: spawn .* ENOENT\n$/);
    const only = await cli(['probe', 'agent', '--db', db, '--only', 'nope', '--', process.execPath, AGENT]);
    expect(only.code).toBe(2);
    expect(only.stderr).toMatch(/^acp-inspect: no scenario "nope"; the scenarios are: initialize, /);
    const auth = await cli(['probe', 'agent', '--db', db, '--auth', 'bogus', '--', process.execPath, AGENT]);
    expect(auth.code).toBe(2);
    expect(auth.stderr).toBe('acp-inspect: --auth bogus is not an advertised authentication method (advertised: none)\n');
    const html = await cli(['probe', 'agent', '--db', db, '--html', join(tmp.dir, 'no-such-folder', 'r.html'), '--', process.execPath, AGENT]);
    expect(html.code).toBe(2);
    expect(html.stderr).toMatch(/^acp-inspect: --html .*r\.html: the folder .*no-such-folder does not exist; create it or write elsewhere\n$/);
    const dies = await cli(['probe', 'agent', '--db', db, '--', process.execPath, '-e', 'console.error("no API key set"); process.exit(1)']);
    expect(dies.code).toBe(2);
    expect(dies.stderr).toBe('acp-inspect: the agent exited (code 1) before answering initialize: no API key set\n');
    // Not an agent at all (`probe agent -- ls`): it prints lines that are not JSON and exits 0.
    const notAgent = await cli(['probe', 'agent', '--db', db, '--', process.execPath, '-e', 'console.log("README.md\\nbin")']);
    expect(notAgent.code).toBe(2);
    expect(notAgent.stdout.length).toBe(0);
    expect(notAgent.stderr).toBe('acp-inspect: the agent exited (code 0) before answering initialize; its stdout is not ACP (first line: "README.md")\n');
    // The runs that could not run are ended, without a report, so the UI does not show them running.
    const store = Store.open(db);
    try {
      const runs = listProbeRuns(store);
      expect(runs.length).toBeGreaterThanOrEqual(3);
      for (const r of runs) expect(r).toMatchObject({ verdict: null, endedAt: expect.any(String) });
    } finally {
      store.close();
    }
  });
});
