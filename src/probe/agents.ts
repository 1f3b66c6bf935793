/**
 * `probe agents`: the ecosystem matrix. Runs `probe agent` on each agent a config names (an id, a
 * command, env, cwd, auth) one after another into one database, and builds one matrix: a column per
 * agent, a row per scenario (and one per ambient finding), each cell its result and its recording.
 * An agent that cannot run gets a column saying why; the others still run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { CliError } from '../errors.js';
import { probeAgent } from './agent/run.js';
import { AGENT_SCENARIOS } from './agent/scenarios.js';
import { checkOutputs } from './probe-run.js';
import { STYLE, esc } from './html.js';
import { pageHead } from '../report/html.js';
import { Store } from '../store/store.js';
import { defaultDbPath } from '../store/paths.js';
import { createProbeMatrix, updateProbeMatrix } from '../store/probe-runs.js';
import type { Matrix, MatrixCell, MatrixColumn, ProbeReport, ScenarioStatus } from './report.js';

export type { Matrix, MatrixCell, MatrixColumn };

/** One agent of the config. Relative `cwd` and a relative command path are read from the config's folder. */
export interface MatrixAgent {
  id: string;
  command: string[];
  env?: Record<string, string>;
  /** Where the agent process starts (default: the config's folder). */
  cwd?: string;
  auth?: string;
  timeoutMs?: number;
}

/** Reads and checks the config: `{"agents":[{"id":…,"command":[…],"env":{…},"cwd":…,"auth":…}]}`. */
export function readMatrixConfig(file: string): MatrixAgent[] {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(`--config ${file}: ${code ? `cannot read it (${code})` : 'not JSON'}; it lists the agents: {"agents":[{"id":"my-agent","command":["npx","my-agent"]}]}`, 2);
  }
  const agents = (v as { agents?: unknown })?.agents;
  if (!Array.isArray(agents) || !agents.length) throw new CliError(`--config ${file}: no "agents" array; it lists the agents: {"agents":[{"id":"my-agent","command":["npx","my-agent"]}]}`, 2);
  const base = dirname(resolve(file));
  const seen = new Set<string>();
  return agents.map((a: Record<string, unknown>, i) => {
    const where = `--config ${file}: agent ${i + 1}`;
    if (typeof a?.id !== 'string' || !/^[\w.-]+$/.test(a.id)) throw new CliError(`${where} has no "id" (letters, digits, . _ -)`, 2);
    if (seen.has(a.id)) throw new CliError(`${where}: the id "${a.id}" is used twice`, 2);
    seen.add(a.id);
    if (!Array.isArray(a.command) || !a.command.length || !a.command.every((c) => typeof c === 'string')) throw new CliError(`${where} ("${a.id}") has no "command" array of strings`, 2);
    if (a.env !== undefined && (typeof a.env !== 'object' || a.env === null || !Object.values(a.env).every((x) => typeof x === 'string'))) throw new CliError(`${where} ("${a.id}"): "env" is an object of strings`, 2);
    return {
      id: a.id, command: a.command as string[], env: a.env as Record<string, string> | undefined,
      cwd: resolve(base, typeof a.cwd === 'string' ? a.cwd : '.'),
      auth: typeof a.auth === 'string' ? a.auth : undefined,
      timeoutMs: typeof a.timeoutMs === 'number' ? a.timeoutMs : undefined,
    };
  });
}

export interface ProbeAgentsOptions {
  config: string;
  db?: string;
  timeoutMs?: number;
  parallel?: number;
  json?: boolean;
  html?: string;
  /** Told of each agent as its probe ends. */
  onAgent?: (c: MatrixColumn) => void;
}

