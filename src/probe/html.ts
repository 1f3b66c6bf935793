/**
 * The HTML report of a probe run: one self-contained page (no script, inline style allowed by hash,
 * no request of any kind) with the scorecard by tier and, for each scenario that ran, its findings
 * and its exchange line by line, so a failure can be read offline with its evidence. Pure: the caller
 * reads the items from the store.
 */
import type { Item } from '../wire/frame.js';
import { pageHead } from '../report/html.js';
import { targetLabel } from '../view/names.js';
import { TIERS, type ProbeReport, type ScenarioResult } from './report.js';

/** Lines of one exchange shown at most, and characters of one line. */
const MAX_LINES = 400;
const MAX_CHARS = 4000;

export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Escaped text whose `backticked` parts show as code (the scenarios' titles and reasons name methods and fields so). */
const prose = (s: string): string => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
const ARROW: Record<string, string> = { c2a: 'client → agent', a2c: 'agent → client', stderr: 'stderr', event: 'event' };

export const STYLE = `
:root{color-scheme:light dark;--fg:#1d2330;--muted:#667;--bg:#fff;--line:#d8dce3;--pass:#1f7a3a;--fail:#b3261e;--skip:#8a6d00;--info:#2f5d8a}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7ec;--muted:#98a;--bg:#14171c;--line:#2c323c;--pass:#5cc27a;--fail:#ff8a80;--skip:#e0c060;--info:#8ab4f8}}
body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1200px;padding:1.5rem}
h1{font-size:1.4rem;margin:0 0 .3rem}h2{font-size:1.1rem;margin:1.6rem 0 .4rem}
.verdict{font-weight:700;font-size:1.1rem}.verdict.ok{color:var(--pass)}.verdict.bad{color:var(--fail)}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
.st{font-weight:700;text-transform:uppercase;font-size:.8rem}.st.pass{color:var(--pass)}.st.fail{color:var(--fail)}.st.skip{color:var(--skip)}.st.info{color:var(--info)}
.muted{color:var(--muted)}code,pre{font:12px/1.4 ui-monospace,monospace}
details{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;padding:.4rem .7rem}summary{cursor:pointer}
pre{white-space:pre-wrap;word-break:break-all;margin:0}.line{display:grid;grid-template-columns:3.5rem 8.5rem 1fr;gap:.5rem;border-top:1px solid var(--line);padding:.15rem 0}
td:nth-child(3){white-space:nowrap}.line.c2a .dir{color:var(--info)}.line.a2c .dir{color:var(--pass)}.finding{color:var(--fail)}.finding.warning{color:var(--skip)}.finding.info,.finding.probe{color:var(--muted)}
`;

function itemLine(it: Item): string {
  const text = it.dir === 'event' ? `${it.type} ${JSON.stringify(it.data)}` : it.raw;
  const clipped = text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}… (${text.length - MAX_CHARS} more characters)` : text;
  return `<div class="line ${it.dir}" id="s-${it.seq}"><span class="muted">#${it.seq}</span><span class="dir">${ARROW[it.dir] ?? it.dir}</span><pre>${esc(clipped)}</pre></div>`;
}

function scenarioSection(s: ScenarioResult, items: Item[] | undefined): string {
  const findings = [...s.findings.map((f) => ({ f, probe: false })), ...(s.probeFindings ?? []).map((f) => ({ f, probe: true }))]
    .sort((a, b) => a.f.seq - b.f.seq)
    .map(({ f, probe }) => `<li class="finding ${probe ? 'probe' : f.severity}">#${f.seq} ${esc(f.severity)} <code>${esc(f.rule)}</code> (spec ${esc(f.spec)}): ${prose(f.message)}${probe ? ' <em>(caused by the probe on purpose)</em>' : ''}</li>`);
  const lines = items ? items.slice(0, MAX_LINES).map(itemLine).join('') + (items.length > MAX_LINES ? `<p class="muted">… ${items.length - MAX_LINES} more items: acp-inspect show ${s.recording}</p>` : '') : '<p class="muted">The recording is not in the database any more.</p>';
  return `<details id="${esc(s.id)}"${s.status === 'fail' ? ' open' : ''}><summary><span class="st ${s.status}">${s.status}</span> <b>${esc(s.id)}</b> — ${prose(s.title)} <span class="muted">(spec ${esc(s.spec)}, recording #${s.recording})</span></summary>
<p>${prose(s.why)}</p>${findings.length ? `<ul>${findings.join('')}</ul>` : ''}${lines}</details>`;
}

