/**
 * The virtualized timeline: a fixed row height, only the rows in view (plus a margin) are in the DOM,
 * and pages of rows are fetched from the server by index as they scroll into view. The list is a
 * listbox: j/k and the arrow keys move the selection, Enter opens the detail.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { timeline, selIndex, select, scrollRequest, timeMode, refT, follow, isLive, jumpTo, filterError, detailOpen } from './model.js';
import type { TimelineRow } from './api.js';
import { fmtClock, fmtMs, fmtSize, DIR_LABEL } from './format.js';

export const ROW_H = 24;
const KIND_SHORT: Record<string, string> = { notification: 'notif' };
const OVERSCAN = 30;

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

function Badges({ sev }: { sev: TimelineRow['findings'] }) {
  if (!sev.length) return <span class="c-find" />;
  return (
    <span class="c-find">
      {sev.map((s) => <span key={s} class={`badge sev-${s}`} title={`${s} finding`} aria-label={`${s} finding`}>{s[0]!.toUpperCase()}</span>)}
    </span>
  );
}

function Row({ row, index, selected }: { row: TimelineRow; index: number; selected: boolean }) {
  const kindCls = row.kind === 'error' || row.kind === 'invalid' ? 'bad' : '';
  return (
    <div
      id={`row-${row.seq}`}
      role="option"
      aria-selected={selected}
      class={`row dir-${row.dir}${selected ? ' selected' : ''}${row.findings.includes('error') ? ' has-error' : ''}`}
      style={{ top: `${index * ROW_H}px` }}
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
      <span class="c-size">{fmtSize(row.size)}</span>
      <span class="c-prev" title={row.preview}>{row.preview}</span>
      <span class="c-state" title={row.state ?? ''}>{row.state ?? ''}</span>
      <Badges sev={row.findings} />
    </div>
  );
}

export function TimelineList() {
  const tl = timeline.value;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const total = tl?.total.value ?? 0;
  void tl?.version.value; // re-render when rows arrive

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, []);

  const first = Math.max(0, Math.floor(scrollTop / ROW_H) - OVERSCAN);
  const last = Math.min(total, Math.ceil((scrollTop + height) / ROW_H) + OVERSCAN);

  const reload = tl?.reloadTick.value ?? 0;
  useEffect(() => {
    if (tl && total > 0) void tl.ensure(first, last);
  }, [tl, first, last, total, reload]);

  // Scroll requests from the model (selection, follow, jumps).
  const req = scrollRequest.value;
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || !req) return;
    const top = req.index * ROW_H;
    if (req.align === 'end') el.scrollTop = el.scrollHeight;
    else if (req.align === 'center') el.scrollTop = Math.max(0, top - el.clientHeight / 2);
    else if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_H > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_H - el.clientHeight;
    setScrollTop(el.scrollTop);
    scrollRequest.value = null;
  }, [req, total]);

  const onScroll = () => {
    const el = ref.current!;
    setScrollTop(el.scrollTop);
    if (isLive.value) {
      const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_H * 2;
      if (follow.value !== atBottom) follow.value = atBottom;
    }
  };

  const rows = [];
  for (let i = first; i < last; i++) {
    const r = tl?.rowAt(i);
    if (r) rows.push(<Row key={r.seq} row={r} index={i} selected={selIndex.value === i} />);
    else rows.push(<div key={`p${i}`} class="row placeholder" style={{ top: `${i * ROW_H}px` }} aria-hidden="true"><span class="c-seq">…</span></div>);
  }
  const selRow = selIndex.value !== null ? tl?.rowAt(selIndex.value) : undefined;

  return (
    <div class="timeline">
      <div class="row head" aria-hidden="true">
        <span class="c-seq">#</span><span class="c-time">{timeMode.value === 'rel' ? 'time' : timeMode.value === 'delta' ? 'Δ prev' : 'Δ ref'}</span>
        <span class="lane lane-head"><span title="client">client</span><span title="agent">agent</span><span title="agent stderr and events">!</span></span>
        <span class="c-kind">kind</span><span class="c-method">method</span><span class="c-id">id</span><span class="c-lat">latency</span>
        <span class="c-size">size</span><span class="c-prev">summary</span><span class="c-state">state after</span><span class="c-find" />
      </div>
      <div
        ref={ref}
        class="scroller"
        role="listbox"
        tabIndex={0}
        aria-label={`Timeline, ${total} items`}
        aria-activedescendant={selRow ? `row-${selRow.seq}` : undefined}
        onScroll={onScroll}
      >
        <div class="spacer" style={{ height: `${total * ROW_H}px` }}>{rows}</div>
        {tl && total === 0 && !tl.loading.value && (
          <div class="empty">{filterError.value ? '' : tl.q ? 'No items match this filter.' : 'No items recorded yet.'}</div>
        )}
      </div>
    </div>
  );
}
