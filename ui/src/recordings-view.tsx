/** The recordings list: live ones marked, search by name, open, export, delete, import a .jsonl. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { server as api, type RunningConsoleInfo } from './api.js';
import { recordings, recordingsError, listSearch, loadRecordings, recId, writeUrl, openRecording, view, filter, selSeq, comparing, openCompare } from './model.js';
import { fmtDate, fmtMs } from './format.js';
import { AgentsCompare } from './agents-view.js';
import { ProbeRuns } from './probe-view.js';

export function open(id: number): void {
  recId.value = id;
  comparing.value = false;
  view.value = 'timeline';
  filter.value = '';
  selSeq.value = null;
  writeUrl(true);
  void openRecording(id);
}

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
  const list = recordings.value;
  const [cursor, setCursor] = useState<number | null>(null);

  // j/k move through the list, Enter opens the recording under the cursor.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return;
      const n = recordings.value.length;
      if (!n) return;
      if (e.key === 'j' || e.key === 'ArrowDown') { e.preventDefault(); setCursor((c) => (c === null ? 0 : Math.min(n - 1, c + 1))); }
      else if (e.key === 'k' || e.key === 'ArrowUp') { e.preventDefault(); setCursor((c) => (c === null ? 0 : Math.max(0, c - 1))); }
      else if (e.key === 'Enter' && cursorRef.current !== null && t.tagName !== 'BUTTON' && t.tagName !== 'A') {
        e.preventDefault();
        const r = recordings.value[cursorRef.current];
        if (r) open(r.id);
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
        {msg && <span class="muted" role="status">{msg}</span>}
      </div>
      {recordingsError.value && <p class="bad" role="alert">{recordingsError.value}</p>}
      <RunningConsoles />
      {list.length === 0 && !recordingsError.value && (
        <div class="empty-state">
          <p>No recordings {listSearch.value ? 'match this search' : 'yet'}.</p>
          <p class="muted">Record one by putting <code>acp-inspect --</code> in front of the agent command your editor runs, or import a transcript.</p>
        </div>
      )}
      {list.length > 0 && (
        <table class="rec-table">
          <thead>
            <tr><th scope="col">#</th><th scope="col">name</th><th scope="col">agent</th><th scope="col">client</th><th scope="col">started</th>
              <th scope="col" class="num">duration</th><th scope="col" class="num">frames</th><th scope="col" class="num">errors</th><th scope="col" class="num">warnings</th><th scope="col">status</th><th scope="col"><span class="sr-only">actions</span></th></tr>
          </thead>
          <tbody>
            {list.map((r, i) => (
              <tr key={r.id} class={`${r.status === 'running' ? 'running' : ''}${i === cursor ? ' cursor' : ''}`} aria-current={i === cursor ? 'true' : undefined}>
                <td class="num">{r.id}</td>
                <td><a href={`?rec=${r.id}`} onClick={(e) => { e.preventDefault(); open(r.id); }}>{r.name || r.command?.join(' ') || `recording ${r.id}`}</a></td>
                <td>{[r.agent.name, r.agent.version].filter(Boolean).join(' ')}</td>
                <td>{[r.client.name, r.client.version].filter(Boolean).join(' ')}</td>
                <td>{fmtDate(r.startedAt)}</td>
                <td class="num">{fmtMs(r.durationMs)}</td>
                <td class="num">{r.frames}</td>
                <td class={`num${r.errors ? ' bad' : ''}`}>{r.errors || ''}</td>
                <td class={`num${r.warnings ? ' warn' : ''}`}>{r.warnings || ''}</td>
                <td>{r.indexing ? <span class="pill" title={`its tap has ended; the rest of its capture log is being indexed (${r.status})`}>indexing {Math.floor((100 * r.indexing.indexedBytes) / Math.max(1, r.indexing.totalBytes))}%</span>
                  : r.status === 'running' ? <span class="pill live"><span class="dot" aria-hidden="true" />live</span> : <span class={`pill ${r.incomplete ? 'warn' : ''}`}>{r.status}</span>}</td>
                <td class="actions">
                  <button type="button" class="link" onClick={() => openCompare(r.id, null)} aria-label={`Compare recording ${r.id} with another`}>compare</button>
                  <a href={api.exportUrl(r.id)} download={`acp-recording-${r.id}.jsonl`} title="Download as .jsonl (secrets redacted)">export</a>{' '}
                  <a href={`${api.exportUrl(r.id)}?format=html`} download={`acp-recording-${r.id}.html`} title="Download one self-contained .html report that opens anywhere, offline (secrets redacted)">.html</a>
                  <button type="button" class="link danger" disabled={r.status === 'running'} onClick={() => void onDelete(r.id, r.name ?? '')} aria-label={`Delete recording ${r.id}`}>delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.length > 0 && <AgentsCompare />}
      <ProbeRuns />
    </main>
  );
}
