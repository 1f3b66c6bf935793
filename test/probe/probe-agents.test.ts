/**
 * `acp-inspect probe agents`: several agents from a config, one matrix (a column per agent, a row
 * per scenario), as text, JSON and an offline page whose cells link each agent's report, through the
 * real binary, real agent processes and a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PEERS, cli, tempDir } from '../helpers.js';
import type { Matrix } from '../../src/probe/agents.js';

const AGENT = join(PEERS, 'probe-agent.mjs');
let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('acp-probe-agents-'); });
afterAll(() => tmp?.cleanup());

describe('probe agents', () => {
  it.concurrent('probes every agent of the config into one matrix; one that cannot run gets a column saying why', async () => {
    const config = join(tmp.dir, 'agents.json');
    writeFileSync(config, JSON.stringify({
      agents: [
        { id: 'clean', command: [process.execPath, AGENT], env: { PROBE_AGENT_STORE: tmp.dir } },
        // A relative command runs in the agent's cwd, here the config's folder.
        { id: 'refuses-links', command: [process.execPath, 'agent.mjs'], cwd: '.', env: { PROBE_AGENT_DEFECT: 'resource-link-refused', PROBE_AGENT_STORE: tmp.dir } },
        { id: 'broken', command: [process.execPath, '-e', 'console.error("no key"); process.exit(3)'] },
      ],
    }));
    writeFileSync(join(tmp.dir, 'agent.mjs'), `import(${JSON.stringify(AGENT)});\n`);
    const db = join(tmp.dir, 'm.sqlite');
    const html = join(tmp.dir, 'matrix.html');
    const r = await cli(['probe', 'agents', '--config', config, '--db', db, '--json', '--html', html, '--timeout', '4000'], { timeoutMs: 120_000 });
    const m = JSON.parse(r.stdout.toString()) as Matrix;
    expect(m.agents.map((a) => [a.id, a.verdict])).toEqual([['clean', 'conformant'], ['refuses-links', 'not conformant'], ['broken', null]]);
    expect(m.agents[2]!.couldNotRun).toBe('the agent exited (code 3) before answering initialize: no key');
    expect(r.code).toBe(2);
    expect(m.scenarios.map((s) => s.id)).toContain('prompt-resource-link');
    expect(m.agents[0]!.cells['prompt-resource-link']).toMatchObject({ status: 'pass', tier: 'required', recording: expect.any(Number) });
    expect(m.agents[1]!.cells['prompt-resource-link']).toMatchObject({ status: 'fail', tier: 'required', why: expect.stringContaining('resource_link got error -32602') });
    expect(m.agents[1]!.cells['prompt-resource-link']!.recording).not.toBe(m.agents[0]!.cells['prompt-resource-link']!.recording);
    // Each cell's recording is in the database, named after its agent's probe run.
    const shown = await cli(['show', String(m.agents[1]!.cells['prompt-resource-link']!.recording), '--db', db]);
    expect(shown.stdout.toString()).toContain(`recording ${m.agents[1]!.cells['prompt-resource-link']!.recording} "probe agent #${m.agents[1]!.run}: prompt-resource-link"`);
    expect(shown.stdout.toString()).toMatch(/C←A error +session\/prompt/);
    // The page: a cell links the agent's own report at that scenario, written beside it.
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('href="matrix-refuses-links.html#prompt-resource-link"');
    expect(readFileSync(join(tmp.dir, 'matrix-refuses-links.html'), 'utf8')).toContain('id="prompt-resource-link"');
    expect(existsSync(join(tmp.dir, 'matrix-broken.html'))).toBe(false);
    expect(page).toContain('could not run: the agent exited (code 3)');
  });

  it.concurrent('prints the matrix as text, and refuses a config it cannot use in one line', async () => {
    const config = join(tmp.dir, 'one.json');
    writeFileSync(config, JSON.stringify({ agents: [{ id: 'clean', command: [process.execPath, AGENT], env: { PROBE_AGENT_STORE: tmp.dir } }] }));
    const r = await cli(['probe', 'agents', '--config', config, '--db', join(tmp.dir, 'one.sqlite'), '--timeout', '4000'], { timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    const text = r.stdout.toString();
    expect(text).toMatch(/^scenario\s+clean\n/);
    expect(text).toMatch(/\nprompt-resource-link\s+pass\n/);
    expect(text).toMatch(/\nverdict\s+ok\n/);
    const missing = await cli(['probe', 'agents', '--config', join(tmp.dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^acp-inspect: --config .*nope\.json: cannot read it \(ENOENT\); it lists the agents: /);
    writeFileSync(join(tmp.dir, 'bad.json'), JSON.stringify({ agents: [{ id: 'x', command: 'node agent.js' }] }));
    const bad = await cli(['probe', 'agents', '--config', join(tmp.dir, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`acp-inspect: --config ${join(tmp.dir, 'bad.json')}: agent 1 ("x") has no "command" array of strings\n`);
  });
});
