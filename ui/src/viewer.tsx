/**
 * Entry of the static viewer (dist/viewer): opens a transcript from a file picker, a drop or a
 * paste, or from the address in `?url=` (the one request this page can make, and only then), and
 * shows it with the same views as `acp-inspect serve`. Parsing, correlating and checking run in a
 * Web Worker; the file never leaves the browser.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { App } from './app.js';
import { readUrl, openRecording, recId, single, reloadFindings } from './model.js';
import { setSource, ApiError } from './api.js';
import { SOURCE_CALLS, type DataSource } from '../../src/view/source.js';
import type { FromWorker, ToWorker } from './viewer-protocol.js';
import './style.css';

/** The DataSource of the viewer: every call answered by the worker's MemorySource. */
function workerSource(worker: Worker): { source: DataSource; onReply: (m: Extract<FromWorker, { type: 'reply' }>) => void } {
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const call = (method: string, args: unknown[]) => new Promise<unknown>((resolve, reject) => {
    const id = next++;
    waiting.set(id, { resolve, reject });
    // An AbortSignal cannot cross to the worker, and a call there is cheap to let finish.
    worker.postMessage({ type: 'call', id, method, args: args.filter((a) => !(a instanceof AbortSignal)) } satisfies ToWorker);
  });
  const calls = Object.fromEntries(SOURCE_CALLS.map((m) => [m, (...args: unknown[]) => call(m, args)]));
  return {
    source: { caps: { list: false, live: false, manage: false, compare: false }, ...calls } as unknown as DataSource,
    onReply: (m) => {
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new ApiError(m.status ?? 500, m.error));
      else w.resolve(m.value);
    },
  };
}

const status = signal<{ busy: boolean; message: string; error?: boolean } | null>(null);
const opened = signal(false);
const PRIVACY = 'Files never leave your browser: the transcript is read, parsed and checked in this page (in a Web Worker). Nothing is uploaded, and the page makes no request of its own.';

function open(data: Blob | string, name: string): void {
  status.value = { busy: true, message: `Reading ${name}…` };
  const worker = new Worker(new URL('./viewer-worker.ts', import.meta.url), { type: 'module' });
  const src = workerSource(worker);
  worker.onmessage = (ev: MessageEvent<FromWorker>) => {
    const m = ev.data;
    if (m.type === 'reply') src.onReply(m);
    else if (m.type === 'progress') status.value = { busy: true, message: m.message };
    else if (m.type === 'error') { status.value = { busy: false, error: true, message: `${name}: ${m.message}` }; worker.terminate(); }
    else if (m.type === 'ready') {
      setSource(src.source);
      single.value = { id: m.id, note: `Viewer · ${name} · read in your browser, nothing uploaded · checking ${m.items.toLocaleString()} items…` };
      readUrl();
      opened.value = true;
      status.value = null;
      void openRecording(recId.value);
    } else if (m.type === 'checked') {
      // For tests and scripts: what the checker found, as `acp-inspect check --json` prints it.
      (window as unknown as { acpInspectViewer?: unknown }).acpInspectViewer = { ms: m.ms, findings: m.findings };
      if (single.value) single.value = { ...single.value, note: `Viewer · ${name} · read and checked in your browser in ${m.ms} ms, nothing uploaded` };
      reloadFindings();
    }
  };
  worker.onerror = (e) => { status.value = { busy: false, error: true, message: `the checker stopped: ${e.message}` }; };
  worker.postMessage({ type: 'open', data, name } satisfies ToWorker);
}

function Landing({ url }: { url: string | null }) {
  const [text, setText] = useState('');
  const [over, setOver] = useState(false);
  useEffect(() => {
    const prevent = (e: DragEvent) => { e.preventDefault(); setOver(e.type === 'dragover'); };
    const drop = (e: DragEvent) => {
      e.preventDefault();
      setOver(false);
      const f = e.dataTransfer?.files[0];
      if (f) open(f, f.name);
    };
    window.addEventListener('dragover', prevent);
    window.addEventListener('dragleave', prevent);
    window.addEventListener('drop', drop);
    return () => { window.removeEventListener('dragover', prevent); window.removeEventListener('dragleave', prevent); window.removeEventListener('drop', drop); };
  }, []);
  const s = status.value;
  return (
    <div class="app">
      <header class="topbar"><span class="brand">acp-inspect</span><span class="crumbs">Viewer</span></header>
      <main class={`viewer-landing${over ? ' drag-over' : ''}`} aria-label="Open a transcript">
        <h1>Open a recording</h1>
        <p class="lede">Open a recording of an Agent Client Protocol session (a <code>.jsonl</code> transcript from <code>acp-inspect export</code>, an acp-devtools export <code>.json</code>, or a copy of Zed's ACP log) to see its timeline, prompt turns, states and the protocol checker's findings.</p>
        {url && <p role="status">Opening <code>{url}</code>: the page fetches this address because the link asked for it (<code>?url=</code>); that is the only request it makes.</p>}
        <div class="drop-zone">
          <label class="file-btn">Open a transcript… <input type="file" class="sr-only" accept=".jsonl,.ndjson,.json,application/x-ndjson,application/json,text/plain" aria-label="Open a transcript file"
            onChange={(e) => { const f = (e.currentTarget as HTMLInputElement).files?.[0]; if (f) open(f, f.name); }} /></label>
          <p class="muted">or drop a file anywhere on this page</p>
        </div>
        <form class="paste" onSubmit={(e) => { e.preventDefault(); if (text.trim()) open(text, 'pasted transcript'); }}>
          <label for="paste-box">or paste one</label>
          <textarea id="paste-box" aria-label="Paste a transcript" rows={6} placeholder='{"t":0,"dir":"c2a","raw":"{\"jsonrpc\":\"2.0\",...}"}' value={text}
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
          <p><button type="submit" disabled={!text.trim()}>Open pasted text</button></p>
        </form>
        {s && <p role={s.error ? 'alert' : 'status'} class={s.error ? 'bad' : 'muted'}>{s.message}</p>}
        <p class="privacy" role="note"><strong>{PRIVACY}</strong></p>
      </main>
    </div>
  );
}

function Viewer({ url }: { url: string | null }) {
  if (!opened.value) return <Landing url={url} />;
  return (
    <>
      <App />
      <p class="viewer-foot muted"><a href="./" onClick={(e) => { e.preventDefault(); location.href = location.pathname; }}>Open another transcript</a> · {PRIVACY}</p>
    </>
  );
}

async function fetchUrl(url: string): Promise<void> {
  let u: URL;
  try { u = new URL(url); } catch { status.value = { busy: false, error: true, message: `?url= is not an address: ${url}` }; return; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') { status.value = { busy: false, error: true, message: `?url= must be an http(s) address, got ${u.protocol}` }; return; }
  status.value = { busy: true, message: `Fetching ${u.href}…` };
  try {
    const res = await fetch(u.href, { credentials: 'omit', referrerPolicy: 'no-referrer', redirect: 'follow' });
    if (!res.ok) throw new Error(`the server answered ${res.status} ${res.statusText}`);
    open(await res.blob(), u.pathname.split('/').pop() || u.host);
  } catch (e) {
    status.value = { busy: false, error: true, message: `could not fetch ${u.href}: ${(e as Error).message} (the host must allow cross-origin reads, as gists and raw files on GitHub do)` };
  }
}

const url = new URLSearchParams(location.search).get('url');
render(<Viewer url={url} />, document.getElementById('app')!);
if (url) void fetchUrl(url);
