/**
 * The virtualized timeline: a fixed row height, only the rows in view (plus a margin) are in the DOM,
 * and pages of rows are fetched from the server by index as they scroll into view. The list is a
 * listbox: j/k and the arrow keys move the selection, Enter opens the detail.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  timeline, selIndex, select, scrollRequest, timeMode, refT, follow, isLive, jumpTo, filterError, detailOpen, current,
  groupLayout, isExpanded, toggleTurn, setAllExpanded, notesBySeq, setCardRows, CARD_MAX_ROWS,
} from './model.js';
import { source, type TimelineRow, type TurnDetail } from './api.js';
import type { Entry } from './group-layout.js';
import { TurnSummaryBody } from './turns-view.js';
import { useClientHeight } from './use-height.js';
import { fmtClock, fmtMs, fmtSize, DIR_LABEL } from './format.js';

export const ROW_H = 24;
const KIND_SHORT: Record<string, string> = { notification: 'notif' };
const OVERSCAN = 10;

function Lane({ dir }: { dir: TimelineRow['dir'] }) {
  return (
    <span class={`lane lane-${dir}`} title={DIR_LABEL[dir]} aria-label={DIR_LABEL[dir]}>
      <span class="lane-c" aria-hidden="true">{dir === 'c2a' ? '●' : dir === 'a2c' ? '◀' : ''}</span>
      <span class="lane-line" aria-hidden="true">{dir === 'c2a' || dir === 'a2c' ? '' : ''}</span>
      <span class="lane-a" aria-hidden="true">{dir === 'c2a' ? '▶' : dir === 'a2c' ? '●' : ''}</span>
      <span class="lane-e" aria-hidden="true">{dir === 'stderr' ? '!' : dir === 'event' ? '◆' : ''}</span>
    </span>
  );
}

function TimeCell({ row, index }: { row: TimelineRow; index: number }) {
  const tl = timeline.value!;
  const mode = timeMode.value;
  if (mode === 'delta') {
    const prev = tl.tBefore(index);
    return <span class="c-time" title={`t = ${fmtClock(row.t)}`}>{prev === null ? '' : `+${fmtMs(row.t - prev)}`}</span>;
  }
  if (mode === 'ref' && refT.value !== null) return <span class="c-time" title={`t = ${fmtClock(row.t)}`}>{fmtMs(row.t - refT.value)}</span>;
  return <span class="c-time">{fmtClock(row.t)}</span>;
}

function Badges({ sev, seq }: { sev: TimelineRow['findings']; seq: number }) {
  const noted = notesBySeq.value.get(seq);
  if (!sev.length && !noted) return <span class="c-find" />;
  return (
    <span class="c-find">
      {noted && <span class="note-mark" title={noted.map((n) => n.text || '(mark)').join('\n')} aria-label={`${noted.length} note${noted.length === 1 ? '' : 's'}`}>✎</span>}
      {sev.map((s) => <span key={s} class={`badge sev-${s}`} title={`${s} finding`} aria-label={`${s} finding`}>{s[0]!.toUpperCase()}</span>)}
    </span>
  );
}

/** How a remote agent's frame travelled, in a few words: `POST 202 · session s1`, `SSE · connection`, `SSE · POST answer`, `WS`. */
export function transportText(c: NonNullable<TimelineRow['transport']>): string {
  const stream = c.stream === 'session' || (!c.stream && c.sessionId) ? `session ${c.sessionId ?? ''}`.trim() : c.stream === 'post' ? 'POST answer' : c.stream ?? '';
  return [c.via === 'tap' ? 'answered by the tap' : c.via, c.status, stream && `· ${stream}`].filter((w) => w !== undefined && w !== '').join(' ');
}

function TransportCellView({ row }: { row: TimelineRow }) {
  const c = row.transport;
  if (!c) return <span class="c-tr" />;
  const text = transportText(c);
  const bad = c.status !== undefined && c.status >= 400;
  return <span class={`c-tr via-${c.via}${bad ? ' bad' : ''}`} title={text}>{text}</span>;
}

