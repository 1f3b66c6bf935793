/** Prompt turns grouped by session; each collapsed turn shows what happened in it, expanded into frames on demand. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { source, type TurnInfo, type TurnDetail } from './api.js';
import { recId, applyFilter, setView, current, setGrouped, setTurnExpanded, jumpTo, atSeq, selSeq } from './model.js';
import { wf } from './playback.js';
import { Markdown } from './markdown.js';
import { DiffView } from './diff-view.js';
import { fmtClock, fmtMs } from './format.js';
import { downloadText } from './download.js';

/**
 * What a turn did: the agent's message (Markdown), thoughts, plan, tool calls with diffs, permissions,
 * fs/terminal calls, cancel. `terminal`, where given (the console), draws a terminal a tool call names.
 */
export function TurnSummaryBody({ d, terminal }: { d: TurnDetail; terminal?: (terminalId: string) => ComponentChildren }) {
  const empty = !d.message && !d.thought && !d.plan && d.toolCalls.length === 0 && d.permissions.length === 0 && d.calls.length === 0 && !d.cancelled;
  return (
    <div class="turn-body">
      {empty && <p class="muted">No message, tool call or plan in this turn{d.stopReason ? ` (stop reason: ${d.stopReason})` : ''}.</p>}
      {d.message && <section><h4>Agent</h4><Markdown text={d.message} /></section>}
      {d.thought && <details><summary>Thoughts</summary><Markdown text={d.thought} /></details>}
      {d.plan && (
        <section><h4>Plan</h4>
          <ul class="plan">{d.plan.map((e, i) => <li key={i} class={`plan-${e.status}`}><span class="pill">{e.status}</span> {e.content}{e.priority ? <span class="muted"> · {e.priority}</span> : null}</li>)}</ul>
        </section>
      )}
      {d.toolCalls.length > 0 && (
        <section><h4>Tool calls</h4>
          {d.toolCalls.map((tc) => (
            <details key={tc.toolCallId} class="tool-call" open={(tc.diffs.length > 0 || (terminal !== undefined && tc.terminals.length > 0)) && d.toolCalls.length <= 3}>
              <summary><span class={`pill st-${tc.status ?? 'none'}`}>{tc.status ?? '?'}</span> {tc.title ?? tc.toolCallId} <span class="muted">{tc.kind ?? ''} · {tc.toolCallId}</span></summary>
              {tc.content.map((c, i) => <pre key={i} class="raw small">{c}</pre>)}
              {terminal && tc.terminals.map((id) => <div key={`t-${id}`}>{terminal(id)}</div>)}
              {tc.diffs.map((df, i) => <DiffView key={i} before={df.oldText ?? ''} after={df.newText} label={`${df.path}${df.oldText === null ? ' (new file)' : ''}`} />)}
            </details>
          ))}
        </section>
      )}
      {d.permissions.length > 0 && (
        <section><h4>Permission requests</h4>
          <ul>{d.permissions.map((p) => <li key={p.seq}>#{p.seq} {p.title ?? ''} <span class="muted">[{p.options.join(' | ')}]</span> → <strong>{p.outcome ?? 'unanswered'}</strong>{p.waitedMs !== null && <span class="muted"> after waiting {fmtMs(p.waitedMs)}</span>}</li>)}</ul>
        </section>
      )}
      {d.calls.length > 0 && (
        <section><h4>fs and terminal calls</h4>
          <ul>{d.calls.map((c) => <li key={c.seq}>#{c.seq} <code>{c.method}</code> {c.summary} <span class="muted">{fmtMs(c.latency)}</span>{c.error && <span class="bad"> {c.error}</span>}</li>)}</ul>
        </section>
      )}
      {d.cancelled && <p class="warn">Cancelled by the client at {fmtClock(d.cancelled.t)} (#{d.cancelled.seq}).</p>}
    </div>
  );
}

function TurnCard({ turn }: { turn: TurnInfo }) {
  const id = recId.value!;
  const [d, setD] = useState<TurnDetail | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const running = turn.endSeq === null;
  const ref = useRef<HTMLElement>(null);
  const [seen, setSeen] = useState(false);
  // Fetch a turn's summary only once it scrolls near the view (recordings can hold thousands of turns).
  useEffect(() => {
    const el = ref.current;
    if (!el || seen) return undefined;
    const io = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) setSeen(true); }, { rootMargin: '400px' });
    io.observe(el);
    return () => io.disconnect();
  }, [seen]);
  // With the playhead inside this turn, the card shows the turn as it stood there.
  const at = atSeq.value;
  const upTo = at !== null && at >= turn.seq && (turn.endSeq === null || at < turn.endSeq) ? at : undefined;
  useEffect(() => {
    if (!seen) return;
    source.turn(id, turn.seq, upTo).then(setD).catch((e: Error) => setErr(e.message));
  }, [seen, id, turn.seq, turn.endSeq, running ? current.value?.items : 0, upTo]);
  // The timeline grouped by turn, this turn open and its prompt selected.
  const showFrames = () => { setTurnExpanded(turn.seq, true); setGrouped(true); void jumpTo(turn.seq); };
  const [saving, setSaving] = useState<string | null>(null);
  const saveFixture = () => {
    setSaving('cutting…');
    source.fixture(id, turn.seq).then((f) => {
      downloadText(f.name, f.text);
      setSaving(f.warnings.length ? `saved ${f.name}; ${f.warnings.join('; ')}` : `saved ${f.name}`);
    }).catch((e: Error) => setSaving(`could not cut the fixture: ${e.message}`));
  };
  return (
    <article ref={ref} class="turn" aria-label={`Turn at #${turn.seq}`}>
      <header class="turn-head">
        <span class="turn-when">{fmtClock(turn.t)}</span>
        <span class="turn-prompt" title={turn.prompt}>“{turn.prompt || '(no text)'}”</span>
        <span class={`pill ${running ? 'live' : turn.stopReason === 'end_turn' ? 'ok' : 'warn'}`}>{running ? 'running' : turn.stopReason ?? 'no stop reason'}</span>
        {upTo !== undefined && <span class="pill live" title="The card shows the turn as it stood at the playhead">at the playhead #{upTo}</span>}
        <span class="muted">{turn.durationMs !== null ? fmtMs(turn.durationMs) : ''}</span>
        {d && (d.findings.error + d.findings.warning) > 0 && (
          <span>{d.findings.error > 0 && <span class="badge sev-error">{d.findings.error}</span>}{d.findings.warning > 0 && <span class="badge sev-warning">{d.findings.warning}</span>}</span>
        )}
        <button type="button" onClick={showFrames} title="Show the frames of this turn in the timeline, grouped by turn">Frames ({d?.items ?? '…'}) ▸</button>
        {!running && <button type="button" onClick={saveFixture} title="Save this turn as a test fixture: a transcript with initialize and the session set-up it depends on, for replay and mockAgent">Save as fixture</button>}
      </header>
      {saving && <p class="muted small-note turn-body" role="status">{saving}</p>}
      {err && <p class="bad">{err}</p>}
      {!d && !err && <p class="muted turn-body">Loading…</p>}
      {d && <TurnSummaryBody d={d} />}
    </article>
  );
}

const SHOWN = 100;

function SessionTurns({ list }: { list: TurnInfo[] }) {
  const [n, setN] = useState(SHOWN);
  return (
    <>
      {list.slice(0, n).map((t) => <TurnCard key={t.seq} turn={t} />)}
      {list.length > n && <button type="button" onClick={() => setN(n + SHOWN)}>Show {Math.min(SHOWN, list.length - n)} more of {list.length - n} turns</button>}
    </>
  );
}

export function TurnsView() {
  const id = recId.value;
  const [turns, setTurns] = useState<TurnInfo[] | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const items = current.value?.items;
  useEffect(() => {
    if (id === null) return;
    source.turns(id).then(setTurns).catch((e: Error) => setErr(e.message));
  }, [id, items]);
  if (err) return <div class="panel"><p class="bad">{err}</p></div>;
  if (!turns) return <div class="panel"><p class="muted">Loading turns…</p></div>;
  if (turns.length === 0) return <div class="panel"><p class="muted">No prompt turns (no session/prompt request) in this recording.</p></div>;
  const sessions = new Map<string, TurnInfo[]>();
  for (const t of turns) sessions.set(t.sessionId ?? '(no session)', [...(sessions.get(t.sessionId ?? '(no session)') ?? []), t]);
  return (
    <div class="panel turns">
      {[...sessions.entries()].map(([sid, list]) => (
        <section key={sid} class="session-group" aria-label={`Session ${sid}`}>
          <h2>Session <code>{sid}</code> <span class="muted">· {list.length} turn{list.length === 1 ? '' : 's'}</span>{' '}
            <button type="button" class="link" onClick={() => { void applyFilter(`session:${sid}`, null); setView('timeline'); }}>frames</button></h2>
          <SessionTurns list={list} />
        </section>
      ))}
    </div>
  );
}

/**
 * The turn holding the selection (the playhead), as it stood at that item: the waterfall's side
 * panel, so a turn unfolds there while it plays.
 */
export function PlayheadTurn() {
  const id = recId.value;
  const seq = selSeq.value;
  const data = wf.value?.data;
  const turn = data && seq !== null ? data.spans.find((s) => s.type === 'turn' && s.seq <= seq && (s.endSeq === null || seq <= s.endSeq)) : undefined;
  const [d, setD] = useState<TurnDetail | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const last = useRef(0);
  useEffect(() => {
    if (id === null || !turn || seq === null) { setD(null); return undefined; }
    // Playback moves the selection often: ask at most every 250 ms, always for the newest position.
    const wait = Math.max(0, last.current + 250 - performance.now());
    const timer = setTimeout(() => {
      last.current = performance.now();
      source.turn(id, turn.seq, seq).then((x) => { setD(x); setErr(null); }).catch((e: Error) => setErr(e.message));
    }, wait);
    return () => clearTimeout(timer);
  }, [id, turn?.seq, seq]);
  if (!turn) return null;
  return (
    <section class="turn playhead-turn" aria-label={`Turn at #${turn.seq} at the playhead`}>
      <header class="turn-head">
        <span class="turn-when">{fmtClock(turn.start)}</span>
        <span class="turn-prompt" title={turn.label}>{turn.label}</span>
        {d && <span class={`pill ${d.endSeq === null ? 'live' : d.stopReason === 'end_turn' ? 'ok' : 'warn'}`}>{d.endSeq === null ? `running at #${seq}` : d.stopReason ?? 'no stop reason'}</span>}
      </header>
      {err && <p class="bad">{err}</p>}
      {d && d.seq === turn.seq && <TurnSummaryBody d={d} />}
    </section>
  );
}
