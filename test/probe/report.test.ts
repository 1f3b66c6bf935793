/** The probe's pure core: verdict and counts, the table by tier, the HTML report, finding attribution, and ProbeConnection. */
import { describe, expect, it } from 'vitest';
import { buildReport, verdictOf, type ScenarioResult, type Tier } from '../../src/probe/report.js';
import { formatProbeReport } from '../../src/probe/format.js';
import { probeReportHtml } from '../../src/probe/html.js';
import { attributeFindings, gradeByChecker } from '../../src/probe/record.js';
import { MUST_RULE_IDS, tierOfFinding } from '../../src/probe/grounds.js';
import { RULES } from '../../src/check/rule-list.js';
import { ProbeConnection } from '../../src/probe/connection.js';

const sc = (id: string, tier: Tier, status: ScenarioResult['status'], recording: number | null = 1): ScenarioResult =>
  ({ id, title: `${id} title`, tier, status, spec: '7', why: `${id} why`, recording, findings: [] });

describe('the probe report', () => {
  it('is not conformant exactly when a required or capability scenario fails', () => {
    expect(verdictOf([sc('a', 'required', 'pass'), sc('b', 'capability', 'skip'), sc('c', 'advisory', 'fail'), sc('d', 'info', 'info')])).toBe('conformant');
    expect(verdictOf([sc('a', 'required', 'fail')])).toBe('not conformant');
    expect(verdictOf([sc('a', 'capability', 'fail')])).toBe('not conformant');
    expect(verdictOf([])).toBe('conformant');
  });

  it('counts statuses and derives the verdict itself', () => {
    const r = buildReport('agent', { name: 'a', version: '1', command: ['a'] }, [sc('a', 'required', 'pass'), sc('b', 'required', 'fail'), sc('c', 'info', 'info'), sc('d', 'capability', 'skip', null)]);
    expect(r.counts).toEqual({ pass: 1, fail: 1, skip: 1, info: 1, total: 4 });
    expect(r.verdict).toBe('not conformant');
    expect(Object.keys(r)).toEqual(['probe', 'target', 'verdict', 'counts', 'scenarios']);
  });

  it('titles the table by the target name and command, or by its command alone when it gave no name', () => {
    const title = (target: { name: string | null; version: string | null; command: string[] | null }) => formatProbeReport(buildReport('agent', target, [sc('a', 'required', 'pass')])).split('\n')[0];
    expect(title({ name: 'agent-x', version: '2', command: ['node', 'x.js'] })).toBe('probe agent: agent-x 2  (node x.js)');
    expect(title({ name: null, version: null, command: ['node', 'x.js'] })).toBe('probe agent: node x.js');
    expect(title({ name: null, version: null, command: null })).toBe('probe agent: (no name given)');
  });

  it('prints a table by tier: status, id, spec section, why and recording id, then the verdict', () => {
    const failed = { ...sc('b', 'required', 'fail', 7), findings: [{ seq: 3, severity: 'error' as const, rule: 'r', message: 'm', spec: '4' }], reproduce: 'acp-inspect export 7 --turn 5 -o x.jsonl' };
    const text = formatProbeReport(buildReport('agent', { name: 'agent-x', version: '2', command: ['x'] }, [sc('a', 'advisory', 'pass', 6), failed]), { width: 100 });
    const lines = text.split('\n');
    const req = lines.findIndex((l) => l.startsWith('Required'));
    const adv = lines.findIndex((l) => l.startsWith('Advisory'));
    expect(req).toBeGreaterThan(0);
    expect(adv).toBeGreaterThan(req);
    expect(lines[req + 1]).toMatch(/^ {2}FAIL {2}b +7 +b why +#7$/);
    expect(lines[req + 2]).toContain('checker #3 r (4): m');
    expect(lines[req + 3]).toContain('as a fixture: acp-inspect export 7 --turn 5');
    expect(lines[adv + 1]).toMatch(/^ {2}pass {2}a +7 +a why +#6$/);
    expect(text).toContain('NOT CONFORMANT: 1 passed, 1 failed, 0 skipped, 0 info');
  });

  it('renders an HTML page that runs no script, escapes what the target sent and shows each exchange', () => {
    const s = { ...sc('<b>x</b>', 'required', 'fail', 3), why: '<script>alert(1)</script>' };
    const page = probeReportHtml(buildReport('agent', { name: '<img src=x>', version: null, command: null }, [s]),
      new Map([[3, [{ seq: 1, t: 0, dir: 'a2c' as const, raw: '{"x":"<script>"}', size: 16, kind: 'invalid' as const }]]]));
    expect(page).toContain("default-src 'none'");
    expect(page).not.toMatch(/<script|<img/i);
    expect(page).toContain('&#60;script&#62;alert(1)');
    expect(page).toContain('{&#34;x&#34;:&#34;&#60;script&#62;&#34;}');
  });

  it('lets a checker error decide only where its rule rests on a "must", a req field or JSON-RPC 2.0\'s MUST; its other errors are advisory', () => {
    const f = (rule: string, severity: 'error' | 'warning' | 'info' = 'error') => ({ seq: 4, rule, severity, spec: '3', message: `${rule} message` });
    // An unanswered request breaks JSON-RPC's "MUST reply": a pass fails as required, quoting it.
    expect(gradeByChecker({ status: 'pass', why: 'ok', tier: 'advisory' }, [f('unanswered-request')])).toMatchObject({ status: 'fail', tier: 'required', quote: expect.stringContaining('MUST reply') });
    // A method called without its capability: the spec says the method "exists only when" it is true, no "must".
    expect(gradeByChecker({ status: 'pass', why: 'ok', tier: 'required' }, [f('capability-not-advertised')])).toMatchObject({ status: 'fail', tier: 'advisory', quote: expect.stringContaining('no "must"') });
    // Both: the "must" decides.
    expect(gradeByChecker({ status: 'pass', why: 'ok' }, [f('session-unknown'), f('result-and-error')])).toMatchObject({ status: 'fail', tier: 'required', why: expect.stringContaining('result-and-error') });
    // An advisory failure keeps its tier on an advisory error, and becomes required on a "must".
    expect(gradeByChecker({ status: 'fail', why: 'late', tier: 'advisory' }, [f('load-history-after-response')])).toEqual({ status: 'fail', why: 'late' });
    expect(gradeByChecker({ status: 'fail', why: 'late', tier: 'advisory' }, [f('invalid-result')])).toMatchObject({ status: 'fail', tier: 'required' });
    // Warnings and infos never fail a pass.
    expect(gradeByChecker({ status: 'pass', why: 'ok' }, [f('cancel-stop-reason', 'warning'), f('unstable-field', 'info')])).toEqual({ status: 'pass', why: 'ok' });
    expect([tierOfFinding(f('session-unknown')), tierOfFinding(f('unanswered-request')), tierOfFinding(f('x', 'warning')), tierOfFinding(f('x', 'info'))]).toEqual(['advisory', 'required', 'advisory', 'info']);
    // Every rule it counts as required is one of the checker's, an error.
    for (const id of MUST_RULE_IDS) expect(RULES.find((r) => r.id === id)?.severity, id).toBe('error');
  });

  it('gives the probe the findings at its provoking frames and of the rules a scenario declares, the target the rest', () => {
    const f = (seq: number, rule: string) => ({ seq, severity: 'error' as const, rule, message: '', spec: '7' });
    const { target, probe } = attributeFindings([f(2, 'not-json'), f(3, 'invalid-result'), f(5, 'version-mismatch')], new Set([2]), ['version-mismatch']);
    expect(probe.map((x) => x.rule)).toEqual(['not-json', 'version-mismatch']);
    expect(target.map((x) => x.rule)).toEqual(['invalid-result']);
  });
});

describe('ProbeConnection', () => {
  const pair = (timeoutMs = 1000) => {
    const sent: string[] = [];
    const conn = new ProbeConnection({ side: 'client', timeoutMs, write: (l) => sent.push(l) });
    return { conn, sent };
  };

  it('resolves a request with its response and keeps both frames, correlated', async () => {
    const { conn, sent } = pair();
    const p = conn.request('initialize', { protocolVersion: 1 });
    expect(JSON.parse(sent[0]!)).toEqual({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    conn.receive('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}');
    expect((await p).result).toEqual({ protocolVersion: 1 });
    expect(conn.items.map((i) => i.dir)).toEqual(['c2a', 'a2c']);
    expect(conn.frames()[1]).toMatchObject({ replyTo: 1, method: 'initialize' });
  });

  it('marks provocations, answers the peer\'s unknown requests -32601, and keeps a line that is not JSON', () => {
    const { conn, sent } = pair();
    const f = conn.sendRaw('not json', { provoke: true });
    expect(conn.provoked.has(f!.seq)).toBe(true);
    conn.receive('{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{}}');
    expect(JSON.parse(sent[1]!)).toMatchObject({ id: 9, error: { code: -32601 } });
    conn.receive('garbage');
    expect(conn.frames().at(-1)).toMatchObject({ dir: 'a2c', kind: 'invalid', raw: 'garbage' });
  });

  it('sends a batch in one write, each line still its own frame', () => {
    const { conn, sent } = pair();
    conn.batch(() => {
      void conn.request('session/prompt', { sessionId: 's', prompt: [] });
      conn.notify('session/cancel', { sessionId: 's' }, { provoke: true });
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.split('\n').map((l) => JSON.parse(l).method)).toEqual(['session/prompt', 'session/cancel']);
    expect(conn.frames().map((f) => f.method)).toEqual(['session/prompt', 'session/cancel']);
    expect([...conn.provoked]).toEqual([2]);
  });

  it('resolves a request with timeout when unanswered, and with closed when the peer goes away', async () => {
    const { conn } = pair(20);
    expect(await conn.request('x', {})).toEqual({ timeout: true });
    const pending = conn.request('y', {}, { timeoutMs: 10_000 });
    const waiting = conn.waitFor(() => true, 10_000);
    conn.close('gone');
    expect(await pending).toEqual({ closed: true });
    expect(await waiting).toBeUndefined();
    expect(await conn.request('z', {})).toEqual({ closed: true });
  });
});
