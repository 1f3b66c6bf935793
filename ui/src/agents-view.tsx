/**
 * Agent versions compared across the recordings of the store: for each agent name, one column per
 * version with its prompt turn durations and latency percentiles per method, so a release that
 * answers `session/prompt` slower than the one before shows at a glance.
 */
import { useEffect, useState } from 'preact/hooks';
import { server, type AgentRow } from './api.js';
import { recordings } from './model.js';
import { fmtMs } from './format.js';

export function AgentsCompare() {
  const [rows, setRows] = useState<AgentRow[] | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const n = recordings.value.length;
  useEffect(() => {
    if (!open) return;
    server.agents().then(setRows).catch((e: Error) => setErr(e.message));
  }, [open, n]);
  const byName = new Map<string, AgentRow[]>();
  for (const r of rows ?? []) byName.set(r.name ?? '(unnamed agent)', [...(byName.get(r.name ?? '(unnamed agent)') ?? []), r]);
  return (
    <details class="agents-compare" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Compare agents and versions across recordings</summary>
      {err && <p class="bad">{err}</p>}
      {open && !rows && !err && <p class="muted">Loading…</p>}
      {[...byName.entries()].map(([name, versions]) => {
        const methods = [...new Set(versions.flatMap((v) => v.methods.map((m) => m.method)))];
        const cell = (v: AgentRow, m: string) => v.methods.find((x) => x.method === m);
        // The slowest p50 of a method across versions is marked, when versions differ by over 20 %.
        const slowest = (m: string) => {
          const p = versions.map((v) => cell(v, m)?.p50 ?? null).filter((x): x is number => x !== null);
          return p.length > 1 && Math.max(...p) > 1.2 * Math.min(...p) ? Math.max(...p) : null;
        };
        return (
          <section key={name} aria-label={`Agent ${name}`}>
            <h3>{name}</h3>
            <table class="stats agents-table">
              <thead>
                <tr><th scope="col">per version</th>{versions.map((v) => <th key={v.version ?? ''} scope="col" class="num">{v.version ?? '(no version)'}</th>)}</tr>
              </thead>
              <tbody>
                <tr><th scope="row">recordings</th>{versions.map((v) => <td key={v.version ?? ''} class="num">{v.recordings.length}</td>)}</tr>
                <tr><th scope="row">prompt turns · p50 · p90</th>{versions.map((v) => <td key={v.version ?? ''} class="num">{v.turns} · {fmtMs(v.turnP50)} · {fmtMs(v.turnP90)}</td>)}</tr>
                <tr><th scope="row">error responses</th>{versions.map((v) => <td key={v.version ?? ''} class={`num${v.errors ? ' bad' : ''}`}>{v.errors}</td>)}</tr>
                {methods.map((m) => {
                  const worst = slowest(m);
                  return (
                    <tr key={m} data-method={m}>
                      <th scope="row"><code>{m}</code> <span class="muted">p50 · p99 (n)</span></th>
                      {versions.map((v) => {
                        const c = cell(v, m);
                        return <td key={v.version ?? ''} class={`num${worst !== null && c?.p50 === worst ? ' warn' : ''}`} title={worst !== null && c?.p50 === worst ? 'the slowest version for this method' : undefined}>
                          {c ? `${fmtMs(c.p50)} · ${fmtMs(c.p99)} (${c.answered})` : ''}</td>;
                      })}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>
        );
      })}
      {rows && rows.length === 0 && <p class="muted">No recording yet.</p>}
    </details>
  );
}
