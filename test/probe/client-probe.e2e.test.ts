/**
 * `acp-inspect probe client` as an editor runs it: the real binary launched by a client as its agent
 * (the SDK's example client, and the test client), the report and the recordings it leaves, and a
 * client that hangs up or a probe that is terminated mid-battery.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProbeReport } from '../../src/probe/report.js';
import { BIN, EXAMPLE_CLIENT, PEERS, ROOT, cli, readmeCodeBlocks, run, sh, tempDir } from '../helpers.js';

/** The report file, once the probe has written it (it may finish after the client that ended it). */
async function reportAt(path: string): Promise<ProbeReport> {
  for (let i = 0; i < 600 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 50));
  return JSON.parse(readFileSync(path, 'utf8')) as ProbeReport;
}

const statusOf = (r: ProbeReport): Record<string, string> => Object.fromEntries(r.scenarios.map((s) => [s.id, s.status]));

describe.concurrent('probe client, launched by a client as its agent', () => {
  it('gives the test client, configured as the docs say, a verdict, a report and a checked recording per scenario', async () => {
    const t = tempDir('acp-probe-e2e-');
    try {
      const db = join(t.dir, 'db.sqlite');
      const report = join(t.dir, 'probe.json');
      const html = join(t.dir, 'probe.html');
      // The editor configuration of docs/probe-client.md, with this test's files.
      const config = JSON.parse(readmeCodeBlocks(readFileSync(join(ROOT, 'docs', 'probe-client.md'), 'utf8'), 'json')[0]!) as { agent_servers: Record<string, { command: string; args: string[] }> };
      const server = Object.values(config.agent_servers)[0]!;
      expect(server.command).toBe('acp-inspect');
      const args = server.args.map((a) => (a === '/tmp/probe.json' ? report : a));
      const r = await run(process.execPath, [join(PEERS, 'probe-client.mjs'), '--', process.execPath, BIN, ...args, '--db', db, '--html', html],
        { cwd: t.dir, env: { PROBE_OUT: join(t.dir, 'seen.json'), PROBE_PROMPT: 'Hello\n---\n/probe fs' } });
      expect(r.code, r.stderr).toBe(0);
      const seen = JSON.parse(readFileSync(join(t.dir, 'seen.json'), 'utf8')) as { stopReasons: string[]; text: string };
      expect(seen.stopReasons).toEqual(['end_turn', 'end_turn']);
      expect(seen.text).toContain('ACP client probe verdict: CONFORMANT');
      expect(seen.text).toContain(`Report: ${report}`);
      // The second prompt (/probe fs) was a second run; the report file holds the last one, and the
      // database both. Every recording of the second run is a whole exchange: nothing to find in it.
      const second = await reportAt(report);
      expect(second.scenarios.map((s) => s.id)).toEqual(['fs-write', 'fs-read', 'fs-read-line-limit', 'fs-read-missing']);
      // Which error a missing file gets is not shown (7 rule 4): reported as info, whatever it is.
      for (const s of second.scenarios) expect({ id: s.id, status: s.status, findings: s.findings }).toEqual({ id: s.id, status: s.id === 'fs-read-missing' ? 'info' : 'pass', findings: [] });
      const { getProbeRun } = await import('../../src/store/probe-runs.js');
      const { Store } = await import('../../src/store/store.js');
      const store = Store.open(db, { readonly: true });
      const rep = getProbeRun(store, second.run! - 1).report as ProbeReport;
      store.close();
      expect(rep).toMatchObject({ probe: 'client', target: { name: 'probe-test-client', version: '1.0.0' }, verdict: 'conformant' });
      expect(rep.counts.fail).toBe(0);
      const ran = rep.scenarios.filter((s) => s.status !== 'skip');
      expect(ran.length).toBeGreaterThan(15);
      for (const s of ran) expect(s.recording, s.id).toEqual(expect.any(Number));
      // The probe's own provocations are its findings, not the client's.
      expect(rep.scenarios.find((s) => s.id === 'unknown-method')!.probeFindings!.map((f) => f.rule)).toContain('unknown-method');
      const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString()) as Array<{ id: number; name: string; status: string }>;
      expect(list.map((x) => x.name)).toContain(`probe client #${rep.run}: fs-read-missing`);
      expect(list.every((x) => x.status === 'complete')).toBe(true);
      expect(readFileSync(html, 'utf8')).toContain('probe-test-client');
      // The scratch files are gone.
      expect(readdirSync(t.dir).filter((f) => f.startsWith('.acp-inspect-probe-'))).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("finds the SDK example client's fs stubs, its unanswered second permission and its missing clientInfo", async () => {
    const t = tempDir('acp-probe-e2e-');
    try {
      const report = join(t.dir, 'probe.json');
      const agent = [process.execPath, BIN, 'probe', 'client', '--db', join(t.dir, 'db.sqlite'), '--report', report, '--timeout', '8000'].map(sh).join(' ');
      // 8 s for each answer: the verdict rests on what the client never answers, so what it does
      // answer must arrive in time on a loaded machine too (2 s was too short at a load of 40).
      // The example client asks on stdin which option to choose; its first question reads all of stdin,
      // so the second permission request is never answered (and its SDK ignores $/cancel_request).
      const r = await run(process.execPath, [EXAMPLE_CLIENT], { input: '1\n1\n', cwd: t.dir, env: { PATH: `${join(PEERS, 'bin')}:${process.env.PATH}`, ACP_TEST_AGENT: agent } });
      expect(r.stdout.toString()).toContain('Agent completed with: end_turn');
      const rep = await reportAt(report);
      expect(rep.verdict).toBe('not conformant');
      expect(rep.target.name).toBeNull();
      const st = statusOf(rep);
      expect(Object.keys(st).filter((id) => st[id] === 'fail').sort()).toEqual(['cancel-request', 'client-info', 'fs-read', 'fs-read-line-limit', 'fs-read-missing', 'fs-write']);
      expect(st['permission-answer']).toBe('pass');
      expect(st['update-unknown-kinds']).toBe('pass');
      expect(st['terminal-kill']).toBe('skip');
      expect(rep.scenarios.find((s) => s.id === 'fs-read-missing')!.why).toMatch(/answered as content "Mock file content", not an error/);
    } finally {
      t.cleanup();
    }
  });

  it('finds a client written on the SDK as editor authors write one conformant', async () => {
    const t = tempDir('acp-probe-e2e-');
    try {
      const report = join(t.dir, 'probe.json');
      const r = await run(process.execPath, [join(PEERS, 'sdk-probe-client.mjs'), '--', process.execPath, BIN, 'probe', 'client', '--db', join(t.dir, 'db.sqlite'), '--report', report],
        { cwd: t.dir, env: { PROBE_OUT: join(t.dir, 'seen.json') } });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(t.dir, 'seen.json'), 'utf8'))).toMatchObject({ stopReason: 'end_turn', text: expect.stringContaining('verdict: CONFORMANT') });
      const rep = await reportAt(report);
      expect(rep).toMatchObject({ verdict: 'conformant', target: { name: 'sdk-probe-client' }, counts: { fail: 0 } });
      // The SDK turns $/cancel_request into an aborted signal, which this client answers cancelled.
      expect(rep.scenarios.find((s) => s.id === 'cancel-request')!.why).toBe('answered with the cancelled outcome');
    } finally {
      t.cleanup();
    }
  });

  it('grades acpx, a headless client from the npm registry: conformant; the error code it gives a missing file is reported (info: not shown, 7 rule 4)', async () => {
    const t = tempDir('acp-probe-e2e-');
    try {
      const report = join(t.dir, 'probe.json');
      mkdirSync(join(t.dir, 'home'));
      const agent = [process.execPath, BIN, 'probe', 'client', '--db', join(t.dir, 'db.sqlite'), '--report', report].map(sh).join(' ');
      const r = await run(join(ROOT, 'node_modules', '.bin', 'acpx'), ['--agent', agent, '--approve-all', '--format', 'quiet', 'exec', 'hello'],
        { cwd: t.dir, env: { HOME: join(t.dir, 'home') } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.toString()).toContain('ACP client probe verdict: CONFORMANT');
      const rep = await reportAt(report);
      expect(rep.target.name).toBe('acpx');
      const st = statusOf(rep);
      expect(Object.keys(st).filter((id) => st[id] === 'fail')).toEqual([]);
      expect(rep.scenarios.find((s) => s.id === 'fs-read-missing')).toMatchObject({ status: 'info', tier: 'info', why: expect.stringMatching(/failed with error -32603 .*-32002, resource not found, is the code for it/) });
      expect(st['terminal-output-limit']).toBe('pass');
    } finally {
      t.cleanup();
    }
  });
});

