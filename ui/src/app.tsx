/** The page: header, recordings list or one recording (timeline, turns, findings, stats) with its detail pane; keyboard shortcuts. */
import './safe-text.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  recId, view, current, loadError, filter, filterError, timeline, selIndex, select, timeMode, follow, isLive, setView,
  applyFilter, jumpTo, findings, detailOpen, noteFocusWanted, writeUrl, openRecording, readUrl, liveConnected, refSeq, refT, selSeq, type View, type TimeMode,
  comparing, openCompare, single, notes, probeId, matrixId, grouped, setGrouped, groupLayout, toggleSelectedTurn, setAllExpanded, expandAll, toggledTurns,
} from './model.js';
import { source, serverApi } from './api.js';
import { RecordingsView } from './recordings-view.js';
import { TimelineList } from './timeline-view.js';
import { DetailPane } from './detail-pane.js';
import { FindingsPanel } from './panels.js';
import { NotesPanel } from './notes-view.js';
import { InsightsView } from './insights-view.js';
import { WaterfallView } from './waterfall-view.js';
import { PlaybackBar } from './playback-bar.js';
import { step as stepPlayhead } from './playback.js';
import { TurnsView } from './turns-view.js';
import { CompareView } from './compare-view.js';
import { ProbeScorecard, ProbeRunLink } from './probe-view.js';
import { MatrixView } from './matrix-view.js';
import { fmtMs, fmtDate } from './format.js';
import { peerLabel } from '../../src/view/names.js';
import { downloadText } from './download.js';

type Theme = 'auto' | 'light' | 'dark';

function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => { try { return (localStorage.getItem('acp-inspect-theme') as Theme | null) ?? 'auto'; } catch { return 'auto'; } });
  useEffect(() => {
    if (theme === 'auto') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    try { localStorage.setItem('acp-inspect-theme', theme); } catch { /* no storage for this page (file://, private mode) */ }
  }, [theme]);
  return [theme, () => setTheme(theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto')];
}

const FILTER_HELP = 'method:session/update  dir:c2a|a2c|stderr  kind:request|notification|result|error  session:ID  turn:SEQ  id:N  seq:10-20  is:error  has:finding  severity:warning  rule:ID  -key:value negates; other words search the raw text; #SEQ alone goes to that item';

function FilterBar({ inputRef }: { inputRef: { current: HTMLInputElement | null } }) {
  const [text, setText] = useState(filter.value);
  useEffect(() => setText(filter.value), [filter.value]);
  const tl = timeline.value;
  const has = (term: string) => filter.value.split(/\s+/).includes(term);
  const toggle = (term: string, group?: RegExp) => {
    let terms = filter.value.split(/\s+/).filter(Boolean);
    const on = terms.includes(term);
    if (group) terms = terms.filter((t) => !group.test(t));
    else terms = terms.filter((t) => t !== term);
    if (!on) terms.push(term);
    void applyFilter(terms.join(' '));
  };
  // `#SEQ` alone goes to that item (the filter stays, unless it hides the item); anything else filters.
  const submit = () => {
    const go = /^#(\d+)$/.exec(text.trim());
    if (!go) { void applyFilter(text.trim()); return; }
    setText(filter.value);
    void jumpTo(Number(go[1]));
  };
  return (
    <form class="filterbar" role="search" onSubmit={(e) => { e.preventDefault(); submit(); }}>
      <input ref={inputRef} type="search" value={text} placeholder="Filter: method:session/prompt dir:a2c is:error text…  (press / )" aria-label="Filter the timeline"
        title={FILTER_HELP} aria-describedby="filter-help" onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => { if (e.key === 'Escape') { (e.currentTarget as HTMLInputElement).blur(); } }} />
      <span id="filter-help" class="sr-only">{FILTER_HELP}</span>
      <div class="chips" role="group" aria-label="Quick filters">
        <button type="button" aria-pressed={has('dir:c2a')} onClick={() => toggle('dir:c2a', /^dir:/)}>client→agent</button>
        <button type="button" aria-pressed={has('dir:a2c')} onClick={() => toggle('dir:a2c', /^dir:/)}>agent→client</button>
        <button type="button" aria-pressed={has('dir:stderr')} onClick={() => toggle('dir:stderr', /^dir:/)}>stderr</button>
        <button type="button" aria-pressed={has('-method:session/update')} onClick={() => toggle('-method:session/update')} title="Hide session/update notifications">no updates</button>
        <button type="button" aria-pressed={has('is:error')} onClick={() => toggle('is:error')}>errors only</button>
      </div>
      <span class="count" aria-live="polite">{tl ? `${tl.total.value.toLocaleString()}${tl.counting.value ? '+' : ''} item${tl.total.value === 1 ? '' : 's'}${tl.counting.value ? ' (filtering…)' : ''}` : ''}</span>
      {filterError.value && <span class="bad" role="alert">{filterError.value}</span>}
    </form>
  );
}