function Row({ row, index, top, selected, inTurn }: { row: TimelineRow; index: number; top: number; selected: boolean; inTurn?: boolean }) {
  const kindCls = row.kind === 'error' || row.kind === 'invalid' ? 'bad' : '';
  return (
    <div
      id={`row-${row.seq}`}
      role="option"
      aria-selected={selected}
      class={`row dir-${row.dir}${selected ? ' selected' : ''}${row.findings.includes('error') ? ' has-error' : ''}${inTurn ? ' in-turn' : ''}`}
      style={{ top: `${top}px` }}
      data-seq={row.seq}
      onClick={() => select(index)}
      onDblClick={() => { select(index); detailOpen.value = true; }}
    >
      <span class="c-seq">{row.seq}</span>
      <TimeCell row={row} index={index} />
      <Lane dir={row.dir} />
      <span class={`c-kind k-${row.kind ?? 'stderr'} ${kindCls}`} title={row.kind ?? row.dir}>{row.dir === 'stderr' ? 'stderr' : KIND_SHORT[row.kind ?? ''] ?? row.kind}</span>
      <span class="c-method" title={row.method ?? ''}>{row.method ?? ''}</span>
      <span class="c-id">{row.id === undefined ? '' : String(row.id)}</span>
      <span class="c-lat">
        {row.replyTo !== null && (
          <button type="button" class="link" title={`answers #${row.replyTo}; go to the request`} onClick={(e) => { e.stopPropagation(); void jumpTo(row.replyTo!); }}>
            ↩{row.replyTo}
          </button>
        )}
        {row.latency !== null && <span class={row.latency >= 1000 ? 'slow' : ''}> {fmtMs(row.latency)}</span>}
        {row.responseSeq !== null && (
          <button type="button" class="link dim" title={`answered by #${row.responseSeq}; go to the response`} onClick={(e) => { e.stopPropagation(); void jumpTo(row.responseSeq!); }}>
            ↪{row.responseSeq}
          </button>
        )}
      </span>
      {timeline.value?.transport.value && <TransportCellView row={row} />}
      <span class="c-size">{fmtSize(row.size)}</span>
      <span class="c-prev" title={row.preview}>{row.preview}</span>
      <span class="c-state" title={row.state ?? ''}>{row.state ?? ''}</span>
      <Badges sev={row.findings} seq={row.seq} />
    </div>
  );
}

/** A turn's header row in the grouped timeline: open/close, the prompt, stop reason, duration, size. */
function TurnHeader({ e, top }: { e: Extract<Entry, { kind: 'turn' }>; top: number }) {
  const t = e.turn;
  const running = t.endSeq === null;
  const selected = !e.expanded && selIndex.value === t.from;
  const n = t.to - t.from;
  return (
    <div id={selected ? `row-${timeline.value?.rowAt(t.from)?.seq ?? t.seq}` : undefined} role="option" aria-selected={selected} aria-expanded={e.expanded}
      class={`row group-head turn-row${selected ? ' selected' : ''}`} style={{ top: `${top}px` }} data-turn={t.seq}
      onClick={() => select(t.from)} onDblClick={() => toggleTurn(t.seq, t.from, t.to)}>
      <button type="button" class="twisty" aria-label={`${e.expanded ? 'Collapse' : 'Expand'} the turn at #${t.seq}`} aria-expanded={e.expanded}
        onClick={(ev) => { ev.stopPropagation(); toggleTurn(t.seq, t.from, t.to); }}>{e.expanded ? '▾' : '▸'}</button>
      <span class="g-label">turn #{t.seq}</span>
      <span class="g-prompt" title={t.prompt}>“{t.prompt || '(no text)'}”</span>
      <span class={`pill ${running ? 'live' : t.stopReason === 'end_turn' ? 'ok' : 'warn'}`}>{running ? 'running' : t.stopReason ?? 'no stop reason'}</span>
      <span class="g-dur">{t.durationMs !== null ? fmtMs(t.durationMs) : ''}</span>
      <span class="g-count">{n} item{n === 1 ? '' : 's'}</span>
    </div>
  );
}

