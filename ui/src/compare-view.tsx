/**
 * Compare: two recordings aligned frame by frame by replay's ACP-aware matcher (volatile ids and
 * paths normalised), divergences highlighted, the unified diff of the selected row beside the list.
 * The list is virtualized like the timeline; j/k move, n/p jump between divergences.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useClientHeight } from './use-height.js';
import { server as api, type CompareResult, type CompareRow } from './api.js';
import { cmpA, cmpB, recordings, loadRecordings, writeUrl } from './model.js';
import { fmtClock } from './format.js';

const ROW_H = 24;
const OVERSCAN = 20;
const STATUS_MARK: Record<CompareRow['status'], string> = { same: '=', changed: '~', missing: '−', extra: '+', merged: '≈' };
const STATUS_TEXT: Record<CompareRow['status'], string> = {
  same: 'same', changed: 'changed', missing: 'only in a', extra: 'only in b', merged: 'same once chunks are merged',
};
const divergent = (r: CompareRow) => r.status === 'changed' || r.status === 'missing' || r.status === 'extra';

/** A unified diff with its lines coloured by their first character. */
export function PatchView({ patch }: { patch: string }) {
  return (
    <pre class="diff-body patch" aria-label="Unified diff">
      {patch.split('\n').map((l, i) => {
        const cls = l.startsWith('+++') || l.startsWith('---') ? 'diff-file' : l.startsWith('@@') ? 'diff-hunk'
          : l.startsWith('+') ? 'diff-add' : l.startsWith('-') ? 'diff-del' : 'diff-ctx';
        return <span key={i} class={cls}>{`${l}\n`}</span>;
      })}
    </pre>
  );
}