/** Runs the matrix; returns it, and its text for stdout. */
export async function probeAgents(opts: ProbeAgentsOptions): Promise<{ matrix: Matrix; text: string }> {
  const agents = readMatrixConfig(opts.config);
  checkOutputs({ html: opts.html });
  const db = resolve(opts.db ?? defaultDbPath());
  const matrix: Matrix = {
    probe: 'agents', db, startedAt: new Date().toISOString(),
    scenarios: AGENT_SCENARIOS.map((s) => ({ id: s.id, tier: s.tier, spec: s.spec, title: s.title })),
    agents: [],
  };
  // The matrix is kept in the store as it grows (the UI's matrix view), each agent's column once its probe ends.
  const store = Store.open(db);
  try {
    matrix.id = createProbeMatrix(store, matrix.startedAt, matrix);
    for (const a of agents) {
      let col: MatrixColumn;
      try {
        const { report } = await probeAgent({
          command: a.command, db, timeoutMs: a.timeoutMs ?? opts.timeoutMs, parallel: opts.parallel, auth: a.auth, startIn: a.cwd,
          env: { ...process.env, ...a.env },
          outputs: opts.html ? { html: agentHtml(opts.html, a.id) } : {},
        });
        col = columnOf(a.id, report);
      } catch (e) {
        if (!(e instanceof CliError)) throw e;
        col = { id: a.id, name: null, version: null, verdict: null, couldNotRun: e.message, cells: {}, ambient: {} };
      }
      matrix.agents.push(col);
      updateProbeMatrix(store, matrix.id, matrix, matrix.agents.length === agents.length);
      opts.onAgent?.(col);
    }
  } finally {
    store.close();
  }
  if (opts.html) writeFileSync(opts.html, matrixHtml(matrix, opts.html));
  return { matrix, text: opts.json ? `${JSON.stringify(matrix, null, 2)}\n` : matrixText(matrix) };
}

/** The exit status: 0 every agent conformant, 1 one is not, 2 one could not be probed. */
export const matrixExitCode = (m: Matrix): 0 | 1 | 2 => (m.agents.some((a) => a.couldNotRun) ? 2 : m.agents.some((a) => a.verdict !== 'conformant') ? 1 : 0);

function columnOf(id: string, r: ProbeReport): MatrixColumn {
  const cells: Record<string, MatrixCell> = {};
  for (const s of r.scenarios) cells[s.id] = { status: s.status, tier: s.tier, why: s.why, recording: s.recording };
  const ambient: MatrixColumn['ambient'] = {};
  for (const a of r.ambient ?? []) ambient[a.rule] = { tier: a.tier, recording: a.recording, message: a.message };
  return { id, name: r.target.name, version: r.target.version, verdict: r.verdict, run: r.run, durationMs: r.durationMs, handshakeMs: r.handshakeMs, cells, ambient };
}

/** The per-agent report written beside the matrix's HTML: `matrix.html` → `matrix-ID.html`. */
function agentHtml(html: string, id: string): string {
  const ext = extname(html);
  return join(dirname(html), `${basename(html, ext)}-${id}${ext || '.html'}`);
}

const MARK: Record<ScenarioStatus, string> = { pass: 'pass', fail: 'FAIL', skip: 'skip', info: 'info' };
const cellText = (c: MatrixCell | undefined): string => (c ? `${MARK[c.status]}${c.status === 'fail' && c.tier !== 'required' && c.tier !== 'capability' ? `(${c.tier[0]})` : ''}` : '—');

function ambientRules(m: Matrix): string[] {
  return [...new Set(m.agents.flatMap((a) => Object.keys(a.ambient)))];
}

