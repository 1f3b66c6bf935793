/**
 * The console page's model: the server's console (status, the agent's waiting requests, the lines
 * both ways) followed over its event stream, the state folded from those lines, and the actions
 * the page may take. The page is an ACP client through the server: it asks the server to send, and
 * hears everything that went and came back. Nothing here renders.
 */
import { signal, batch } from '@preact/signals';
import { CONSOLE_TERMINAL_KEPT, type ConsoleEvent, type ConsoleFrame, type ConsoleSnapshot, type ConsoleStatus, type PendingRequest, type TerminalView } from '../../src/console/contract.js';
import { emptyConsoleState, foldConsoleFrame, type ConsoleState } from './console-state.js';
import { openRecording, recId, writeUrl } from './model.js';

export const status = signal<ConsoleStatus | null>(null);
export const pending = signal<PendingRequest[]>([]);
export const notices = signal<Extract<ConsoleEvent, { type: 'notice' }>[]>([]);
export const cstate = signal<ConsoleState>(emptyConsoleState());
/** The session the composer and the session controls act on. */
export const activeSession = signal<string | null>(null);
export const consoleError = signal<string | null>(null);
export const streamOpen = signal(false);
/** The terminals the console ran for the agent in this run, by id: their output so far and exit. */
export const terminalViews = signal<Map<string, TerminalView>>(new Map());

let sent = new Map<string, ConsoleFrame>();
/** Answers waited for, by the JSON of the console's request id. */
const waiters = new Map<string, (f: ConsoleFrame) => void>();
/** Answers that came before their waiter (the event stream can outrun the POST's answer). */
const early = new Map<string, ConsoleFrame>();
/** The answers taken this run (see takeAnswer), by the JSON of their id. */
let taken = new Set<string>();

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`/api/console/${path}`, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const j = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw new Error(j.error ?? `${res.status} ${res.statusText}`);
  return j;
}

function onFrame(f: ConsoleFrame): void {
  const s = cstate.value;
  foldConsoleFrame(s, f, sent);
  batch(() => {
    cstate.value = { ...s };
    // The active session closed or deleted: the newest one left, if any.
    if (activeSession.value !== null && !s.sessions.has(activeSession.value)) activeSession.value = null;
    if (activeSession.value === null && s.sessions.size) activeSession.value = [...s.sessions.keys()].at(-1)!;
  });
  if (f.dir === 'a2c' && (f.kind === 'result' || f.kind === 'error')) takeAnswer(f);
}

/**
 * An answer of the agent, from an event or a snapshot: settles its waiter, or waits for it (the event
 * stream can outrun the POST's answer). Each answer is taken once per agent run, however many
 * snapshots hold it.
 */
function takeAnswer(f: ConsoleFrame): void {
  const key = JSON.stringify(f.id);
  if (taken.has(key)) return;
  taken.add(key);
  const w = waiters.get(key);
  if (w) { waiters.delete(key); w(f); } else {
    early.set(key, f);
    if (early.size > 200) early.delete(early.keys().next().value!);
  }
}

function onStatus(st: ConsoleStatus): void {
  const prev = status.value;
  if (prev && prev.run !== st.run) {
    // A fresh agent process: what the page knew of the last one is gone.
    sent = new Map();
    taken = new Set();
    early.clear();
    batch(() => { cstate.value = emptyConsoleState(); activeSession.value = null; terminalViews.value = new Map(); });
  }
  status.value = st;
  if (st.recordingId !== null && st.recordingId !== recId.value) {
    recId.value = st.recordingId;
    writeUrl();
    void openRecording(st.recordingId);
  }
}

function onEvent(ev: ConsoleEvent): void {
  if (ev.type === 'snapshot') onSnapshot(ev.snapshot);
  else if (ev.type === 'frame') onFrame(ev);
  else if (ev.type === 'status') onStatus(ev.status);
  else if (ev.type === 'pending') pending.value = ev.pending;
  else if (ev.type === 'notice') notices.value = [...notices.value.slice(-99), ev];
  else if (ev.type === 'terminal' && ev.run === status.value?.run) {
    const m = new Map(terminalViews.value);
    const prev = m.get(ev.terminalId);
    const all = (prev?.output ?? '') + ev.append;
    m.set(ev.terminalId, { terminalId: ev.terminalId, output: all.slice(-CONSOLE_TERMINAL_KEPT), truncated: ev.truncated || all.length > CONSOLE_TERMINAL_KEPT, exit: ev.exit });
    terminalViews.value = m;
  }
}

/**
 * The page's state from a snapshot: the status first (a new run clears what the page knew of the
 * last one), then what the snapshot holds; answers it holds that the page had not taken yet (they
 * came while its stream was not open) settle their waiters or wait for them.
 */