function RecordingPicker({ label, value, onChange }: { label: string; value: number | null; onChange: (v: number | null) => void }) {
  const list = recordings.value;
  return (
    <label class="picker">
      <span>{label}</span>
      <select value={value === null ? '' : String(value)} onChange={(e) => { const v = (e.currentTarget as HTMLSelectElement).value; onChange(v ? Number(v) : null); }}>
        <option value="">choose a recording…</option>
        {list.map((r) => (
          <option key={r.id} value={String(r.id)}>#{r.id} {r.name || r.command?.join(' ') || ''} · {r.frames} frames{r.status === 'running' ? ' · live' : ''}</option>
        ))}
        {value !== null && !list.some((r) => r.id === value) && <option value={String(value)}>#{value}</option>}
      </select>
    </label>
  );
}

function Side({ f, rec }: { f: CompareRow['a']; rec: number | null }) {
  if (!f) return <><span class="c-seq" /><span class="c-time" /></>;
  return (
    <>
      <span class="c-seq"><a href={`?rec=${rec}&sel=${f.seq}`} title={`Open #${f.seq} in recording ${rec}`} tabIndex={-1}>{f.seq}</a></span>
      <span class="c-time">{fmtClock(f.t)}</span>
    </>
  );
}

function Row({ r, index, selected, onSelect }: { r: CompareRow; index: number; selected: boolean; onSelect: () => void }) {
  const f = r.a ?? r.b!;
  const label = f.label ?? '';
  // A changed row says what differs (its first path difference), not the two previews, which may
  // differ only in volatile values.
  const preview = r.status === 'changed' && r.diffs?.length
    ? `${r.diffs[0]}${r.diffs.length > 1 ? ` (+${r.diffs.length - 1} more)` : ''}`
    : r.b?.preview ?? r.a?.preview ?? '';
  return (
    <div id={`cmp-${index}`} role="option" aria-selected={selected} class={`row cmp-row st-${r.status}${selected ? ' selected' : ''}`}
      style={{ top: `${index * ROW_H}px` }} onClick={onSelect} title={STATUS_TEXT[r.status]}>
      <span class="c-status" aria-label={STATUS_TEXT[r.status]}>{STATUS_MARK[r.status]}</span>
      <Side f={r.a} rec={cmpA.value} />
      <span class={`c-dir dir-${f.dir}`}>{f.dir === 'c2a' ? 'c→a' : 'a→c'}</span>
      <span class="c-method" title={label}>{label.replace(/^notification session\/update /, 'update ').replace(/^notification /, 'notif ')}</span>
      <Side f={r.b} rec={cmpB.value} />
      <span class="c-prev" title={preview}>{preview}</span>
    </div>
  );
}

function RowDetail({ r }: { r: CompareRow }) {
  return (
    <aside class="detail cmp-detail" aria-label="Difference">
      <h2>{STATUS_TEXT[r.status]}: {(r.a ?? r.b)!.label}</h2>
      <dl class="facts">
        <dt>a</dt><dd>{r.a ? <a href={`?rec=${cmpA.value}&sel=${r.a.seq}`}>#{r.a.seq}</a> : r.nearest !== undefined ? <>none (nearest <a href={`?rec=${cmpA.value}&sel=${r.nearest}`}>#{r.nearest}</a>)</> : 'none'}</dd>
        <dt>b</dt><dd>{r.b ? <a href={`?rec=${cmpB.value}&sel=${r.b.seq}`}>#{r.b.seq}</a> : 'none'}</dd>
        {r.reason && <><dt>why</dt><dd>{r.reason}</dd></>}
      </dl>
      {r.diffs && r.diffs.length > 0 && (
        <ul class="path-diffs">{r.diffs.map((d, i) => <li key={i}><code>{d}</code></li>)}</ul>
      )}
      {r.patch ? <div class="diff"><PatchView patch={r.patch} /></div>
        : divergent(r) ? <p class="muted">No unified diff for this row (too many divergences; use <code>acp-inspect diff</code>).</p>
          : <p class="muted">{r.status === 'merged' ? 'This chunk is part of a message that is the same once the streamed chunks are merged.' : 'Equal once volatile ids and paths are normalised.'}</p>}
    </aside>
  );
}

export function CompareView() {
  const a = cmpA.value;
  const b = cmpB.value;
  const [ignore, setIgnore] = useState('');
  const [ignoreApplied, setIgnoreApplied] = useState('');
  const [merge, setMerge] = useState(false);
  const [onlyDiff, setOnlyDiff] = useState(false);
  const [result, setResult] = useState<CompareResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [sel, setSelState] = useState<number | null>(null);
  // Keys can arrive faster than renders: read and write the selection through a ref.
  const selRef = useRef<number | null>(null);
  const setSel = (v: number | null) => { selRef.current = v; setSelState(v); };
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);

  useEffect(() => { if (recordings.value.length === 0) void loadRecordings(); }, []);

  useEffect(() => {
    if (a === null || b === null) { setResult(null); return undefined; }
    const ctl = new AbortController();
    setLoading(true);
    setError(null);
    api.compare(a, b, ignoreApplied, merge, ctl.signal)
      .then((r) => { setResult(r); setSel(null); })
      .catch((e: Error) => { if (e.name !== 'AbortError') { setResult(null); setError(e.message); } })
      .finally(() => setLoading(false));
    return () => ctl.abort();
  }, [a, b, ignoreApplied, merge]);

  const rows = useMemo(() => (result ? (onlyDiff ? result.rows.filter(divergent) : result.rows) : []), [result, onlyDiff]);

  const height = useClientHeight(ref, result !== null);

  const select = (i: number | null) => {
    if (i === null || rows.length === 0) { setSel(null); return; }
    const k = Math.max(0, Math.min(rows.length - 1, i));
    setSel(k);
    const el = ref.current;
    if (el) {
      const top = k * ROW_H;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + ROW_H > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_H - el.clientHeight;
      setScrollTop(el.scrollTop);
    }
  };
  const nextDivergence = (dir: 1 | -1) => {
    for (let i = (selRef.current ?? (dir === 1 ? -1 : rows.length)) + dir; i >= 0 && i < rows.length; i += dir) {
      if (divergent(rows[i]!)) { select(i); return; }
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return;
      const cur = selRef.current;
      if (e.key === 'j' || e.key === 'ArrowDown') { e.preventDefault(); select(cur === null ? 0 : cur + 1); }
      else if (e.key === 'k' || e.key === 'ArrowUp') { e.preventDefault(); select(cur === null ? 0 : cur - 1); }
      else if (e.key === 'n') { e.preventDefault(); nextDivergence(1); }
      else if (e.key === 'p') { e.preventDefault(); nextDivergence(-1); }
      else if (e.key === 'Escape') setSel(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const set = (k: 'a' | 'b', v: number | null) => { (k === 'a' ? cmpA : cmpB).value = v; writeUrl(); };
  const first = Math.max(0, Math.floor(scrollTop / ROW_H) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_H) + OVERSCAN);
  const shown = [];
  for (let i = first; i < last; i++) shown.push(<Row key={i} r={rows[i]!} index={i} selected={sel === i} onSelect={() => select(i)} />);
  const selRow = sel !== null ? rows[sel] : undefined;

  return (
    <main class="compare" aria-label="Compare recordings">
      <form class="cmp-controls" onSubmit={(e) => { e.preventDefault(); setIgnoreApplied(ignore); }}>
        <RecordingPicker label="a (first)" value={a} onChange={(v) => set('a', v)} />
        <button type="button" title="Swap a and b" aria-label="Swap a and b" onClick={() => { const x = cmpA.value; cmpA.value = cmpB.value; cmpB.value = x; writeUrl(); }}>⇄</button>
        <RecordingPicker label="b (second)" value={b} onChange={(v) => set('b', v)} />
        <label class="picker grow">
          <span>ignore paths</span>
          <input type="text" value={ignore} placeholder="params.update.content.text, result._meta" aria-label="Paths to ignore (comma separated)"
            onInput={(e) => setIgnore((e.currentTarget as HTMLInputElement).value)} onBlur={() => setIgnoreApplied(ignore)} />
        </label>
        <label class="check"><input type="checkbox" checked={merge} onChange={(e) => setMerge((e.currentTarget as HTMLInputElement).checked)} /> merge chunks</label>
        <label class="check"><input type="checkbox" checked={onlyDiff} onChange={(e) => { setOnlyDiff((e.currentTarget as HTMLInputElement).checked); setSel(null); }} /> only differences</label>
      </form>
      {(a === null || b === null) && <div class="panel"><p class="muted">Choose two recordings to align them frame by frame. Ids, session ids and paths that change from run to run are normalised, as in <code>acp-inspect diff</code>.</p></div>}
      {error && <div class="panel"><p class="bad" role="alert">{error}</p></div>}
      {loading && !result && <div class="panel"><p class="muted">Comparing…</p></div>}
      {result && (
        <>
          <p class={`cmp-summary ${result.same ? 'ok' : 'diverged'}`} role="status">
            <strong>{result.same ? 'Same' : 'Different'}</strong>
            {' '}· {result.changed} changed · {result.missing} only in a · {result.extra} only in b · {result.matched} of {result.framesB} frames of b matched {result.framesA} frames of a
            {result.patchesCut && <span class="muted"> · unified diffs shown for the first divergences only</span>}
            {!result.same && <span class="muted"> · n/p: next/previous difference</span>}
          </p>
          <div class={`split${selRow ? ' with-detail' : ''}`}>
            <div class="timeline">
              <div class="row head cmp-row" aria-hidden="true">
                <span class="c-status" /><span class="c-seq">a #</span><span class="c-time">a time</span><span class="c-dir">dir</span><span class="c-method">frame</span>
                <span class="c-seq">b #</span><span class="c-time">b time</span><span class="c-prev">summary</span>
              </div>
              <div ref={ref} class="scroller" role="listbox" tabIndex={0} aria-label={`Aligned frames, ${rows.length} rows`}
                aria-activedescendant={sel !== null ? `cmp-${sel}` : undefined} onScroll={() => setScrollTop(ref.current!.scrollTop)}>
                <div class="spacer" style={{ height: `${rows.length * ROW_H}px` }}>{shown}</div>
                {rows.length === 0 && <div class="empty">{onlyDiff ? 'No differences.' : 'Neither recording has protocol frames.'}</div>}
              </div>
            </div>
            {selRow && <RowDetail r={selRow} />}
          </div>
        </>
      )}
    </main>
  );
}
