/**
 * Insights (the Stats view, grown up): the automatic insights first, each linking to its frames,
 * then latency per method (histogram, p50/p90/p99/max), turns (time to first chunk, duration and
 * who the time went to), tool calls by kind, permission waits, throughput over time, the slowest
 * requests, errors by code and the traffic per method. Charts are plain SVG: three small shapes
 * (histogram bars, a stacked bar, an area line) need no library, stay in the self-contained report
 * at no cost, and carry their numbers as text for screen readers.
 */
import { useEffect, useState } from 'preact/hooks';
import { source, type Insights, type MethodStats } from './api.js';
import { recId, jumpTo, applyFilter, setView, current } from './model.js';
import { LATENCY_BUCKETS } from '../../src/view/insights.js';
import { fmtDuration } from '../../src/view/waterfall.js';
import { fmtClock, fmtMs, fmtSize } from './format.js';

function SeqLink({ seq, label }: { seq: number; label?: string }) {
  return <button type="button" class="link seq-link" title={`Show #${seq} in the timeline`} onClick={() => void jumpTo(seq)}>{label ?? `#${seq}`}</button>;
}

const bucketLabel = (i: number) => (i < LATENCY_BUCKETS.length ? `≤ ${fmtMs(LATENCY_BUCKETS[i]!)}` : `> ${fmtMs(LATENCY_BUCKETS[LATENCY_BUCKETS.length - 1]!)}`);

/** A latency histogram: one bar per bucket, heights relative to the fullest bucket. */
function Histogram({ counts }: { counts: number[] }) {
  const max = Math.max(1, ...counts);
  const w = 6;
  const h = 22;
  const text = counts.map((n, i) => (n ? `${bucketLabel(i)}: ${n}` : '')).filter(Boolean).join(', ');
  return (
    <svg class="hist" width={counts.length * w} height={h} role="img" aria-label={`latency histogram: ${text}`}>
      {counts.map((n, i) => {
        const bh = n ? Math.max(2, (n / max) * h) : 0;
        return <rect key={i} x={i * w} y={h - bh} width={w - 1} height={bh}><title>{`${bucketLabel(i)}: ${n}`}</title></rect>;
      })}
    </svg>
  );
}

/** The agent, editor and user parts of a turn as one stacked bar. */
function Split({ agent, client, user }: { agent: number; client: number; user: number }) {
  const total = Math.max(1e-9, agent + client + user);
  const W = 120;
  const a = (agent / total) * W;
  const c = (client / total) * W;
  const u = (user / total) * W;
  return (
    <svg class="split-bar" width={W} height={10} role="img" aria-label={`agent ${fmtDuration(agent)}, editor ${fmtDuration(client)}, user ${fmtDuration(user)}`}>
      <rect class="own-agent" x={0} y={0} width={a} height={10} />
      <rect class="own-client" x={a} y={0} width={c} height={10} />
      <rect class="own-user" x={a + c} y={0} width={u} height={10} />
    </svg>
  );
}

/** Frames/s or bytes/s over the recording: an area line with its peak labelled. */
function Rate({ values, bucketMs, start, unit, fmt }: { values: number[]; bucketMs: number; start: number; unit: string; fmt: (n: number) => string }) {
  const W = 480;
  const H = 60;
  const per = values.map((v) => v / (bucketMs / 1000));
  const max = Math.max(1e-9, ...per);
  const step = W / Math.max(1, per.length);
  const pts = per.map((v, i) => `${(i * step + step / 2).toFixed(1)},${(H - (v / max) * (H - 4)).toFixed(1)}`);
  const peak = per.indexOf(Math.max(...per));
  return (
    <figure class="rate">
      <svg width={W} height={H} role="img" aria-label={`${unit} over time, peak ${fmt(max)} at ${fmtClock(start + peak * bucketMs)}`}>
        <polygon class="rate-area" points={`0,${H} ${pts.join(' ')} ${W},${H}`} />
        <polyline class="rate-line" points={pts.join(' ')} />
      </svg>
      <figcaption>{unit} · peak {fmt(max)} at {fmtClock(start + peak * bucketMs)} · {fmtDuration(bucketMs)} buckets</figcaption>
    </figure>
  );
}

/** Rows shown per long table (turns, permission waits) before "show more". */
const SHOWN = 100;

function More({ total, shown, onMore, what }: { total: number; shown: number; onMore: () => void; what: string }) {
  if (total <= shown) return null;
  return <button type="button" onClick={onMore}>Show {Math.min(SHOWN, total - shown)} more of {total - shown} {what}</button>;
}