function SessionHeader({ e, top }: { e: Extract<Entry, { kind: 'session' }>; top: number }) {
  const seqs = e.turns.map((t) => t.seq);
  const open = e.turns.filter((t) => isExpanded(t.seq)).length;
  return (
    <div class="row group-head session-row" role="presentation" style={{ top: `${top}px` }}>
      <span class="g-label">session</span>
      <code class="g-session" title={e.sessionId ?? ''}>{e.sessionId ?? '(no session)'}</code>
      <span class="muted">{e.turns.length === 0 ? 'no prompt turn here' : `${e.turns.length} turn${e.turns.length === 1 ? '' : 's'}${open ? `, ${open} open` : ''}`}</span>
      {e.turns.length > 0 && (
        <button type="button" class="link" onClick={() => setAllExpanded(open < e.turns.length, seqs)}>{open < e.turns.length ? 'expand its turns' : 'collapse its turns'}</button>
      )}
    </div>
  );
}

const turnCache = new Map<string, TurnDetail>();
/** The card's own padding and border below and above its content (px; see .turn-card in style.css). */
const CARD_PADDING = 9;

/** A collapsed turn: its summary card, fetched when it scrolls into view. */
function TurnCardRow({ e, top }: { e: Extract<Entry, { kind: 'card' }>; top: number }) {
  const t = e.turn;
  const id = timeline.value!.recordingId;
  const key = `${id}:${t.seq}:${t.endSeq}`;
  const [d, setD] = useState<TurnDetail | null>(t.endSeq !== null ? turnCache.get(key) ?? null : null);
  const [err, setErr] = useState<string | null>(null);
  const liveItems = t.endSeq === null ? current.value?.items : 0;
  useEffect(() => {
    if (t.endSeq !== null && turnCache.has(key)) { setD(turnCache.get(key)!); return undefined; }
    let alive = true;
    source.turn(id, t.seq).then((x) => {
      if (t.endSeq !== null) turnCache.set(key, x);
      if (alive) setD(x);
    }).catch((x: Error) => { if (alive) setErr(x.message); });
    return () => { alive = false; };
  }, [key, liveItems]);
  // Measured once drawn (and again when its width changes): the layout gives the card as many rows
  // as its content needs, so the next row starts below its last line instead of over it.
  const inner = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = inner.current;
    if (!el || !d) return undefined;
    const measure = () => setCardRows(t.seq, Math.min(CARD_MAX_ROWS, Math.max(2, Math.ceil((el.offsetHeight + CARD_PADDING) / ROW_H))));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [d, t.seq]);
  return (
    <div class="turn-card" role="group" aria-label={`Summary of the turn at #${t.seq}`} tabIndex={-1}
      style={{ top: `${top}px`, height: `${e.size * ROW_H}px` }}>
      <div ref={inner} class="turn-card-in">
      {err && <p class="bad">{err}</p>}
      {!d && !err && <p class="muted turn-body">Loading…</p>}
      {d && (
        <>
          <div class="card-meta">
            {(d.findings.error + d.findings.warning) > 0 && (
              <span>{d.findings.error > 0 && <span class="badge sev-error" title="errors in this turn">{d.findings.error}</span>}{d.findings.warning > 0 && <span class="badge sev-warning" title="warnings in this turn">{d.findings.warning}</span>}</span>
            )}
            <button type="button" class="link" onClick={() => toggleTurn(t.seq, t.from, t.to)}>show its {t.to - t.from} item{t.to - t.from === 1 ? '' : 's'}</button>
          </div>
          <TurnSummaryBody d={d} />
        </>
      )}
      </div>
    </div>
  );
}

function Placeholder({ top }: { top: number }) {
  return <div class="row placeholder" style={{ top: `${top}px` }} aria-hidden="true"><span class="c-seq">…</span></div>;
}

