/**
 * Probe runs (acp-inspect probe agent|client): a run's scorecard by
 * tier, each scenario linking to its recording (an ordinary recording: timeline, findings, export).
 */
import { useEffect, useState } from 'preact/hooks';
import { server, serverApi, type ProbeReport, type ProbeRunSummary, type ScenarioResult } from './api.js';
import { probeId, matrixId, recId, writeUrl, openRecording } from './model.js';
import { probeRunOf } from './home-entries.js';
import { fmtDate, fmtMs } from './format.js';
import { targetLabel } from '../../src/view/names.js';
import { InlineCode } from './markdown.js';

/** The tiers in the order both the scorecard and the matrix show them, with their headings. */
export const TIERS: Array<[ScenarioResult['tier'], string]> = [
  ['required', 'Required'], ['capability', 'Capability (when advertised)'], ['advisory', 'Advisory (does not change the verdict)'], ['info', 'Info (not graded)'],
  ['unstable', 'Unstable (not part of the specification; never decides)'],
];

/** Opens a probe run's scorecard (null: back to the list). */
export function openProbe(id: number | null): void {
  probeId.value = id;
  matrixId.value = null;
  recId.value = null;
  writeUrl(true);
  if (id === null) void openRecording(null);
}

/** Opens a scenario's recording from a scorecard or a matrix. */
export function openScenarioRecording(id: number): void {
  probeId.value = null;
  matrixId.value = null;
  recId.value = id;
  writeUrl(true);
  void openRecording(id);
}

/** The pill class of a verdict. */
export const verdictClass = (v: string | null) => (v === 'conformant' ? 'ok' : v === 'not conformant' ? 'live' : '');

/** One probe run as a scorecard. */
export function ProbeScorecard({ id }: { id: number }) {
  const [run, setRun] = useState<(ProbeRunSummary & { report: ProbeReport | null }) | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => { setRun(null); setErr(null); server.probe(id).then(setRun).catch((e: Error) => setErr(e.message)); }, [id]);
  if (err) return <main class="panel"><p class="bad" role="alert">{err}</p></main>;
  if (!run) return <main class="panel"><p class="muted">Loading…</p></main>;
  const r = run.report;
  if (!r) return <main class="panel"><h1>probe {run.probe} #{run.id}</h1><p class="muted">{run.endedAt ? 'This run could not run its scenarios.' : 'This run has not finished yet.'}</p></main>;
  const t = r.target;
  return (
    <main class="probe-card" aria-label={`Probe run ${run.id}`}>
      <div class="rec-title">
        <h1>probe {r.probe}: {targetLabel(t)}</h1>
        <span class={`pill verdict ${verdictClass(r.verdict)}`} data-verdict={r.verdict}>{r.verdict}</span>
        <span class="muted">{[t.command?.join(' '), fmtDate(r.startedAt ?? run.startedAt), r.durationMs !== undefined && fmtMs(r.durationMs),
          `${r.counts.pass} passed · ${r.counts.fail} failed · ${r.counts.skip} skipped · ${r.counts.info} info`].filter(Boolean).join(' · ')}</span>
      </div>
      {TIERS.map(([tier, title]) => {
        const rows = r.scenarios.filter((s) => s.tier === tier);
        if (!rows.length) return null;
        return (
          <section key={tier} aria-label={title}>
            <h2>{title}</h2>
            <table class="rec-table probe-table">
              <thead><tr><th scope="col">status</th><th scope="col">scenario</th><th scope="col">spec</th><th scope="col">why</th><th scope="col">recording</th></tr></thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.id} data-scenario={s.id} class={`st-${s.status}`}>
                    <td><span class={`pill probe-st ${s.status}`}>{s.status}</span></td>
                    <td><b>{s.id}</b><div class="muted"><InlineCode text={s.title} /></div></td>
                    <td>{s.spec}</td>
                    <td><InlineCode text={s.why} />{s.quote && <div class="muted">spec: <InlineCode text={s.quote} /></div>}{s.findings.filter((f) => f.severity === 'error').map((f) => <div key={`${f.seq}-${f.rule}`} class="bad">#{f.seq} {f.rule} ({f.spec}): <InlineCode text={f.message} /></div>)}</td>
                    <td>{s.recording !== null && <a href={`?rec=${s.recording}`} onClick={(e) => { e.preventDefault(); openScenarioRecording(s.recording!); }}>#{s.recording}</a>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        );
      })}
      {!!r.ambient?.length && (
        <section aria-label="Ambient findings">
          <h2>Ambient (outside what any scenario was about; once for the run)</h2>
          <table class="rec-table probe-table">
            <thead><tr><th scope="col">tier</th><th scope="col">finding</th><th scope="col">scenarios</th><th scope="col">recording</th></tr></thead>
            <tbody>
              {r.ambient.map((a) => (
                <tr key={a.rule} data-ambient={a.rule}>
                  <td><span class={`pill probe-st ${a.tier === 'required' ? 'fail' : 'info'}`}>{a.tier}</span></td>
                  <td><b>{a.rule}</b> ({a.spec}): <InlineCode text={a.message} /></td>
                  <td>{a.scenarios.join(', ')}</td>
                  <td><a href={`?rec=${a.recording}`} onClick={(e) => { e.preventDefault(); openScenarioRecording(a.recording); }}>#{a.recording}</a></td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </main>
  );
}

/** In a scenario's recording, a link back to its probe run's scorecard (recordings are named "probe agent #RUN: SCENARIO"). */
export function ProbeRunLink({ name }: { name: string | null }) {
  const of = probeRunOf(name);
  if (!of || !serverApi()) return null;
  const id = of.run;
  return <a class="probe-back" href={`?probe=${id}`} onClick={(e) => { e.preventDefault(); openProbe(id); }}>scorecard of probe run #{id}</a>;
}
