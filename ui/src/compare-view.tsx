/**
 * Compare: two recordings aligned frame by frame by replay's ACP-aware matcher (volatile ids and
 * paths normalised), divergences highlighted, the unified diff of the selected row beside the list.
 * The list is virtualized like the timeline, and paged: the comparison gives every row's status, and
 * the rows on screen are fetched as they scroll into view. j/k move, n/p jump between divergences.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useClientHeight } from './use-height.js';
import { ApiError, server as api, type CompareIndex, type CompareRow } from './api.js';
import { cmpA, cmpB, recordings, loadRecordings, writeUrl } from './model.js';
import { fmtClock } from './format.js';

const ROW_H = 24;
const OVERSCAN = 20;
const STATUS_MARK: Record<CompareRow['status'], string> = { same: '=', changed: '~', missing: '−', extra: '+', merged: '≈' };
const STATUS_TEXT: Record<CompareRow['status'], string> = {
  same: 'same', changed: 'changed', missing: 'only in a', extra: 'only in b', merged: 'same once chunks are merged',
};
const divergent = (r: CompareRow) => r.status === 'changed' || r.status === 'missing' || r.status === 'extra';
/** Rows fetched at a time. */
const PAGE = 200;
const STATUS_OF: Record<string, CompareRow['status']> = { s: 'same', c: 'changed', m: 'missing', x: 'extra', g: 'merged' };
const divergentLetter = (l: string | undefined) => l === 'c' || l === 'm' || l === 'x';

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

/** A row whose page has not arrived yet: its status only. */
function PendingRow({ status, index }: { status: CompareRow['status']; index: number }) {
  return (
    <div id={`cmp-${index}`} role="option" aria-selected={false} class={`row cmp-row st-${status} pending`} style={{ top: `${index * ROW_H}px` }} title={STATUS_TEXT[status]}>
      <span class="c-status" aria-label={STATUS_TEXT[status]}>{STATUS_MARK[status]}</span>
      <span class="c-prev muted">…</span>
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
  const [result, setResult] = useState<CompareIndex | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  // Fetched pages of rows, by page number (a ref: filled as pages arrive; `pagesVersion` re-renders).
  const pages = useRef(new Map<number, CompareRow[]>());
  const inFlight = useRef(new Set<number>());
  const shownId = useRef<string | null>(null);
  const [pagesVersion, setPagesVersion] = useState(0);
  // Bumped to compare again (the server no longer holds the comparison the pages come from).
  const [generation, setGeneration] = useState(0);
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
    // The totals and statuses, then the first page, shown together.
    api.compare(a, b, ignoreApplied, merge, ctl.signal)
      .then(async (r) => {
        const first = r.total > 0 ? await api.compareRows(r.id, 0, PAGE, ctl.signal) : { offset: 0, rows: [] };
        pages.current = new Map([[0, first.rows]]);
        inFlight.current = new Set();
        shownId.current = r.id;
        setResult(r);
        setSel(null);
      })
      .catch((e: Error) => { if (e.name !== 'AbortError') { setResult(null); setError(e.message); } })
      .finally(() => setLoading(false));
    return () => ctl.abort();
  }, [a, b, ignoreApplied, merge, generation]);

  /** Row numbers shown, in order (all rows, or only the divergent ones). */
  const order = useMemo(() => {
    if (!result || !onlyDiff) return null;
    const out: number[] = [];
    for (let i = 0; i < result.statuses.length; i++) if (divergentLetter(result.statuses[i])) out.push(i);
    return out;
  }, [result, onlyDiff]);
  const count = result ? (order ? order.length : result.total) : 0;
  const rowNo = (k: number): number => (order ? order[k]! : k);
  const rowAt = (i: number): CompareRow | undefined => pages.current.get(Math.floor(i / PAGE))?.[i % PAGE];

  /** Fetches the pages holding these rows that are neither here nor on their way. */
  const want = (rowNos: number[]) => {
    if (!result) return;
    for (const p of new Set(rowNos.map((i) => Math.floor(i / PAGE)))) {
      if (pages.current.has(p) || inFlight.current.has(p)) continue;
      inFlight.current.add(p);
      const id = result.id;
      api.compareRows(id, p * PAGE, PAGE)
        .then((page) => { if (shownId.current === id) { pages.current.set(p, page.rows); setPagesVersion((v) => v + 1); } })
        .catch((e: Error) => {
          if (shownId.current !== id) return;
          if (e instanceof ApiError && e.status === 404) setGeneration((g) => g + 1);
          else setError(e.message);
        })
        .finally(() => { if (shownId.current === id) inFlight.current.delete(p); });
    }
  };

  const height = useClientHeight(ref, result !== null);

  const select = (i: number | null) => {
    if (i === null || count === 0) { setSel(null); return; }
    const k = Math.max(0, Math.min(count - 1, i));
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
    for (let k = (selRef.current ?? (dir === 1 ? -1 : count)) + dir; k >= 0 && k < count; k += dir) {
      if (divergentLetter(result?.statuses[rowNo(k)])) { select(k); return; }
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
  const last = Math.min(count, Math.ceil((scrollTop + height) / ROW_H) + OVERSCAN);
  const shown = [];
  const missing: number[] = [];
  for (let k = first; k < last; k++) {
    const i = rowNo(k);
    const r = rowAt(i);
    if (r) shown.push(<Row key={k} r={r} index={k} selected={sel === k} onSelect={() => select(k)} />);
    else {
      missing.push(i);
      shown.push(<PendingRow key={k} status={STATUS_OF[result!.statuses[i]!]!} index={k} />);
    }
  }
  const selRow = sel !== null && sel < count ? rowAt(rowNo(sel)) : undefined;
  if (sel !== null && sel < count && !selRow) missing.push(rowNo(sel));
  useEffect(() => { if (missing.length) want(missing); });
  void pagesVersion;

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
          <div class={`split${sel !== null ? ' with-detail' : ''}`}>
            <div class="timeline">
              <div class="row head cmp-row" aria-hidden="true">
                <span class="c-status" /><span class="c-seq">a #</span><span class="c-time">a time</span><span class="c-dir">dir</span><span class="c-method">frame</span>
                <span class="c-seq">b #</span><span class="c-time">b time</span><span class="c-prev">summary</span>
              </div>
              <div ref={ref} class="scroller" role="listbox" tabIndex={0} aria-label={`Aligned frames, ${count} rows`}
                aria-activedescendant={sel !== null ? `cmp-${sel}` : undefined} onScroll={() => setScrollTop(ref.current!.scrollTop)}>
                <div class="spacer" style={{ height: `${count * ROW_H}px` }}>{shown}</div>
                {count === 0 && <div class="empty">{onlyDiff ? 'No differences.' : 'Neither recording has protocol frames.'}</div>}
              </div>
            </div>
            {selRow ? <RowDetail r={selRow} /> : sel !== null && <aside class="detail cmp-detail" aria-label="Difference"><p class="muted">Loading…</p></aside>}
          </div>
        </>
      )}
    </main>
  );
}