function onSnapshot(snap: ConsoleSnapshot): void {
  onStatus(snap.status);
  sent = new Map();
  const s = emptyConsoleState();
  for (const f of snap.frames) foldConsoleFrame(s, f, sent);
  batch(() => {
    cstate.value = s;
    pending.value = snap.pending;
    notices.value = snap.notices;
    terminalViews.value = new Map(snap.terminals.map((t) => [t.terminalId, t]));
    if (activeSession.value !== null && !s.sessions.has(activeSession.value)) activeSession.value = null;
    if (activeSession.value === null && s.sessions.size) activeSession.value = [...s.sessions.keys()].at(-1)!;
  });
  for (const f of snap.frames) if (f.dir === 'a2c' && (f.kind === 'result' || f.kind === 'error')) takeAnswer(f);
}

/**
 * Loads the console's state and follows its event stream. The stream's first event is the state as it
 * began (again on every reconnect), so nothing between the two is lost; the first load is only there
 * to say why the page may not connect (a missing token) and to show the state at once.
 */
export async function connectConsole(): Promise<void> {
  try {
    const res = await fetch('/api/console', { credentials: 'same-origin' });
    if (!res.ok) throw new Error(res.status === 401 ? 'Not authorized: open the URL that acp-inspect console printed (it carries ?token=…).' : `${res.status} ${res.statusText}`);
    onSnapshot((await res.json()) as ConsoleSnapshot);
  } catch (e) {
    consoleError.value = (e as Error).message;
    return;
  }
  const es = new EventSource('/api/console/events');
  es.onmessage = (m) => { try { onEvent(JSON.parse(m.data as string) as ConsoleEvent); } catch { /* a bad message */ } };
  es.onopen = () => { streamOpen.value = true; };
  es.onerror = () => { streamOpen.value = false; };
}

/** Sends a request; resolves with the agent's answer (a result or error frame). */
export async function request(method: string, params: unknown): Promise<ConsoleFrame> {
  const { id } = await post<{ id: number }>('request', { method, params });
  const key = JSON.stringify(id);
  const got = early.get(key);
  if (got) { early.delete(key); return got; }
  return new Promise((resolve) => waiters.set(key, resolve));
}

export async function act(fn: () => Promise<unknown>): Promise<void> {
  try {
    consoleError.value = null;
    await fn();
  } catch (e) {
    consoleError.value = (e as Error).message;
  }
}

export const notify = (method: string, params: unknown) => post('notify', { method, params });
export const sendRaw = (text: string) => post('raw', { text });
export const answer = (key: string, a: Record<string, unknown>) => post('answer', { key, ...a });
export const setTerminals = (on: boolean) => post('terminals', { on });
export const reconnect = () => post('reconnect', {});
export const setPermissions = (policy: string) => post('permissions', { policy });

/** Files of the console's folder whose path contains `q` (for the composer's `@`). */
export async function listFolderFiles(q: string): Promise<{ files: { path: string; size: number; mimeType: string | null }[]; truncated: boolean }> {
  const res = await fetch(`/api/console/files?q=${encodeURIComponent(q)}`, { credentials: 'same-origin' });
  const j = (await res.json().catch(() => ({}))) as { files?: { path: string; size: number; mimeType: string | null }[]; truncated?: boolean; error?: string };
  if (!res.ok) throw new Error(j.error ?? `${res.status} ${res.statusText}`);
  return { files: j.files ?? [], truncated: j.truncated === true };
}

/** The content block the server makes of a file of the console's folder. */
export const attachFile = (path: string, as: 'link' | 'embedded' | 'image' | 'audio') => post<{ block: Record<string, unknown> }>('attachment', { path, as }).then((r) => r.block);

/** Runs a terminal auth method the page confirmed, naming it and echoing what was shown (the server compares). */
/** Ends the running terminal auth method (its process group). */
export const cancelTerminalAuth = () => post('terminal-auth/cancel', {});

export const runTerminalAuth = (m: { id: string; command: string[]; env: Record<string, string> }) => post('terminal-auth', { methodId: m.id, shown: { command: m.command, env: m.env } });

/** The raw composer's help from the server (the protocol's schema stays there: the page bundles no validator). */
export type ComposeMethod = { name: string; kind: 'request' | 'notification'; unstable: boolean; spec: string };
export type ComposeNote = { level: 'warning' | 'info'; text: string };
let composeMethodsOnce: Promise<ComposeMethod[]> | null = null;
/** The methods a client sends (asked once). */
export function composeMethods(): Promise<ComposeMethod[]> {
  composeMethodsOnce ??= fetch('/api/console/compose/methods', { credentials: 'same-origin' }).then((r) => (r.ok ? r.json() as Promise<ComposeMethod[]> : Promise.reject(new Error(`${r.status} ${r.statusText}`))));
  composeMethodsOnce.catch(() => { composeMethodsOnce = null; });
  return composeMethodsOnce;
}
/** A method's message with its required params (the session's id filled in) and, for a request, a fresh id. */
export const composeSkeleton = (method: string, sessionId: string | null) => post<{ message: Record<string, unknown> }>('compose/skeleton', { method, ...(sessionId ? { sessionId } : {}) }).then((r) => r.message);
/** What the protocol's schema says about a line as written. */
export const composeNotes = (text: string) => post<{ notes: ComposeNote[] }>('compose/notes', { text }).then((r) => r.notes);