/** The matrix as text: a row per scenario, a column per agent. */
export function matrixText(m: Matrix): string {
  const idW = Math.max(10, ...m.scenarios.map((s) => s.id.length), ...ambientRules(m).map((r) => r.length + 9));
  const colW = m.agents.map((a) => Math.max(a.id.length, 8));
  const row = (head: string, cells: string[]) => `${head.padEnd(idW)}  ${cells.map((c, i) => c.padEnd(colW[i]!)).join('  ')}`.trimEnd();
  const lines = [row('scenario', m.agents.map((a) => a.id)), row('', m.agents.map((a) => a.version ?? ''))];
  for (const s of m.scenarios) lines.push(row(s.id, m.agents.map((a) => cellText(a.cells[s.id]))));
  for (const r of ambientRules(m)) lines.push(row(`ambient: ${r}`, m.agents.map((a) => (a.ambient[r] ? (a.ambient[r]!.tier === 'required' ? 'FAIL' : a.ambient[r]!.tier) : ''))));
  lines.push(row('verdict', m.agents.map((a) => (a.couldNotRun ? 'no run' : a.verdict === 'conformant' ? 'ok' : 'NOT OK'))));
  lines.push(row('time', m.agents.map((a) => (a.durationMs !== undefined ? `${(a.durationMs / 1000).toFixed(1)} s` : ''))));
  lines.push('', 'FAIL(a): advisory, FAIL(i)/(u): info or unstable: reported, never decides. A cell\'s recording: acp-inspect show ID (the --json matrix has the ids).');
  for (const a of m.agents) if (a.couldNotRun) lines.push(`${a.id}: could not run: ${a.couldNotRun}`);
  if (m.db) lines.push(`Recordings in ${m.db}; each agent is a probe run (${m.agents.filter((a) => a.run !== undefined).map((a) => `${a.id} #${a.run}`).join(', ')}).`);
  if (m.id !== undefined) lines.push(`In the UI: acp-inspect serve${m.db ? ` --db ${m.db}` : ''}, then open probe matrix #${m.id} from the recordings list (?matrix=${m.id}).`);
  return `${lines.join('\n')}\n`;
}

/** The matrix as one offline page; each cell links to the agent's own report at that scenario. */
export function matrixHtml(m: Matrix, html: string): string {
  const link = (a: MatrixColumn, anchor: string, text: string): string => (a.couldNotRun ? esc(text) : `<a href="${esc(basename(agentHtml(html, a.id)))}#${esc(anchor)}">${esc(text)}</a>`);
  const head = `<tr><th>scenario</th>${m.agents.map((a) => `<th>${esc(a.id)}<div class="muted">${esc([a.name, a.version].filter(Boolean).join(' '))}</div></th>`).join('')}</tr>`;
  const rows = m.scenarios.map((s) => `<tr><td><b>${esc(s.id)}</b> <span class="muted">${esc(s.tier)} · ${esc(s.spec)}</span><div class="muted">${esc(s.title)}</div></td>${m.agents.map((a) => {
    const c = a.cells[s.id];
    if (!c) return '<td class="muted">—</td>';
    return `<td class="st ${c.status}" title="${esc(`${c.tier}: ${c.why}`)}">${link(a, s.id, `${c.status}${c.status === 'fail' ? ` (${c.tier})` : ''}`)}${c.recording !== null ? ` <span class="muted">#${c.recording}</span>` : ''}</td>`;
  }).join('')}</tr>`).join('');
  const amb = ambientRules(m).map((r) => `<tr><td>ambient: <code>${esc(r)}</code></td>${m.agents.map((a) => {
    const x = a.ambient[r];
    return x ? `<td class="st ${x.tier === 'required' ? 'fail' : 'info'}" title="${esc(x.message)}">${esc(x.tier)} <span class="muted">#${x.recording}</span></td>` : '<td></td>';
  }).join('')}</tr>`).join('');
  const verdicts = `<tr><th>verdict</th>${m.agents.map((a) => `<td class="st ${a.verdict === 'conformant' ? 'pass' : 'fail'}">${esc(a.couldNotRun ? `could not run: ${a.couldNotRun}` : a.verdict ?? '')}${a.durationMs !== undefined ? `<div class="muted">${(a.durationMs / 1000).toFixed(1)} s</div>` : ''}</td>`).join('')}</tr>`;
  return `${pageHead('acp-inspect probe agents: the matrix', STYLE.trim())}
<body>
<h1>acp-inspect probe agents</h1>
<p class="muted">${esc(m.startedAt)}${m.db ? ` · recordings in ${esc(m.db)}` : ''} · a cell links to that agent's report at that scenario, where its exchange is</p>
<table><thead>${head}</thead><tbody>${rows}${amb}${verdicts}</tbody></table>
</body>
</html>
`;
}