describe.concurrent('probe client when the run is cut short', () => {
  /** Drives the binary by hand: handshake and one prompt; `onRequest` sees the probe's requests, and those it does not take get -32601. */
  function handDriven(dir: string, onRequest: (method: string, child: ReturnType<typeof spawn>) => boolean) {
    const child = spawn(process.execPath, [BIN, 'probe', 'client', '--db', join(dir, 'db.sqlite'), '--report', join(dir, 'probe.json')], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const send = (o: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...o })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'by-hand', version: '0' } } });
    send({ id: 2, method: 'session/new', params: { cwd: dir, mcpServers: [] } });
    let buf = '';
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const msg = JSON.parse(buf.slice(0, nl)) as { id?: number | string; method?: string; result?: { sessionId?: string } };
        buf = buf.slice(nl + 1);
        if (msg.id === 2 && msg.result?.sessionId) send({ id: 3, method: 'session/prompt', params: { sessionId: msg.result.sessionId, prompt: [{ type: 'text', text: 'hi' }] } });
        else if (msg.method && msg.id !== undefined && !onRequest(msg.method, child)) send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
      }
    });
    return new Promise<number | null>((resolve) => child.on('close', resolve));
  }

  it('reports a client that hangs up mid-battery: what ran graded, that scenario not finished, the rest not run, with the /probe that runs them', async () => {
    const t = tempDir('acp-probe-e2e-');
    try {
      const code = await handDriven(t.dir, (method, child) => method === 'acp-inspect/no_such_method' && !!child.stdin!.end());
      expect(code).toBe(0);
      const rep = await reportAt(join(t.dir, 'probe.json'));
      // Hanging up is the client's choice: nothing that ran failed, so the verdict stands on what ran.
      expect(rep.verdict).toBe('conformant');
      const s = rep.scenarios.find((x) => x.id === 'unknown-method')!;
      expect(s).toMatchObject({ status: 'skip', why: expect.stringMatching(/^not finished: the client disconnected during this scenario, which a client may do, so it is not graded; "\/probe unknown-method [^"]*update-plan[^"]*" runs them$/), recording: expect.any(Number) });
      expect(rep.scenarios.find((x) => x.id === 'handshake')!.status).toBe('pass');
      expect(rep.scenarios.find((x) => x.id === 'update-plan')).toMatchObject({ status: 'skip', recording: null, why: expect.stringMatching(/^not run: the client disconnected during unknown-method; "\/probe unknown-method /) });
    } finally {
      t.cleanup();
    }
  });

  it('reports when the probe itself is terminated mid-battery', async () => {
    const t = tempDir('acp-probe-e2e-');
    try {
      const code = await handDriven(t.dir, (method, child) => method === '_acp-inspect/ping' && child.kill('SIGTERM'));
      expect(code).toBe(0);
      const rep = await reportAt(join(t.dir, 'probe.json'));
      expect(rep.scenarios.find((x) => x.id === 'extension-request')).toMatchObject({ status: 'skip', why: expect.stringMatching(/^not finished: the probe was ended by SIGTERM during this scenario; "\/probe extension-request /) });
      expect(rep.scenarios.find((x) => x.id === 'tool-call-lifecycle')).toMatchObject({ status: 'skip', why: expect.stringMatching(/^not run: the probe was ended by SIGTERM during extension-request; "\/probe /) });
      expect(rep.scenarios.find((x) => x.id === 'unknown-method')!.status).toBe('pass');
    } finally {
      t.cleanup();
    }
  });

  it('reports a client that hangs up after session/new without a prompt', async () => {
    const t = tempDir('acp-probe-e2e-');
    try {
      const lines = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'quitter', version: '1' } } },
        { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: t.dir, mcpServers: [] } },
      ].map((m) => JSON.stringify(m)).join('\n');
      const r = await cli(['probe', 'client', '--db', join(t.dir, 'db.sqlite'), '--report', join(t.dir, 'probe.json')], { input: `${lines}\n` });
      expect(r.code, r.stderr).toBe(0);
      const rep = await reportAt(join(t.dir, 'probe.json'));
      expect(rep).toMatchObject({ verdict: 'not conformant', target: { name: 'quitter' } });
      expect(rep.scenarios[0]).toMatchObject({ id: 'handshake', status: 'fail', recording: expect.any(Number) });
      expect(rep.scenarios[1]).toMatchObject({ status: 'skip', why: 'not run: the client disconnected before sending a prompt' });
    } finally {
      t.cleanup();
    }
  });

  it('refuses an --only naming no scenario, or a report in a missing folder, in one line and before any ACP', async () => {
    const r = await cli(['probe', 'client', '--only', 'fs,nonsense']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('acp-inspect: --only: no scenario or group "nonsense"; see acp-inspect probe client --list');
    const t = tempDir('acp-probe-e2e-');
    try {
      const missing = join(t.dir, 'no-such-folder', 'probe.json');
      const init = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
      const r2 = await cli(['probe', 'client', '--db', join(t.dir, 'db.sqlite'), '--report', missing], { input: init });
      expect(r2.code).toBe(2);
      expect(r2.stderr.trim()).toBe(`acp-inspect: --report ${missing}: the folder ${join(t.dir, 'no-such-folder')} does not exist; create it or write elsewhere`);
      expect(r2.stdout.length).toBe(0);
    } finally {
      t.cleanup();
    }
  });
});
