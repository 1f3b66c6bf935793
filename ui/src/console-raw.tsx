/**
 * The console's raw composer: any line, sent as written (invalid on purpose too: the tap records it
 * and the checker judges it like any other). Typing a method name in the empty box, or inside a
 * message's `"method"` string, offers the methods a client sends (requests and notifications,
 * UNSTABLE ones marked); picking one in the empty box starts the message from its skeleton (its
 * required params from the protocol's schema, the active session's id, a fresh id for a request), and
 * inside `"method"` replaces the name only. Under the box, the schema's warnings about the line as it
 * stands; they never block a send. Keyboard first, like the prompt composer: arrows move in the
 * suggestions, Enter or Tab picks, Escape closes, Ctrl/⌘+Enter sends.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { activeSession, act, sendRaw, composeMethods, composeSkeleton, composeNotes, type ComposeMethod, type ComposeNote } from './console-model.js';
import { rawDraft } from './console-link.js';
import { composerKeys } from './console-composer.js';

/** The method name being typed: the whole box (`bare`, from its start) or the inside of a `"method": "` string (`field`), up to the caret. */
export function methodQuery(text: string, caret: number): { mode: 'bare' | 'field'; start: number; query: string } | null {
  const before = text.slice(0, caret);
  const bare = /^\s*([\w$/.-]*)$/.exec(before);
  if (bare && /^[\w$/.-]*\s*$/.test(text.slice(caret)) && bare[1] !== '') return { mode: 'bare', start: caret - bare[1]!.length, query: bare[1]! };
  const field = /"method"\s*:\s*"([^"\\]*)$/.exec(before);
  return field ? { mode: 'field', start: caret - field[1]!.length, query: field[1]! } : null;
}

/** The methods whose name contains `q`: those starting with it (or with it after their `/`) first. */
export function matchMethods(all: ComposeMethod[], q: string): ComposeMethod[] {
  const l = q.toLowerCase();
  const hit = all.filter((m) => m.name.toLowerCase().includes(l));
  const rank = (m: ComposeMethod) => (m.name.toLowerCase().startsWith(l) ? 0 : (m.name.split('/').pop() ?? '').toLowerCase().startsWith(l) ? 1 : 2);
  return hit.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i).map((x) => x.m);
}

export function Raw() {
  const [text, setText] = useState('');
  const [methods, setMethods] = useState<ComposeMethod[]>([]);
  const [suggest, setSuggest] = useState<{ mode: 'bare' | 'field'; start: number; end: number; items: ComposeMethod[] } | null>(null);
  const [index, setIndex] = useState(0);
  const [notes, setNotes] = useState<ComposeNote[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);
  const asked = useRef(0);
  const draft = rawDraft.value;
  useEffect(() => { void composeMethods().then(setMethods).catch(() => undefined); }, []);
  useEffect(() => {
    if (!draft) return;
    setText(draft.text);
    document.getElementById('c-raw')?.scrollIntoView({ block: 'center' });
    box.current?.focus();
  }, [draft?.n]);
  // The schema's word on the line, a moment after typing stops; only the newest answer is shown.
  useEffect(() => {
    const n = ++asked.current;
    if (!text.trim()) { setNotes([]); return undefined; }
    const t = setTimeout(() => { void composeNotes(text).then((r) => { if (n === asked.current) setNotes(r); }).catch(() => undefined); }, 150);
    return () => clearTimeout(t);
  }, [text]);
  useEffect(() => { setIndex(0); }, [suggest?.items.map((m) => m.name).join()]);

  const put = (t: string, caret: number) => {
    const el = box.current;
    if (el) { el.value = t; el.setSelectionRange(caret, caret); }
    setText(t);
  };
  const look = (t: string, caret: number) => {
    const q = methodQuery(t, caret);
    const items = q ? matchMethods(methods, q.query) : [];
    setSuggest(q && items.length && !(items.length === 1 && items[0]!.name === q.query) ? { mode: q.mode, start: q.start, end: caret, items } : null);
  };
  const pick = (i: number) => {
    const s = suggest;
    const m = s?.items[i];
    setSuggest(null);
    if (!s || !m) return;
    if (s.mode === 'field') {
      const rest = text.slice(s.end).replace(/^[^"\\]*/, '');
      put(`${text.slice(0, s.start)}${m.name}${rest}`, s.start + m.name.length);
      return;
    }
    void act(async () => {
      const msg = await composeSkeleton(m.name, activeSession.value);
      const t = JSON.stringify(msg, null, 2);
      put(t, t.length);
      box.current?.focus();
    });
  };
  const send = () => { setSuggest(null); void act(() => sendRaw(text)); };
  const onKey = (e: KeyboardEvent) => composerKeys(e, { count: suggest?.items.length ?? 0, send, move: setIndex, pick: () => pick(index), close: () => setSuggest(null) });
  const optId = (i: number) => `c-raw-suggest-${i}`;
  const warnings = notes.filter((x) => x.level === 'warning').length;
  return (
    <section class="console-box" aria-labelledby="c-raw">
      <h2 id="c-raw">Raw</h2>
      <p class="muted small-note">Any line, sent as written (invalid on purpose too: it is recorded and checked as such). Type a method's name in the empty box to start from its skeleton. JSON over several lines goes as one line.</p>
      <div class="composer">
        <textarea ref={box} id="c-raw-text" rows={5} aria-label="Raw JSON-RPC message (Ctrl/⌘+Enter sends)" value={text} placeholder='session/prompt, or {"jsonrpc":"2.0","id":99,"method":"session/list","params":{}}'
          role="combobox" aria-autocomplete="list" aria-expanded={suggest !== null} aria-controls="c-raw-suggest" aria-activedescendant={suggest ? optId(index) : undefined}
          onInput={(e) => { const el = e.currentTarget as HTMLTextAreaElement; setText(el.value); look(el.value, el.selectionStart); }}
          onKeyDown={onKey} onBlur={() => setTimeout(() => setSuggest(null), 150)} />
        {suggest && (
          <ul id="c-raw-suggest" role="listbox" class="suggest" aria-label="Protocol methods">
            {suggest.items.map((m, i) => (
              <li key={m.name} id={optId(i)} role="option" aria-selected={i === index} class={i === index ? 'sel' : ''} onMouseDown={(e) => { e.preventDefault(); pick(i); }}>
                <code>{m.name}</code> <span class="muted">{m.kind}{m.unstable ? ' · UNSTABLE' : ''} · spec {m.spec}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {notes.length > 0 && (
        <ul class="compose-notes" aria-label={`What the schema says (${warnings} warning${warnings === 1 ? '' : 's'})`}>
          {notes.map((x, i) => <li key={i} class={x.level === 'warning' ? 'warn' : 'muted'}>{x.level === 'warning' ? '⚠ ' : ''}{x.text}</li>)}
        </ul>
      )}
      <button type="button" onClick={send} disabled={!text} title={warnings ? 'Sends it as written, warnings and all' : undefined}>{warnings ? 'Send raw anyway' : 'Send raw'}</button>
    </section>
  );
}
