/**
 * A probe matrix (acp-inspect probe agents): a column per agent (its name, version, verdict and
 * time), a row per scenario grouped by tier, each cell its result linking to that scenario's
 * recording in the timeline. Read from the matrix's own row: no frame is loaded to draw it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { server, type MatrixCell, type MatrixColumn, type ProbeMatrixSummary } from './api.js';
import { matrixId, probeId, recId, writeUrl, openRecording } from './model.js';
import { TIERS, openProbe, openScenarioRecording, verdictClass } from './probe-view.js';
import { fmtDate, fmtMs } from './format.js';
import { InlineCode } from './markdown.js';

/** Opens a probe matrix (null: back to the list). */
export function openMatrix(id: number | null): void {
  matrixId.value = id;
  probeId.value = null;
  recId.value = null;
  writeUrl(true);
  if (id === null) void openRecording(null);
}

const MARK: Record<MatrixCell['status'], string> = { pass: '✓ pass', fail: '✗ fail', skip: '– skip', info: 'i info' };

/** A link to a recording of the matrix, or its number struck out when it was deleted since. */
function RecLink({ id, gone, label, children }: { id: number; gone: ReadonlySet<number>; label: string; children: ComponentChildren }) {
  if (gone.has(id)) return <span class="muted" title={`recording #${id} was deleted`}>{children} <s>#{id}</s></span>;
  return <a href={`?rec=${id}`} aria-label={label} onClick={(e) => { e.preventDefault(); openScenarioRecording(id); }}>{children}</a>;
}

function Cell({ scenario, a, gone }: { scenario: string; a: MatrixColumn; gone: ReadonlySet<number> }) {
  if (a.couldNotRun) return <td data-agent={a.id} class="mx-cell st-none"><span class="pill probe-st none" title={a.couldNotRun}>could not run</span></td>;
  const c = a.cells[scenario];
  if (!c) return <td data-agent={a.id} class="mx-cell muted">—</td>;
  const mark = <span class={`pill probe-st ${c.status}`}>{MARK[c.status]}</span>;
  return (
    <td data-agent={a.id} data-status={c.status} class={`mx-cell st-${c.status}`} title={`${c.tier}: ${c.why}`}>
      {c.recording === null ? mark : <RecLink id={c.recording} gone={gone} label={`${scenario} on ${a.id}: ${c.status}, recording #${c.recording}`}>{mark}</RecLink>}
    </td>
  );
}