export function InsightsView() {
  const id = recId.value;
  const items = current.value?.items;
  const [ins, setIns] = useState<Insights | null>(null);
  const [stats, setStats] = useState<MethodStats[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState(SHOWN);
  useEffect(() => {
    if (id === null) return;
    source.insights(id).then(setIns).catch((e: Error) => setError(e.message));
    source.stats(id).then(setStats).catch(() => undefined);
  }, [id, items]);
  if (error) return <div class="panel"><p class="bad">{error}</p></div>;
  if (!ins) return <div class="panel"><p class="muted">Computing insights…</p></div>;
  const filterMethod = (m: string) => { setView('timeline'); void applyFilter(`method:${m}`, null); };
  return (
    <div class="panel insights">
      <p class="muted">{ins.frames.toLocaleString()} frames · {fmtSize(ins.bytes)} · {fmtDuration(ins.durationMs)}</p>
      <section aria-labelledby="ins-lead">
        <h2 id="ins-lead">Worth a look first</h2>
        {ins.insights.length === 0 ? <p class="muted">Nothing stands out: no long tail, outlier, error burst, waiting turn or unfinished tool call.</p> : (
          <ul class="insight-list">
            {ins.insights.map((x, i) => (
              <li key={i} class={`insight ins-${x.severity}`} data-kind={x.kind}>
                <strong>{x.title}</strong>
                <div class="muted">{x.detail}</div>
                <div class="ins-links">{x.seqs.slice(0, 12).map((s) => <SeqLink key={s} seq={s} />)}{x.seqs.length > 12 && <span class="muted"> … {x.seqs.length - 12} more</span>}</div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="ins-lat">
        <h2 id="ins-lat">Latency per method</h2>
        <table class="stats" aria-labelledby="ins-lat">
          <thead><tr><th scope="col">method</th><th scope="col">from</th><th scope="col" class="num">requests</th><th scope="col" class="num">answered</th><th scope="col" class="num">errors</th>
            <th scope="col" class="num">p50</th><th scope="col" class="num">p90</th><th scope="col" class="num">p99</th><th scope="col" class="num">max</th><th scope="col">histogram (1 ms … 60 s, log)</th></tr></thead>
          <tbody>
            {ins.methods.map((m) => (
              <tr key={`${m.dir} ${m.method}`} data-method={m.method}>
                <td><button type="button" class="link" title={`Filter the timeline: method:${m.method}`} onClick={() => filterMethod(m.method)}>{m.method}</button></td>
                <td class="muted">{m.dir === 'c2a' ? 'client' : 'agent'}</td>
                <td class="num">{m.requests}</td><td class="num">{m.answered}</td><td class={`num${m.errors ? ' bad' : ''}`}>{m.errors || ''}</td>
                <td class="num">{fmtMs(m.p50)}</td><td class="num">{fmtMs(m.p90)}</td><td class="num">{fmtMs(m.p99)}</td><td class="num">{fmtMs(m.max)}</td>
                <td>{m.answered > 0 && <Histogram counts={m.histogram} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {ins.turns.length > 0 && (
        <section aria-labelledby="ins-turns">
          <h2 id="ins-turns">Prompt turns</h2>
          <table class="stats" aria-labelledby="ins-turns">
            <thead><tr><th scope="col">turn</th><th scope="col">prompt</th><th scope="col" class="num">first chunk</th><th scope="col" class="num">duration</th><th scope="col">agent · editor · user</th><th scope="col">stop reason</th><th scope="col" class="num">tool calls</th></tr></thead>
            <tbody>
              {ins.turns.slice(0, shown).map((t) => (
                <tr key={t.seq} data-turn={t.seq}>
                  <td><SeqLink seq={t.seq} /></td>
                  <td class="ins-prompt" title={t.label}>{t.label.replace(/^prompt turn /, '')}</td>
                  <td class="num">{t.ttfcMs === null ? '—' : fmtMs(t.ttfcMs)}</td>
                  <td class="num">{fmtMs(t.durationMs)}</td>
                  <td><Split agent={t.agentMs} client={t.clientMs} user={t.userMs} /> <span class="muted small-note">{fmtMs(t.agentMs)} · {fmtMs(t.clientMs)} · {fmtMs(t.userMs)}</span></td>
                  <td>{t.stopReason ?? (t.endSeq === null ? 'never answered' : '')}</td>
                  <td class="num">{t.toolCalls}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <More total={ins.turns.length} shown={shown} onMore={() => setShown(shown + SHOWN)} what="turns" />
        </section>
      )}

      {ins.tools.length > 0 && (
        <section aria-labelledby="ins-tools">
          <h2 id="ins-tools">Tool calls by kind</h2>
          <table class="stats" aria-labelledby="ins-tools">
            <thead><tr><th scope="col">kind</th><th scope="col" class="num">calls</th><th scope="col" class="num">failed</th><th scope="col" class="num">no final status</th><th scope="col" class="num">p50</th><th scope="col" class="num">p90</th><th scope="col" class="num">max</th><th scope="col">slowest</th></tr></thead>
            <tbody>
              {ins.tools.map((k) => (
                <tr key={k.kind} data-kind={k.kind}>
                  <td>{k.kind}</td><td class="num">{k.count}</td><td class={`num${k.failed ? ' bad' : ''}`}>{k.failed || ''}</td><td class={`num${k.unfinished ? ' warn' : ''}`}>{k.unfinished || ''}</td>
                  <td class="num">{fmtMs(k.p50)}</td><td class="num">{fmtMs(k.p90)}</td><td class="num">{fmtMs(k.max)}</td>
                  <td>{k.slowest && <SeqLink seq={k.slowest.seq} label={`#${k.slowest.seq} ${k.slowest.label.replace(/^tool call /, '')}`} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}

      {ins.permissions.length > 0 && (
        <section aria-labelledby="ins-perm">
          <h2 id="ins-perm">Permission waits (time waiting on the user)</h2>
          <ul class="perm-list">
            {ins.permissions.slice(0, shown).map((p) => (
              <li key={p.seq}><SeqLink seq={p.seq} /> {p.label.replace(/^permission wait ?/, '') || 'permission'} · <strong>{fmtMs(p.waitMs)}</strong> → {p.answered ? p.outcome ?? 'answered' : <span class="warn">never answered</span>}</li>
            ))}
          </ul>
          <More total={ins.permissions.length} shown={shown} onMore={() => setShown(shown + SHOWN)} what="permission waits" />
        </section>
      )}

      <section aria-labelledby="ins-rate">
        <h2 id="ins-rate">Throughput</h2>
        <div class="rates">
          <Rate values={ins.throughput.frames} bucketMs={ins.throughput.bucketMs} start={ins.throughput.start} unit="frames/s" fmt={(n) => `${n.toFixed(n < 10 ? 1 : 0)}/s`} />
          <Rate values={ins.throughput.bytes} bucketMs={ins.throughput.bucketMs} start={ins.throughput.start} unit="bytes/s" fmt={(n) => `${fmtSize(Math.round(n))}/s`} />
        </div>
      </section>

      {ins.slowest.length > 0 && (
        <section aria-labelledby="ins-slow">
          <h2 id="ins-slow">Slowest requests</h2>
          <ol class="slow-list">
            {ins.slowest.map((r) => <li key={r.seq}><SeqLink seq={r.seq} /> <code>{r.method}</code> <strong>{fmtMs(r.latency)}</strong> <span class="muted">(answer <SeqLink seq={r.endSeq} />)</span></li>)}
          </ol>
        </section>
      )}

      <section aria-labelledby="ins-err">
        <h2 id="ins-err">Errors by code</h2>
        {ins.errors.length === 0 ? <p class="muted">No error response.</p> : (
          <table class="stats" aria-labelledby="ins-err">
            <thead><tr><th scope="col" class="num">code</th><th scope="col">message</th><th scope="col" class="num">count</th><th scope="col">methods</th><th scope="col">frames</th></tr></thead>
            <tbody>
              {ins.errors.map((g) => (
                <tr key={String(g.code)}><td class="num">{g.code ?? '—'}</td><td>{g.message}</td><td class="num">{g.count}</td><td>{g.methods.join(', ')}</td>
                  <td>{g.seqs.slice(0, 8).map((s) => <SeqLink key={s} seq={s} />)}</td></tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {stats && (
        <section aria-labelledby="ins-traffic">
          <h2 id="ins-traffic">Traffic per method</h2>
          <table class="stats" aria-labelledby="ins-traffic">
            <thead><tr><th scope="col">method</th><th scope="col" class="num">count</th><th scope="col" class="num">requests</th><th scope="col" class="num">notifications</th><th scope="col" class="num">errors</th></tr></thead>
            <tbody>
              {stats.map((s) => (
                <tr key={s.method}><td><button type="button" class="link" title={`Filter the timeline: method:${s.method}`} onClick={() => filterMethod(s.method)}>{s.method}</button></td>
                  <td class="num">{s.count}</td><td class="num">{s.requests || ''}</td><td class="num">{s.notifications || ''}</td><td class={`num${s.errors ? ' bad' : ''}`}>{s.errors || ''}</td></tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <p class="muted">Latency: request to response; nearest-rank percentiles over answered requests. A turn's editor time is the union of its fs/*, terminal/* and other requests to the client; its user time the union of its permission requests; the rest is the agent's.</p>
    </div>
  );
}