/** The page. `items`: each scenario's recording items by recording id (missing: deleted since). */
export function probeReportHtml(report: ProbeReport, items: ReadonlyMap<number, Item[]>): string {
  const t = report.target;
  const title = `probe ${report.probe}: ${targetLabel(t)} — ${report.verdict}`;
  const c = report.counts;
  const tiers = TIERS.map((tier) => {
    const rows = report.scenarios.filter((s) => s.tier === tier);
    if (!rows.length) return '';
    return `<h2>${tier}</h2><table><thead><tr><th>status</th><th>scenario</th><th>spec</th><th>why</th><th>recording</th></tr></thead><tbody>${rows.map((s) =>
      `<tr><td class="st ${s.status}">${s.status}</td><td><a href="#${esc(s.id)}">${esc(s.id)}</a><div class="muted">${prose(s.title)}</div></td><td>${esc(s.spec)}</td><td>${prose(s.why)}${s.quote ? `<div class="muted">spec: ${prose(s.quote)}</div>` : ''}${s.findings.some((f) => f.severity === 'error') ? `<div class="finding">${s.findings.filter((f) => f.severity === 'error').length} checker error(s)</div>` : ''}</td><td>${s.recording === null ? '' : `<a href="#${esc(s.id)}">#${s.recording}</a>`}</td></tr>`).join('')}</tbody></table>`;
  }).join('');
  const ambient = report.ambient?.length ? `<h2>ambient</h2><p class="muted">Findings outside what any scenario was about, once for the run; a required one counts as one required failure.</p><table><thead><tr><th>tier</th><th>finding</th><th>scenarios</th><th>recording</th></tr></thead><tbody>${report.ambient.map((a) =>
    `<tr><td class="st ${a.tier === 'required' ? 'fail' : 'info'}">${esc(a.tier)}</td><td><code>${esc(a.rule)}</code> (spec ${esc(a.spec)}): ${prose(a.message)}</td><td>${esc(a.scenarios.join(', '))}</td><td>#${a.recording} item ${a.seq}</td></tr>`).join('')}</tbody></table>` : '';
  const details = report.scenarios.filter((s) => s.recording !== null).map((s) => scenarioSection(s, items.get(s.recording!))).join('');
  return `${pageHead(title, STYLE.trim())}
<body>
<h1>${esc(`acp-inspect probe ${report.probe}`)}: ${esc(targetLabel(t))}</h1>
<p class="muted">${t.command ? `<code>${esc(t.command.join(' '))}</code> · ` : ''}${esc(report.startedAt ?? '')}${report.run !== undefined ? ` · probe run ${report.run}` : ''}${report.db ? ` · recordings in ${esc(report.db)}` : ''}</p>
<p class="verdict ${report.verdict === 'conformant' ? 'ok' : 'bad'}">${esc(report.verdict)}</p>
<p>${c.pass} passed · ${c.fail} failed · ${c.skip} skipped · ${c.info} info</p>
${tiers}
${ambient}
<h2>Exchanges</h2>
<p class="muted">Each scenario is a recording: open it with <code>acp-inspect serve</code>, <code>acp-inspect show ID</code>, or export it with <code>acp-inspect export ID</code>.</p>
${details}
</body>
</html>
`;
}