function AgentHead({ a }: { a: MatrixColumn }) {
  return (
    <th scope="col" data-agent={a.id} class="mx-agent">
      <div><b>{a.id}</b></div>
      <div class="muted">{[a.name, a.version].filter(Boolean).join(' ') || '—'}</div>
      {a.couldNotRun
        ? <span class="pill" data-verdict="could not run" title={a.couldNotRun}>could not run</span>
        : <span class={`pill verdict ${verdictClass(a.verdict)}`} data-verdict={a.verdict ?? ''}>{a.verdict}</span>}
      <div class="muted mx-time">{a.durationMs !== undefined ? fmtMs(a.durationMs) : ''}</div>
      {a.run !== undefined && <a href={`?probe=${a.run}`} onClick={(e) => { e.preventDefault(); openProbe(a.run!); }}>probe run #{a.run}</a>}
      {a.couldNotRun && <div class="bad mx-why"><InlineCode text={a.couldNotRun} /></div>}
    </th>
  );
}

/** One probe matrix. */
export function MatrixView({ id }: { id: number }) {
  const [data, setData] = useState<Awaited<ReturnType<typeof server.matrix>> | null>(null);
  const [others, setOthers] = useState<ProbeMatrixSummary[]>([]);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    setData(null); setErr(null);
    server.matrix(id).then(setData).catch((e: Error) => setErr(e.message));
    server.matrices().then(setOthers).catch(() => setOthers([]));
  }, [id]);
  if (err) return <main class="panel"><p class="bad" role="alert">{err}</p></main>;
  if (!data) return <main class="panel"><p class="muted">Loading…</p></main>;
  const m = data.matrix;
  const gone = new Set(data.gone);
  const ambient = [...new Set(m.agents.flatMap((a) => Object.keys(a.ambient)))];
  const cols = m.agents.length + 1;
  const rest = others.filter((o) => o.id !== id);
  return (
    <main class="probe-card probe-matrix" aria-label={`Probe matrix ${id}`}>
      <div class="rec-title">
        <h1>probe agents: matrix #{id}</h1>
        <span class="muted">{[fmtDate(data.startedAt), `${m.agents.length} agent${m.agents.length === 1 ? '' : 's'}`,
          data.endedAt ? null : 'not finished: still running, or interrupted'].filter(Boolean).join(' · ')}</span>
      </div>
      {rest.length > 0 && <p class="muted">Other matrices: {rest.map((o, i) => <span key={o.id}>{i ? ' · ' : ''}<a href={`?matrix=${o.id}`} onClick={(e) => { e.preventDefault(); openMatrix(o.id); }}>#{o.id}</a> ({o.agents.map((a) => a.id).join(', ')})</span>)}</p>}
      {!m.agents.length ? <p class="muted">No agent has finished its probe yet.</p> : (
        <div class="mx-scroll">
          <table class="rec-table probe-table matrix-table">
            <thead><tr><th scope="col">scenario</th>{m.agents.map((a) => <AgentHead key={a.id} a={a} />)}</tr></thead>
            {TIERS.map(([tier, title]) => {
              const rows = m.scenarios.filter((s) => s.tier === tier);
              if (!rows.length) return null;
              return (
                <tbody key={tier} data-tier={tier} aria-label={title}>
                  <tr class="mx-tier"><th scope="colgroup" colSpan={cols}>{title}</th></tr>
                  {rows.map((s) => (
                    <tr key={s.id} data-scenario={s.id}>
                      <th scope="row"><b>{s.id}</b> <span class="muted">{s.spec}</span><div class="muted"><InlineCode text={s.title} /></div></th>
                      {m.agents.map((a) => <Cell key={a.id} scenario={s.id} a={a} gone={gone} />)}
                    </tr>
                  ))}
                </tbody>
              );
            })}
            {ambient.length > 0 && (
              <tbody data-tier="ambient" aria-label="Ambient findings">
                <tr class="mx-tier"><th scope="colgroup" colSpan={cols}>Ambient (outside what any scenario was about; once per agent)</th></tr>
                {ambient.map((rule) => (
                  <tr key={rule} data-ambient={rule}>
                    <th scope="row"><b>{rule}</b></th>
                    {m.agents.map((a) => {
                      const x = a.ambient[rule];
                      if (!x) return <td key={a.id} data-agent={a.id} class="mx-cell" />;
                      return <td key={a.id} data-agent={a.id} class="mx-cell" title={x.message}><RecLink id={x.recording} gone={gone} label={`${rule} on ${a.id}: ${x.tier}, recording #${x.recording}`}><span class={`pill probe-st ${x.tier === 'required' ? 'fail' : 'info'}`}>{x.tier}</span></RecLink></td>;
                    })}
                  </tr>
                ))}
              </tbody>
            )}
          </table>
        </div>
      )}
      <p class="muted">A cell opens its scenario's recording in the timeline; hover it for why. Advisory, info and unstable results never decide the verdict.</p>
    </main>
  );
}

/** On the recordings list: a link to the newest probe matrix, when the store holds any. */
export function MatrixLink() {
  const [list, setList] = useState<ProbeMatrixSummary[]>([]);
  useEffect(() => { server.matrices().then(setList).catch(() => setList([])); }, []);
  const newest = list[0];
  if (!newest) return null;
  return (
    <a class="matrix-link" href={`?matrix=${newest.id}`} onClick={(e) => { e.preventDefault(); openMatrix(newest.id); }}
      title={`${newest.agents.map((a) => `${a.id}: ${a.couldNotRun ? 'could not run' : a.verdict ?? 'running'}`).join(', ')}`}>
      Probe matrix{list.length > 1 ? ` (${list.length})` : ''}
    </a>
  );
}