export function TimelineList() {
  const tl = timeline.value;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const height = useClientHeight(ref);
  const total = tl?.total.value ?? 0;
  void tl?.version.value; // re-render when rows arrive
  const layout = groupLayout.value;
  const totalRows = layout ? layout.height : total;

  const first = Math.max(0, Math.floor(scrollTop / ROW_H) - OVERSCAN);
  const last = Math.min(totalRows, Math.ceil((scrollTop + height) / ROW_H) + OVERSCAN);

  // What is in view: rows (list index at a display position), turn and session headers, cards.
  const rows = [];
  let needFrom = Number.MAX_SAFE_INTEGER;
  let needTo = -1;
  const rowAt = (i: number, pos: number, inTurn?: boolean) => {
    needFrom = Math.min(needFrom, i);
    needTo = Math.max(needTo, i + 1);
    const r = tl?.rowAt(i);
    rows.push(r ? <Row key={r.seq} row={r} index={i} top={pos * ROW_H} selected={selIndex.value === i} inTurn={inTurn} /> : <Placeholder key={`p${pos}`} top={pos * ROW_H} />);
  };
  if (layout) {
    for (let k = layout.entryAt(first); k < layout.entries.length && layout.entries[k]!.pos < last; k++) {
      const e = layout.entries[k]!;
      if (e.kind === 'rows') {
        for (let p = Math.max(first, e.pos); p < Math.min(last, e.pos + e.size); p++) rowAt(e.from + (p - e.pos), p, e.inTurn);
      } else if (e.kind === 'turn') rows.push(<TurnHeader key={`t${e.turn.seq}`} e={e} top={e.pos * ROW_H} />);
      else if (e.kind === 'session') rows.push(<SessionHeader key={`s${e.pos}`} e={e} top={e.pos * ROW_H} />);
      else rows.push(<TurnCardRow key={`c${e.turn.seq}`} e={e} top={e.pos * ROW_H} />);
    }
  } else {
    for (let i = first; i < last; i++) rowAt(i, i);
  }

  const reload = tl?.reloadTick.value ?? 0;
  useEffect(() => {
    if (tl && total > 0 && needTo > needFrom) void tl.ensure(needFrom, needTo);
  }, [tl, needFrom, needTo, total, reload]);

  // Scroll requests from the model (selection, follow, jumps).
  const req = scrollRequest.value;
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || !req) return;
    const top = (layout ? layout.posOf(req.index) : req.index) * ROW_H;
    if (req.align === 'end') el.scrollTop = el.scrollHeight;
    else if (req.align === 'center') el.scrollTop = Math.max(0, top - el.clientHeight / 2);
    else if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_H > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_H - el.clientHeight;
    setScrollTop(el.scrollTop);
    scrollRequest.value = null;
  }, [req, total, layout]);

  const onScroll = () => {
    const el = ref.current!;
    setScrollTop(el.scrollTop);
    if (isLive.value) {
      const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_H * 2;
      if (follow.value !== atBottom) follow.value = atBottom;
    }
  };

  const selRow = selIndex.value !== null ? tl?.rowAt(selIndex.value) : undefined;

  return (
    <div class={`timeline${tl?.transport.value ? ' with-transport' : ''}`}>
      <div class="row head" aria-hidden="true">
        <span class="c-seq">#</span><span class="c-time">{timeMode.value === 'rel' ? 'time' : timeMode.value === 'delta' ? 'Δ prev' : 'Δ ref'}</span>
        <span class="lane lane-head"><span title="client">client</span><span title="agent">agent</span><span title="agent stderr and events">!</span></span>
        <span class="c-kind">kind</span><span class="c-method">method</span><span class="c-id">id</span><span class="c-lat">latency</span>
        {tl?.transport.value && <span class="c-tr">transport</span>}
        <span class="c-size">size</span><span class="c-prev">summary</span><span class="c-state">state after</span><span class="c-find" />
      </div>
      <div
        ref={ref}
        class="scroller"
        role="listbox"
        tabIndex={0}
        aria-label={`Timeline, ${total} items${tl?.counting.value ? ' so far, still filtering' : ''}${layout ? ', grouped by turn' : ''}`}
        data-q={tl?.q}
        aria-activedescendant={selRow ? `row-${selRow.seq}` : undefined}
        onScroll={onScroll}
      >
        <div class="spacer" style={{ height: `${totalRows * ROW_H}px` }}>{rows}</div>
        {tl && total === 0 && !tl.loading.value && (
          <div class="empty">{filterError.value ? '' : tl.counting.value ? 'Filtering…' : tl.q ? 'No items match this filter.' : 'No items recorded yet.'}</div>
        )}
      </div>
    </div>
  );
}