/** `s`, cut to `n` characters with "…" (a shell script given as an agent's command can be a paragraph). */
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function RecordingHeader() {
  const r = current.value;
  if (!r) return null;
  const nf = findings.value;
  const counts = { error: r.errors, warning: r.warnings };
  const views: [View, string][] = [['timeline', 'Timeline'], ['waterfall', 'Waterfall'], ['turns', 'Turns'], ['findings', `Findings${nf ? ` (${nf.length})` : ''}`], ['notes', `Notes${notes.value?.length ? ` (${notes.value.length})` : ''}`], ['insights', 'Insights']];
  return (
    <div class="rec-head">
      <div class="rec-title">
        <h1>{r.name || r.command?.join(' ') || `Recording ${r.id}`}</h1>
        <ProbeRunLink name={r.name} />
        {isLive.value ? <span class="pill live"><span class="dot" aria-hidden="true" />live{liveConnected.value ? '' : ' (reconnecting)'}</span> : <span class="pill">{r.status}</span>}
        <span class="muted" title={r.command ? `started as: ${r.command.join(' ')}` : undefined}>
          {[peerLabel(r, 'agent') && `agent ${clip(peerLabel(r, 'agent')!, 36)}`, peerLabel(r, 'client') && `client ${clip(peerLabel(r, 'client')!, 36)}`,
            r.protocolVersion !== null && `protocol v${r.protocolVersion}`, fmtDate(r.startedAt), r.durationMs !== null && fmtMs(r.durationMs), `${r.frames} frames`].filter(Boolean).join(' · ')}
        </span>
        {counts.error > 0 && <button type="button" class="badge-btn" onClick={() => setView('findings')}><span class="badge sev-error">{counts.error}</span> errors</button>}
        {counts.warning > 0 && <button type="button" class="badge-btn" onClick={() => setView('findings')}><span class="badge sev-warning">{counts.warning}</span> warnings</button>}
        {source.caps.compare && <button type="button" class="compare-btn" onClick={() => openCompare(r.id, null)} title="Align this recording with another one, frame by frame">Compare with…</button>}
      </div>
      <div class="rec-tabs">
        <div role="tablist" class="tabs" aria-label="Views">
          {views.map(([v, label]) => <button key={v} type="button" role="tab" aria-selected={view.value === v} class={view.value === v ? 'active' : ''} onClick={() => setView(v)}>{label}</button>)}
        </div>
        {(view.value === 'timeline' || view.value === 'waterfall' || view.value === 'turns') && <PlaybackBar />}
        {view.value === 'timeline' && (
          <div class="time-modes" role="radiogroup" aria-label="Time column">
            {([['rel', 'relative'], ['delta', 'Δ previous'], ['ref', 'Δ reference']] as [TimeMode, string][]).map(([m, label]) => (
              <button key={m} type="button" role="radio" aria-checked={timeMode.value === m} disabled={m === 'ref' && refSeq.value === null}
                title={m === 'ref' && refSeq.value === null ? 'Set a reference item in the detail pane first' : undefined}
                onClick={() => { timeMode.value = m; writeUrl(); }}>{label}</button>
            ))}
            <span class="sep" aria-hidden="true" />
            <button type="button" aria-pressed={grouped.value} onClick={() => setGrouped(!grouped.value)}
              title="Group the timeline by session and prompt turn; a collapsed turn shows its summary (←/→ close and open the selected turn)">group by turn</button>
            {grouped.value && groupLayout.value && !groupLayout.value.entries.some((e) => e.kind === 'turn') && (
              <span class="muted small-note" role="status">no prompt turn{filter.value ? ' matches this filter' : ' in this recording'}</span>
            )}
            {grouped.value && (
              <button type="button" onClick={() => setAllExpanded(!(expandAll.value && toggledTurns.value.size === 0))}>
                {expandAll.value && toggledTurns.value.size === 0 ? 'collapse all' : 'expand all'}
              </button>
            )}
            {isLive.value && (
              <button type="button" aria-pressed={follow.value} onClick={() => { follow.value = !follow.value; const tl = timeline.value; if (follow.value && tl) select(null); }} title="Keep the newest item in view">
                {follow.value ? 'following' : 'follow'}
              </button>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

/** Saves the recording of a single-recording page as a .jsonl (made in the page; nothing is sent anywhere). */
function SaveTranscript({ make }: { make: () => { name: string; text: string } }) {
  const save = () => {
    const { name, text } = make();
    downloadText(name, text);
  };
  return <button type="button" class="link" onClick={save} title="Save this recording as a transcript, to check, replay or import it with acp-inspect">save .jsonl</button>;
}

/** The timeline's keys (j/k, g/G, Enter, Esc, ←/→, `/`, `,` `.`, n) on any page that shows it: the app and the console. */
export function useTimelineKeys(filterRef: { current: HTMLInputElement | null }): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      const typing = target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '/' && !typing) {
        e.preventDefault();
        if (recId.value !== null && view.value !== 'timeline') setView('timeline');
        setTimeout(() => { (filterRef.current ?? document.querySelector<HTMLInputElement>('input[type=search]'))?.focus(); }, 0);
        return;
      }
      if (!typing && recId.value !== null && (e.key === ',' || e.key === '.') && (view.value === 'timeline' || view.value === 'turns')) {
        e.preventDefault();
        stepPlayhead(e.key === '.' ? 1 : -1);
        return;
      }
      if (typing || recId.value === null || view.value !== 'timeline') return;
      // Enter on a button or link presses it (the console's controls sit beside the timeline).
      if (e.key === 'Enter' && (target.tagName === 'BUTTON' || target.tagName === 'A' || target.tagName === 'SUMMARY')) return;
      const tl = timeline.value;
      if (!tl) return;
      const cur = selIndex.value;
      const L = groupLayout.value;
      const step = (dir: 1 | -1) => (cur === null ? 0 : L ? L.step(cur, dir, tl.total.value) : cur + dir);
      if (e.key === 'j' || e.key === 'ArrowDown') { e.preventDefault(); select(step(1)); follow.value = false; }
      else if (e.key === 'k' || e.key === 'ArrowUp') { e.preventDefault(); select(step(-1)); follow.value = false; }
      else if (L && (e.key === 'ArrowLeft' || e.key === 'h')) { e.preventDefault(); toggleSelectedTurn(false); }
      else if (L && (e.key === 'ArrowRight' || e.key === 'l')) { e.preventDefault(); toggleSelectedTurn(true); }
      else if (e.key === 'g' || e.key === 'Home') { e.preventDefault(); select(0); }
      else if (e.key === 'G' || e.key === 'End') { e.preventDefault(); select(tl.total.value - 1); }
      else if (e.key === 'Enter') { e.preventDefault(); if (cur === null) select(0); detailOpen.value = true; }
      else if (e.key === 'Escape') { detailOpen.value = false; }
      else if (e.key === 'n' && serverApi()) {
        e.preventDefault();
        if (cur === null) select(0);
        detailOpen.value = true;
        // The box takes it when it is there (ItemNotes): now, or once the pane has loaded its item.
        noteFocusWanted.value = true;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function App() {
  const [theme, cycleTheme] = useTheme();
  const filterRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onPop = () => { const prev = recId.value; const prevProbe = probeId.value; const prevMatrix = matrixId.value; const wasComparing = comparing.value; readUrl(); if (comparing.value !== wasComparing && recId.value === null) { void openRecording(null); return; } if (recId.value !== prev || (recId.value === null && (probeId.value !== prevProbe || matrixId.value !== prevMatrix))) void openRecording(recId.value); else if (timeline.value?.q !== filter.value) void applyFilter(filter.value); };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  useEffect(() => {
    if (refSeq.value !== null && refT.value === null && recId.value !== null) {
      void source.item(recId.value, refSeq.value).then((d) => { refT.value = d.item.t; }).catch(() => undefined);
    }
  }, [recId.value, refSeq.value]);

  useTimelineKeys(filterRef);

  const goHome = (e: Event) => {
    e.preventDefault();
    recId.value = null;
    probeId.value = null;
    matrixId.value = null;
    comparing.value = false;
    writeUrl(true);
    void openRecording(null);
  };

  return (
    <div class="app">
      <header class="topbar">
        {single.value ? <span class="brand">acp-inspect</span> : <a href="./" class="brand" onClick={goHome}>acp-inspect</a>}
        {single.value ? <span class="crumbs single-note" role="note">{single.value.note}{single.value.transcript && <>{' · '}<SaveTranscript make={single.value.transcript} /></>}</span> : <nav aria-label="Breadcrumb" class="crumbs">
          <a href="./" onClick={goHome} aria-current={recId.value === null && probeId.value === null && matrixId.value === null && !comparing.value ? 'page' : undefined}>Recordings</a>
          {recId.value !== null && <span> / #{recId.value}</span>}
          {recId.value === null && probeId.value !== null && <span> / probe run #{probeId.value}</span>}
          {recId.value === null && probeId.value === null && matrixId.value !== null && <span> / probe matrix #{matrixId.value}</span>}
          {' · '}<a href="?view=compare" aria-current={comparing.value ? 'page' : undefined} onClick={(e) => { e.preventDefault(); if (!comparing.value) openCompare(recId.value, null); }}>Compare</a>
          {' · '}<a href="/viewer/" title="The static viewer: open a .jsonl someone sent you, checked in the browser">Viewer</a>
        </nav>}
        <span class="spacer-flex" />
        <span class="keys muted" aria-hidden="true">j/k move · ←/→ turn · , . step · / filter · Enter open · n note · Esc close</span>
        <button type="button" class="theme" onClick={cycleTheme} aria-label={`Theme: ${theme}; switch`}>{theme === 'auto' ? '◐ auto' : theme === 'dark' ? '● dark' : '○ light'}</button>
      </header>
      {comparing.value ? <CompareView /> : recId.value === null && probeId.value !== null ? <ProbeScorecard id={probeId.value} /> : recId.value === null && matrixId.value !== null ? <MatrixView id={matrixId.value} /> : recId.value === null ? <RecordingsView /> : loadError.value ? (
        <main class="panel"><p class="bad" role="alert">{loadError.value}</p>{!single.value && <p><a href="./" onClick={goHome}>Back to the recordings</a></p>}</main>
      ) : (
        <main class="recording" aria-label="Recording">
          <RecordingHeader />
          {view.value === 'timeline' && (
            <>
              <FilterBar inputRef={filterRef} />
              <div class={`split${detailOpen.value && selSeq.value !== null ? ' with-detail' : ''}`}>
                <TimelineList />
                {detailOpen.value && selSeq.value !== null && <DetailPane />}
              </div>
            </>
          )}
          {view.value === 'turns' && <TurnsView />}
          {view.value === 'findings' && <FindingsPanel />}
          {view.value === 'notes' && <NotesPanel />}
          {view.value === 'waterfall' && <WaterfallView />}
          {view.value === 'insights' && <InsightsView />}
        </main>
      )}
    </div>
  );
}
