/** The recordings list: live ones marked, search by name, open, export, delete, import a .jsonl. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { server as api, type RunningConsoleInfo } from './api.js';
import { recordings, recordingsError, listSearch, loadRecordings, recId, writeUrl, openRecording, view, filter, selSeq, comparing, openCompare } from './model.js';
import { fmtDate, fmtMs } from './format.js';
import { indexingText } from '../../src/view/indexing.js';
import { AgentsCompare } from './agents-view.js';
import { openProbe, verdictClass } from './probe-view.js';
import { MatrixLink } from './matrix-view.js';
import { homeEntries, type HomeEntry } from './home-entries.js';
import { peerLabel } from '../../src/view/names.js';
import type { ProbeRunSummary, RecordingSummary } from './api.js';
import { PeerName } from './peer-name.js';

export function open(id: number): void {
  recId.value = id;
  comparing.value = false;
  view.value = 'timeline';
  filter.value = '';
  selSeq.value = null;
  writeUrl(true);
  void openRecording(id);
}

/** Whether the home page shows probe runs (a choice kept in this browser). */
function useShowProbes(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState<boolean>(() => { try { return localStorage.getItem('acp-inspect-probe-runs') !== 'hide'; } catch { return true; } });
  return [on, (v: boolean) => { setOn(v); try { localStorage.setItem('acp-inspect-probe-runs', v ? 'show' : 'hide'); } catch { /* no storage for this page */ } }];
}

/** One row of the table per visible entry: a recording, a probe run, or (when its run is open) a scenario's recording. */
type Row = { kind: 'recording'; r: RecordingSummary; nested: boolean } | Extract<HomeEntry, { kind: 'run' }>;


