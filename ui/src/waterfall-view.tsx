/**
 * The waterfall (URL `view=waterfall`): one row per span (sessions, prompt turns, tool calls,
 * permission waits, fs/* and terminal/* calls, terminal lives, other requests) on a time axis whose
 * idle gaps over 30 s collapse to a marker. Bars are coloured by whose time it is (the agent
 * working, the editor answering, the user deciding); errors, failures, cancels and spans that never
 * ended are marked. Only the rows in view and the bars inside the visible time window are in the
 * DOM. Ctrl/⌘+wheel zooms at the pointer, shift+wheel or a drag pans, keys: j/k (↑/↓) the next
 * span, Enter fits it, + − zoom, ← → pan, 0 fit all, f fit the turn at the selection; a click selects the span's first item, a double click
 * opens its frames in the timeline; the ruler scrubs the playhead.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { WaterfallSpan, Waterfall } from './api.js';
import { recId, selSeq, jumpTo, applyFilter, setView, detailOpen, current, notesBySeq } from './model.js';
import { wf, wfError, loadWaterfall, playT, setPlayhead, togglePlay, step } from './playback.js';
import { TimeAxis, ariaLabelOf, fmtDuration, GAP_SHOWN_MS, waitsOfTurns } from '../../src/view/waterfall.js';
import { useClientHeight } from './use-height.js';
import { fmtClock } from './format.js';
import { DetailPane } from './detail-pane.js';
import { PlayheadTurn } from './turns-view.js';

const ROW = 22;
const LABEL_W = 300;
const OVERSCAN = 10;
const OWNER_TEXT: Record<WaterfallSpan['owner'], string> = { agent: 'the agent working', client: 'the editor answering', user: 'the user deciding', none: '' };

interface Win { x0: number; x1: number }

/** Ticks for an axis window of `span` ms over `px` pixels: about one every 100 px, at a round step. */
function tickStep(span: number, px: number): number {
  const raw = (span / Math.max(1, px)) * 100;
  const steps = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
  return steps.find((s) => s >= raw) ?? 3_600_000;
}

function fmtTick(ms: number, stepMs: number): string {
  if (stepMs >= 1000) return fmtClock(ms).replace(/\.\d+$/, '');
  return fmtClock(ms);
}

export function WaterfallView() {
  const id = recId.value;
  const items = current.value?.items;
  useEffect(() => { void loadWaterfall(); }, [id, items]);
  const w = wf.value;
  if (wfError.value) return <div class="panel"><p class="bad" role="alert">{wfError.value}</p></div>;
  if (!w || w.recordingId !== id) return <div class="panel"><p class="muted">Building the waterfall…</p></div>;
  if (w.data.spans.length === 0) return <div class="panel"><p class="muted">No spans: this recording holds no request.</p></div>;
  return (
    <div class={`split wf-split${detailOpen.value && selSeq.value !== null ? ' with-detail' : ''}`}>
      <Chart data={w.data} />
      {detailOpen.value && selSeq.value !== null && (
        <div class="wf-side">
          <PlayheadTurn />
          <DetailPane />
        </div>
      )}
    </div>
  );
}

