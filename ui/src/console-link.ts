/**
 * What a page served by a console (`acp-inspect console`) can do from any timeline: fork from a
 * frame, and take a client frame into the console's raw composer to edit and send again.
 */
import { signal } from '@preact/signals';
import { HttpSource, source, errorOf } from './api.js';

/**
 * Whether this page is served by a console (`acp-inspect console`), which can fork from a frame:
 * null until known.
 */
export const consoleServer = signal<boolean | null>(null);

/** Asks once whether the page's server is a console. */
export function detectConsole(): void {
  if (consoleServer.value !== null || !(source instanceof HttpSource)) return;
  consoleServer.value = false;
  fetch('/api/server', { credentials: 'same-origin' }).then((r) => r.json() as Promise<{ console?: boolean }>).then((j) => { consoleServer.value = j.console === true; }).catch(() => undefined);
}

/** Forks the console from frame `seq` of recording `id`: its agent again, the recording's client side replayed up to there. */
export async function forkInConsole(id: number, seq: number): Promise<void> {
  const res = await fetch('/api/console/fork', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ recordingId: id, seq }) });
  if (!res.ok) throw await errorOf(res);
}


/** A line for the console's raw composer (set by "Edit and resend" on a client frame). */
export const rawDraft = signal<{ text: string; n: number } | null>(null);
let drafts = 0;

/** Puts `text` in the console's raw composer (on the console page: at once; elsewhere: there, once opened). */
export function editInConsole(text: string): void {
  rawDraft.value = { text, n: ++drafts };
  if (location.pathname !== '/console') {
    try { sessionStorage.setItem('acp-inspect-raw-draft', text); } catch { /* no storage: the draft stays here */ }
    location.assign('/console');
  }
}

/** The draft a page left for the console page when it opened it. */
export function takeStoredDraft(): void {
  try {
    const text = sessionStorage.getItem('acp-inspect-raw-draft');
    if (text !== null) {
      sessionStorage.removeItem('acp-inspect-raw-draft');
      rawDraft.value = { text, n: ++drafts };
    }
  } catch { /* no storage */ }
}