/** The consoles running on this database: what they drive, and their recording (their pages open from the URL each printed). */
function RunningConsoles() {
  const [list, setList] = useState<RunningConsoleInfo[]>([]);
  const n = recordings.value.length;
  const live = recordings.value.filter((r) => r.status === 'running').map((r) => r.id).join(',');
  useEffect(() => { api.consoles().then(setList).catch(() => setList([])); }, [n, live]);
  if (!list.length) return null;
  return (
    <section class="consoles" aria-label="Running consoles">
      <h2>Running consoles</h2>
      <ul>
        {list.map((c) => (
          <li key={c.pid}>
            <code>{c.command.join(' ')}</code> <span class="muted">in {c.cwd} · since {fmtDate(c.startedAt)} · at {c.address} (open it from the URL it printed)</span>
            {c.recordingId !== null && <>{' · '}<a href={`?rec=${c.recordingId}`} onClick={(e) => { e.preventDefault(); open(c.recordingId!); }}>recording #{c.recordingId}</a></>}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function RecordingsView() {
  const fileRef = useRef<HTMLInputElement>(null);
  const [msg, setMsg] = useState<string | null>(null);
  const [runs, setRuns] = useState<ProbeRunSummary[]>([]);
  const [showProbes, setShowProbes] = useShowProbes();
  const [openRuns, setOpenRuns] = useState<ReadonlySet<number>>(new Set());
  const n = recordings.value.length;
  useEffect(() => { api.probes().then(setRuns).catch(() => setRuns([])); }, [n]);
  const entries = homeEntries(recordings.value, runs, !!listSearch.value);
  const probeRuns = entries.filter((e) => e.kind === 'run').length;
  const rows: Row[] = [];
  for (const e of entries) {
    if (e.kind === 'recording') rows.push({ kind: 'recording', r: e.r, nested: false });
    else if (showProbes) {
      rows.push(e);
      if (openRuns.has(e.run.id)) for (const r of e.recs) rows.push({ kind: 'recording', r, nested: true });
    }
  }
  const toggleRun = (id: number) => setOpenRuns((s) => { const next = new Set(s); if (!next.delete(id)) next.add(id); return next; });
  const [cursor, setCursor] = useState<number | null>(null);
  const rowsRef = useRef<Row[]>(rows);
  rowsRef.current = rows;

  // j/k move through the list, Enter opens the recording (or probe run) under the cursor.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return;
      const n = rowsRef.current.length;
      if (!n) return;
      if (e.key === 'j' || e.key === 'ArrowDown') { e.preventDefault(); setCursor((c) => (c === null ? 0 : Math.min(n - 1, c + 1))); }
      else if (e.key === 'k' || e.key === 'ArrowUp') { e.preventDefault(); setCursor((c) => (c === null ? 0 : Math.max(0, c - 1))); }
      else if (e.key === 'Enter' && cursorRef.current !== null && t.tagName !== 'BUTTON' && t.tagName !== 'A') {
        e.preventDefault();
        const row = rowsRef.current[cursorRef.current];
        if (row?.kind === 'recording') open(row.r.id);
        else if (row) openProbe(row.run.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const cursorRef = useRef<number | null>(null);
  cursorRef.current = cursor;

  const onImport = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    setMsg(`Importing ${file.name}…`);
    try {
      const r = await api.importFile(file);
      setMsg(`Imported ${file.name} as recording ${r.id} (${r.items} items).`);
      await loadRecordings();
    } catch (err) {
      setMsg(`Import failed: ${(err as Error).message}`);
    }
    input.value = '';
  };
  const onDelete = async (id: number, name: string) => {
    if (!confirm(`Delete recording ${id}${name ? ` (${name})` : ''}? This cannot be undone.`)) return;
    try {
      await api.remove(id);
      setMsg(`Deleted recording ${id}.`);
      await loadRecordings();
    } catch (err) {
      setMsg(`Delete failed: ${(err as Error).message}`);
    }
  };

  return (
    <main class="recordings" aria-label="Recordings">
      <div class="toolbar">
        <input type="search" placeholder="Search by name, agent, client or command" aria-label="Search recordings" value={listSearch.value}
          onInput={(e) => { listSearch.value = (e.currentTarget as HTMLInputElement).value; void loadRecordings(); }} />
        <button type="button" onClick={() => fileRef.current?.click()} title="A transcript (.jsonl), an acp-devtools export (.json) or a copy of Zed's ACP log">Import…</button>
        <input ref={fileRef} type="file" accept=".jsonl,.ndjson,.json,application/x-ndjson,application/json" class="sr-only" aria-label="Transcript file to import" onChange={onImport} />
        {probeRuns > 0 && (
          <label class="toggle" title="Each probe run is one row; open it to see its scenarios' recordings">
            <input type="checkbox" checked={showProbes} onChange={(e) => setShowProbes((e.currentTarget as HTMLInputElement).checked)} /> probe runs ({probeRuns})
          </label>
        )}
        <MatrixLink />
        {msg && <span class="muted" role="status">{msg}</span>}
      </div>
      {recordingsError.value && <p class="bad" role="alert">{recordingsError.value}</p>}
      <RunningConsoles />
      {n === 0 && !recordingsError.value && (
        <div class="empty-state">
          <p>No recordings {listSearch.value ? 'match this search' : 'yet'}.</p>
          <p class="muted">Record one by putting <code>acp-inspect --</code> in front of the agent command your editor runs, or import a transcript.</p>
        </div>
      )}
      {n > 0 && (
        <table class="rec-table">
          <thead>
            <tr><th scope="col">#</th><th scope="col">name</th><th scope="col">agent</th><th scope="col">client</th><th scope="col">started</th>
              <th scope="col" class="num">duration</th><th scope="col" class="num">frames</th><th scope="col" class="num">errors</th><th scope="col" class="num">warnings</th><th scope="col">status</th><th scope="col"><span class="sr-only">actions</span></th></tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (row.kind === 'run'
              ? <ProbeRunRow key={`run-${row.run.id}`} entry={row} open={openRuns.has(row.run.id)} onToggle={() => toggleRun(row.run.id)} cursor={i === cursor} />
              : <RecordingRow key={row.r.id} r={row.r} nested={row.nested} cursor={i === cursor} onDelete={onDelete} />))}
          </tbody>
        </table>
      )}
      {n > 0 && <AgentsCompare />}
    </main>
  );
}

/** A start time that, when the table is tight, breaks between the day and the time and nowhere else. */
function When({ iso }: { iso: string }) {
  const [day, time] = fmtDate(iso).split(' ');
  return <><span class="nowrap">{day}</span> <span class="nowrap">{time}</span></>;
}

function RecordingRow({ r, nested, cursor, onDelete }: { r: RecordingSummary; nested: boolean; cursor: boolean; onDelete: (id: number, name: string) => Promise<void> }) {
  const scenario = nested ? (r.name ?? '').replace(/^probe (agent|client) #\d+: /, '') : null;
  return (
    <tr class={`${r.status === 'running' ? 'running' : ''}${cursor ? ' cursor' : ''}${nested ? ' nested' : ''}`} aria-current={cursor ? 'true' : undefined}>
      <td class="num">{r.id}</td>
      <td class="name"><a href={`?rec=${r.id}`} title={r.name ?? undefined} onClick={(e) => { e.preventDefault(); open(r.id); }}>{scenario ?? (r.name || r.command?.join(' ') || `recording ${r.id}`)}</a></td>
      <td class="peer-cell"><PeerName r={r} side="agent" /></td>
      <td class="peer-cell"><PeerName r={r} side="client" /></td>
      <td class="when"><When iso={r.startedAt} /></td>
      <td class="num">{fmtMs(r.durationMs)}</td>
      <td class="num">{r.frames}</td>
      <td class={`num${r.errors ? ' bad' : ''}`}>{r.errors || ''}</td>
      <td class={`num${r.warnings ? ' warn' : ''}`}>{r.warnings || ''}</td>
      <td>{r.indexing?.blocked ? <span class="pill warn" title="the database's disk is full: the rest of its capture log waits, and is indexed once space returns">{indexingText(r.indexing)}</span>
        : r.indexing && !r.indexing.live ? <span class="pill" title={`its tap has ended; the rest of its capture log is being indexed (${r.status})`}>{indexingText(r.indexing)}</span>
        : r.status === 'running' ? <span class="pill live"><span class="dot" aria-hidden="true" />live</span> : <span class={`pill ${r.incomplete ? 'warn' : ''}`}>{r.status}</span>}</td>
      <td class="actions">
        <button type="button" class="link" onClick={() => openCompare(r.id, null)} aria-label={`Compare recording ${r.id} with another`}>compare</button>
        <a href={api.exportUrl(r.id)} download={`acp-recording-${r.id}.jsonl`} title="Download as .jsonl (secrets redacted)">export</a>
        <a href={`${api.exportUrl(r.id)}?format=html`} download={`acp-recording-${r.id}.html`} title="Download one self-contained .html report that opens anywhere, offline (secrets redacted)">.html</a>
        <button type="button" class="link danger" disabled={r.status === 'running'} onClick={() => void onDelete(r.id, r.name ?? '')} aria-label={`Delete recording ${r.id}`}>delete</button>
      </td>
    </tr>
  );
}

/** A probe run: one row (its scorecard, target, start, how many recordings and their findings, verdict), opening on its scenarios' recordings. */
function ProbeRunRow({ entry, open: isOpen, onToggle, cursor }: { entry: Extract<HomeEntry, { kind: 'run' }>; open: boolean; onToggle: () => void; cursor: boolean }) {
  const { run, recs } = entry;
  const side = run.probe === 'client' ? 'client' : 'agent';
  const command = !run.target && recs[0] ? peerLabel(recs[0], side) : null;
  const target = run.target ?? command;
  const sum = (k: 'errors' | 'warnings' | 'frames') => recs.reduce((a, r) => a + r[k], 0);
  const first = recs.at(-1);
  const ended = recs.reduce<number | null>((a, r) => (r.endedAt ? Math.max(a ?? 0, Date.parse(r.endedAt)) : a), null);
  return (
    <tr class={`probe-run${cursor ? ' cursor' : ''}`} data-probe-run={run.id} aria-current={cursor ? 'true' : undefined}>
      <td class="num">
        {recs.length > 0 && <button type="button" class="link disclosure" aria-expanded={isOpen} onClick={onToggle}
          aria-label={`${isOpen ? 'Hide' : 'Show'} the ${recs.length} recordings of probe run ${run.id}`}>{isOpen ? '▾' : '▸'}</button>}
      </td>
      <td class="name"><a href={`?probe=${run.id}`} onClick={(e) => { e.preventDefault(); openProbe(run.id); }}>probe {run.probe} #{run.id}</a>
        <span class="muted"> · {recs.length} recording{recs.length === 1 ? '' : 's'}</span></td>
      <td class="peer-cell">{side === 'agent' && target ? <span class={`peer${command ? ' cmd' : ''}`}>{target}</span> : ''}</td>
      <td class="peer-cell">{side === 'client' && target ? <span class={`peer${command ? ' cmd' : ''}`}>{target}</span> : ''}</td>
      <td class="when"><When iso={run.startedAt} /></td>
      <td class="num">{first && ended !== null ? fmtMs(ended - Date.parse(first.startedAt)) : ''}</td>
      <td class="num">{recs.length ? sum('frames') : ''}</td>
      <td class={`num${sum('errors') ? ' bad' : ''}`}>{sum('errors') || ''}</td>
      <td class={`num${sum('warnings') ? ' warn' : ''}`}>{sum('warnings') || ''}</td>
      <td colSpan={2}>{run.verdict ? <span class={`pill ${verdictClass(run.verdict)}`}>{run.verdict}</span> : <span class="pill">{run.endedAt ? 'could not run' : 'running'}</span>}</td>
    </tr>
  );
}