function Chart({ data }: { data: Waterfall }) {
  const axis = useMemo(() => new TimeAxis(data.start, data.end, data.gaps), [data]);
  const waits = useMemo(() => waitsOfTurns(data.spans), [data]);
  const hasNetwork = useMemo(() => data.spans.some((s) => s.network !== undefined), [data]);
  const full = Math.max(axis.length, 1);
  const [win, setWin] = useState<Win>({ x0: 0, x1: full });
  const [scrollTop, setScrollTop] = useState(0);
  const [hover, setHover] = useState<{ s: WaterfallSpan; x: number; y: number } | null>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const height = useClientHeight(bodyRef);
  const [width, setWidth] = useState(800);
  useLayoutEffect(() => {
    const el = rootRef.current;
    if (!el) return undefined;
    const ro = new ResizeObserver(() => setWidth(Math.max(100, el.clientWidth - LABEL_W - 16)));
    ro.observe(el);
    setWidth(Math.max(100, el.clientWidth - LABEL_W - 16));
    return () => ro.disconnect();
  }, []);
  useEffect(() => setWin({ x0: 0, x1: full }), [full]);

  const spans = data.spans;
  const span = Math.max(1e-6, win.x1 - win.x0);
  const px = (t: number) => ((axis.toAxis(t) - win.x0) / span) * width;
  const timeAtPx = (x: number) => axis.fromAxis(win.x0 + (x / width) * span);

  const clampWin = (x0: number, x1: number): Win => {
    const len = Math.min(Math.max(x1 - x0, 0.05), full * 1.1);
    let a = x0;
    if (a < -full * 0.05) a = -full * 0.05;
    if (a + len > full * 1.05) a = full * 1.05 - len;
    return { x0: a, x1: a + len };
  };
  const zoom = (factor: number, atPx = width / 2) => {
    const at = win.x0 + (atPx / width) * span;
    setWin(clampWin(at - (at - win.x0) * factor, at + (win.x1 - at) * factor));
  };
  const pan = (frac: number) => setWin(clampWin(win.x0 + span * frac, win.x1 + span * frac));
  const fitSpan = (s: WaterfallSpan) => {
    const a = axis.toAxis(s.start);
    const b = axis.toAxis(s.end);
    const pad = Math.max((b - a) * 0.04, 0.5);
    setWin(clampWin(a - pad, b + pad));
    const top = s.id * ROW;
    const el = bodyRef.current;
    if (el && (top < el.scrollTop || top > el.scrollTop + el.clientHeight - ROW)) el.scrollTop = Math.max(0, top - ROW * 2);
  };
  /** The turn holding the selection (or the playhead), else the first turn. */
  const currentTurn = (): WaterfallSpan | undefined => {
    const seq = selSeq.value;
    const turns = spans.filter((s) => s.type === 'turn');
    if (seq === null) return turns[0];
    return turns.find((s) => s.seq <= seq && (s.endSeq === null || seq <= s.endSeq)) ?? turns[0];
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    if (k === '+' || k === '=' || k === 'w') zoom(0.8);
    else if (k === '-' || k === '_' || k === 's') zoom(1.25);
    else if (k === 'ArrowLeft' || k === 'a') pan(-0.1);
    else if (k === 'ArrowRight' || k === 'd') pan(0.1);
    else if (k === '0') setWin({ x0: 0, x1: full });
    else if (k === 'f') { const t = currentTurn(); if (t) fitSpan(t); }
    else if (k === 'j' || k === 'ArrowDown' || k === 'k' || k === 'ArrowUp') {
      // The next or previous span: its first frame selected, its row scrolled into view.
      const seq = selSeq.value;
      const cur = seq === null ? -1 : spans[rowAt.current]?.seq === seq ? rowAt.current : spans.findIndex((x) => x.seq === seq);
      const i = Math.max(0, Math.min(spans.length - 1, cur + (k === 'j' || k === 'ArrowDown' ? 1 : -1)));
      const el = bodyRef.current;
      if (el && (i * ROW < el.scrollTop || (i + 1) * ROW > el.scrollTop + el.clientHeight)) el.scrollTop = Math.max(0, i * ROW - el.clientHeight / 2);
      clickSpan(spans[i]!);
    } else if (k === 'Enter') { const i = spans.findIndex((x) => x.seq === selSeq.value); if (i >= 0) fitSpan(spans[i]!); }
    else if (k === ' ') togglePlay();
    else if (k === ',') step(-1);
    else if (k === '.') step(1);
    else return;
    e.preventDefault();
  };

  // Wheel: ctrl/⌘ zooms at the pointer, shift or a sideways wheel pans, a plain wheel scrolls rows.
  useEffect(() => {
    const el = bodyRef.current;
    if (!el) return undefined;
    const onWheel = (e: WheelEvent) => {
      const r = el.getBoundingClientRect();
      const x = e.clientX - r.left - LABEL_W;
      if (e.ctrlKey || e.metaKey) {
        e.preventDefault();
        zoom(Math.exp(e.deltaY * 0.0025), Math.max(0, Math.min(width, x)));
      } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        e.preventDefault();
        pan(((e.shiftKey ? e.deltaY : e.deltaX) / width) * 1);
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  });

  // Drag on the bars pans; a press without a move is a click.
  const drag = useRef<{ x: number; win: Win; moved: boolean } | null>(null);
  /** The row last clicked or moved to (spans may share a first frame: a terminal and its create call). */
  const rowAt = useRef(-1);
  const onDown = (e: MouseEvent) => {
    if (e.button !== 0) return;
    drag.current = { x: e.clientX, win, moved: false };
    const move = (m: MouseEvent) => {
      const d = drag.current;
      if (!d) return;
      const dx = m.clientX - d.x;
      if (Math.abs(dx) > 3) d.moved = true;
      if (d.moved) {
        const sh = (-dx / width) * (d.win.x1 - d.win.x0);
        setWin(clampWin(d.win.x0 + sh, d.win.x1 + sh));
      }
    };
    const up = () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      setTimeout(() => { drag.current = null; }, 0);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  };
  const clickSpan = (s: WaterfallSpan) => {
    if (drag.current?.moved) return;
    rowAt.current = s.id;
    void jumpTo(s.seq, true);
    detailOpen.value = true;
  };
  const openFrames = (s: WaterfallSpan) => {
    const q = s.type === 'turn' ? `turn:${s.seq}` : s.type === 'session' && s.sessionId ? `session:${s.sessionId}` : `seq:${s.seq}-${s.endSeq ?? ''}`;
    setView('timeline');
    void applyFilter(q, s.seq);
  };

  // Scrubbing on the ruler.
  const onRuler = (e: MouseEvent) => {
    const el = e.currentTarget as HTMLElement;
    const r = el.getBoundingClientRect();
    const at = (m: MouseEvent) => setPlayhead(timeAtPx(Math.max(0, Math.min(width, m.clientX - r.left))), true);
    at(e);
    const move = (m: MouseEvent) => at(m);
    const up = () => { window.removeEventListener('mousemove', move); window.removeEventListener('mouseup', up); };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = Math.min(spans.length, Math.ceil((scrollTop + (height || 600)) / ROW) + OVERSCAN);
  const tStart = timeAtPx(0);
  const tEnd = timeAtPx(width);
  const stepMs = tickStep(span, width);
  // Ticks at round times of the recording's clock, continuing after each collapsed gap.
  const ticks: number[] = [];
  for (let t = Math.ceil(tStart / stepMs) * stepMs; t <= tEnd && ticks.length < 60; t += stepMs) {
    const g = data.gaps.find((x) => t > x.from && t < x.to);
    if (g) t = Math.ceil(g.to / stepMs) * stepMs;
    if (t <= tEnd) ticks.push(t);
  }
  const ph = playT.value;
  const phX = ph !== null ? px(ph) : null;
  // Noted items at their times: a mark on the ruler (click: the item) and a dashed line down the chart.
  const noteMarks = useMemo(() => {
    const at = new Map<number, number>();
    data.frames.seq.forEach((q, k) => at.set(q, data.frames.t[k]!));
    return [...notesBySeq.value.entries()].flatMap(([q, list]) => {
      const t = at.get(q);
      return t === undefined ? [] : [{ seq: q, t, text: list.map((n) => n.text || '(mark)').join('\n') }];
    });
  }, [data, notesBySeq.value]);
  const sel = selSeq.value;

  const rows = [];
  for (let i = first; i < last; i++) {
    const s = spans[i]!;
    const visible = s.end >= tStart && s.start <= tEnd;
    const x0 = px(s.start);
    const x1 = px(s.end);
    const left = Math.max(-2, x0);
    const right = Math.min(width + 2, x1);
    const selected = sel !== null && (s.seq === sel || s.endSeq === sel);
    rows.push(
      <div key={s.id} class={`wf-row${selected ? ' selected' : ''} wf-${s.type}`} style={{ top: `${i * ROW}px` }}>
        <div class="wf-label" style={{ paddingLeft: `${6 + s.depth * 14}px` }} title={s.label}>
          <span class="wf-label-text">{s.label}</span>
          {s.type === 'turn' && <button type="button" class="wf-fit" onClick={() => fitSpan(s)} aria-label={`Fit to ${s.label}`} title="Fit the time axis to this turn (f)">⤢</button>}
        </div>
        <div class="wf-track">
          {visible && (
            <div role="button" tabIndex={-1} aria-label={ariaLabelOf(s)} aria-pressed={selected}
              class={`wf-bar own-${s.owner} st-${s.status}`} style={{ left: `${left}px`, width: `${Math.max(2, right - left)}px` }}
              onClick={() => clickSpan(s)} onDblClick={() => openFrames(s)}
              onMouseMove={(e) => setHover({ s, x: e.clientX, y: e.clientY })} onMouseLeave={() => setHover(null)}>
              {s.type === 'turn' && waits.get(s.id)?.filter((w) => w.end >= tStart && w.start <= tEnd).sort((a, b) => (a.owner === b.owner ? 0 : a.owner === 'user' ? 1 : -1)).map((w, k) => {
                const a = Math.max(left, px(w.start));
                const b = Math.min(right, px(w.end));
                return <span key={k} class={`wf-seg own-${w.owner}`} style={{ left: `${a - left}px`, width: `${Math.max(1, b - a)}px` }} aria-hidden="true" />;
              })}
              {s.network !== undefined && s.network >= tStart && s.start <= tEnd && (() => {
                // A remote agent's request: the network part (its POST sent, the HTTP status back) drawn over the bar's start.
                const b = Math.min(right, px(s.network));
                return <span class="wf-seg wf-net" style={{ left: '0px', width: `${Math.max(1, b - left)}px` }} aria-hidden="true"
                  title={`network ${fmtDuration(s.network - s.start)} (HTTP ${s.httpStatus})`} />;
              })()}
              {right - left > 70 && <span class="wf-dur">{fmtDuration(s.end - s.start)}</span>}
              {s.firstChunk !== undefined && s.firstChunk <= tEnd && s.firstChunk >= tStart && (
                <span class="wf-ttfc" style={{ left: `${px(s.firstChunk) - left}px` }} aria-hidden="true" title={`first chunk after ${fmtDuration(s.firstChunk - s.start)}`} />
              )}
            </div>
          )}
        </div>
      </div>,
    );
  }

  return (
    <div class="wf" ref={rootRef} tabIndex={0} onKeyDown={onKey} role="region" aria-label="Waterfall: spans over time (j k or ↑ ↓ next span, Enter fit it, + − zoom, ← → pan, 0 fit all, f fit turn, space play, , . step)">
      <div class="wf-tools" role="toolbar" aria-label="Waterfall">
        <button type="button" onClick={() => zoom(0.67)} aria-label="Zoom in" title="Zoom in (+, ctrl/⌘+wheel)">+</button>
        <button type="button" onClick={() => zoom(1.5)} aria-label="Zoom out" title="Zoom out (−)">−</button>
        <button type="button" onClick={() => setWin({ x0: 0, x1: full })} title="Show the whole recording (0)">fit all</button>
        <button type="button" onClick={() => { const t = currentTurn(); if (t) fitSpan(t); }} title="Fit the turn holding the selection (f)">fit turn</button>
        <span class="wf-legend" aria-label="Colours">
          <span class="sw own-agent" aria-hidden="true" />agent working <span class="sw own-client" aria-hidden="true" />editor answering <span class="sw own-user" aria-hidden="true" />user deciding
          {hasNetwork && <><span class="sw wf-net" aria-hidden="true" />network</>}
          <span class="sw st-error" aria-hidden="true" />error <span class="sw st-unfinished" aria-hidden="true" />never ended <span class="wf-ttfc-key" aria-hidden="true" />first chunk
        </span>
        <span class="muted small-note">{spans.length.toLocaleString()} spans · {fmtDuration(data.end - data.start)}{data.gaps.length ? ` · ${data.gaps.length} idle gap${data.gaps.length === 1 ? '' : 's'} collapsed` : ''}</span>
      </div>
      <div class="wf-ruler-row">
        <div class="wf-ruler-label muted">{fmtClock(tStart)} – {fmtClock(tEnd)}</div>
        <div class="wf-ruler" onMouseDown={onRuler} role="slider" aria-label="Playhead" aria-valuemin={data.start} aria-valuemax={data.end}
          aria-valuenow={ph ?? data.start} aria-valuetext={ph !== null ? fmtClock(ph) : 'not set'} tabIndex={-1} title="Click or drag to move the playhead">
          {ticks.map((t) => <span key={t} class="wf-tick" style={{ left: `${px(t)}px` }}>{fmtTick(t, stepMs)}</span>)}
          {data.gaps.map((g, k) => {
            const a = px(g.from);
            const b = px(g.to);
            if (b < 0 || a > width) return null;
            return <span key={k} class="wf-gap-mark" style={{ left: `${a}px`, width: `${Math.max(4, b - a)}px` }} title={`idle ${fmtDuration(g.to - g.from)} (collapsed to ${GAP_SHOWN_MS / 1000} s)`}><span class="wf-gap-label">idle {fmtDuration(g.to - g.from)}</span></span>;
          })}
          {noteMarks.map((m) => {
            const x = px(m.t);
            if (x < 0 || x > width) return null;
            return <button key={m.seq} type="button" class="wf-note-mark" style={{ left: `${x}px` }} title={`#${m.seq}: ${m.text}`} aria-label={`Note on #${m.seq}`}
              onMouseDown={(e) => e.stopPropagation()} onClick={() => { detailOpen.value = true; void jumpTo(m.seq); }}>✎</button>;
          })}
          {phX !== null && phX >= 0 && phX <= width && <span class="wf-playhead-knob" style={{ left: `${phX}px` }} aria-hidden="true" />}
        </div>
      </div>
      <div class="wf-body" ref={bodyRef} onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)} onMouseDown={onDown}>
        <div class="wf-inner" style={{ height: `${spans.length * ROW}px` }} role="group" aria-label="Spans">
          {rows}
          {data.gaps.map((g, k) => {
            const a = px(g.from);
            const b = px(g.to);
            if (b < 0 || a > width) return null;
            return <div key={`g${k}`} class="wf-gap" style={{ left: `${LABEL_W + a}px`, width: `${Math.max(4, b - a)}px` }} aria-hidden="true" />;
          })}
          {noteMarks.map((m) => {
            const x = px(m.t);
            return x < 0 || x > width ? null : <div key={`n${m.seq}`} class="wf-note" style={{ left: `${LABEL_W + x}px` }} aria-hidden="true" />;
          })}
          {phX !== null && phX >= 0 && phX <= width && <div class="wf-playhead" style={{ left: `${LABEL_W + phX}px` }} aria-hidden="true" />}
        </div>
      </div>
      {hover && (
        <div class="wf-tip" role="tooltip" style={{ left: `${Math.min(hover.x + 12, window.innerWidth - 440)}px`, top: `${Math.min(hover.y + 14, window.innerHeight - 150)}px` }}>
          <strong>{hover.s.label}</strong>
          <div>{fmtDuration(hover.s.end - hover.s.start)} · starts at {fmtClock(hover.s.start)}</div>
          {hover.s.owner !== 'none' && <div class="muted">time of {OWNER_TEXT[hover.s.owner]}</div>}
          {hover.s.network !== undefined && <div>network {fmtDuration(hover.s.network - hover.s.start)} (POST sent → HTTP {hover.s.httpStatus}), agent {fmtDuration(hover.s.end - hover.s.network)}</div>}
          {hover.s.firstChunk !== undefined && <div>first chunk after {fmtDuration(hover.s.firstChunk - hover.s.start)}</div>}
          {hover.s.stopReason && <div>{hover.s.type === 'permission' ? 'answer' : 'stop reason'}: {hover.s.stopReason}</div>}
          {hover.s.status !== 'ok' && <div class={hover.s.status === 'error' || hover.s.status === 'failed' ? 'bad' : 'warn'}>{hover.s.status}{hover.s.note ? `: ${hover.s.note}` : ''}</div>}
          <div class="muted">#{hover.s.seq}{hover.s.endSeq !== null ? `–#${hover.s.endSeq}` : ' (never ended)'} · click selects, double-click shows its frames</div>
        </div>
      )}
    </div>
  );
}
