/**
 * The console's prompt composer: text, `@` to pick a file of the console's folder (attached as a
 * resource link, or as an embedded resource when the agent advertises `embeddedContext`; an image or
 * audio file as its own block when the agent advertises `image`/`audio`), image and audio files from
 * this machine when advertised, and `/` for the session's slash commands with their input hint.
 * Keyboard first: arrows move in the suggestions, Enter or Tab picks, Escape closes, Ctrl/⌘+Enter sends.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { cstate, activeSession, request, notify, act, listFolderFiles, attachFile } from './console-model.js';
import type { ConsoleSessionView } from './console-state.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

type Listed = { path: string; size: number; mimeType: string | null };
type Command = ConsoleSessionView['commands'][number];
type Suggest =
  | { kind: 'file'; start: number; end: number; query: string; items: Listed[]; truncated: boolean }
  | { kind: 'command'; end: number; items: Command[] };
export interface Attached { key: number; label: string; block: Obj }

/** The largest image or audio file read from this machine (its base64 must fit a console request). */
const MEDIA_LIMIT = 5 * 1024 * 1024;

/**
 * The keys of a composer box with a suggestion list (`count` items open, 0 when closed): Ctrl/⌘+Enter
 * sends; with the list open, the arrows move in it, Enter or Tab picks, Escape closes it.
 */
export function composerKeys(e: KeyboardEvent, o: { count: number; send: () => void; move: (f: (i: number) => number) => void; pick: () => void; close: () => void }): void {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); o.send(); return; }
  const n = o.count;
  if (!n) return;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    o.move((i) => (i + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
  } else if (e.key === 'Enter' || e.key === 'Tab') {
    e.preventDefault();
    o.pick();
  } else if (e.key === 'Escape') {
    e.preventDefault();
    e.stopPropagation();
    o.close();
  }
}

/** The `@query` the caret is in (after a space or at the start), or null. */
export function atQuery(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]! } : null;
}

/** The slash command being typed (the caret still in the first word, which starts with `/`), or null. */
export function slashQuery(text: string, caret: number): string | null {
  const m = /^\/(\S*)$/.exec(text.slice(0, caret));
  return m ? m[1]! : null;
}

function describe(block: Obj): string {
  if (block.type === 'resource_link') return `link ${String(block.title ?? block.name)}`;
  if (block.type === 'resource' && isObj(block.resource)) return `embedded ${decodeURIComponent(String(block.resource.uri).split('/').pop() ?? '')}${'blob' in block.resource ? ' (binary)' : ''}`;
  return `${String(block.type)} ${String(block.mimeType ?? '')}`;
}

export function Prompt() {
  const [text, setText] = useState('');
  const [attached, setAttached] = useState<Attached[]>([]);
  const [suggest, setSuggest] = useState<Suggest | null>(null);
  const [index, setIndex] = useState(0);
  const [fileMode, setFileMode] = useState<'auto' | 'link' | 'embedded'>('auto');
  const box = useRef<HTMLTextAreaElement>(null);
  const asked = useRef(0);
  const nextKey = useRef(1);
  const sid = activeSession.value;
  const cur = sid ? cstate.value.sessions.get(sid) : undefined;
  const running = cstate.value.running.filter((r) => r.sessionId === sid);
  const stop = sid ? cstate.value.stopReasons.get(sid) : undefined;
  const init = cstate.value.init?.result;
  const agentCaps = init && isObj(init.agentCapabilities) ? init.agentCapabilities : {};
  const pc = isObj(agentCaps.promptCapabilities) ? agentCaps.promptCapabilities : {};
  const embedded = pc.embeddedContext === true;
  const filesAs: 'link' | 'embedded' = fileMode === 'auto' ? (embedded ? 'embedded' : 'link') : fileMode === 'embedded' && !embedded ? 'link' : fileMode;
  const commands = cur?.commands ?? [];

  useEffect(() => { setIndex(0); }, [suggest?.kind, suggest?.kind === 'file' ? suggest.query : suggest?.items.length]);

  /** What the caret is in now: an `@file`, a `/command`, or neither. */
  const look = (t: string, caret: number) => {
    const at = atQuery(t, caret);
    if (at) {
      const n = ++asked.current;
      void listFolderFiles(at.query).then((r) => {
        if (n === asked.current) setSuggest({ kind: 'file', start: at.start, end: caret, query: at.query, items: r.files, truncated: r.truncated });
      }).catch(() => { if (n === asked.current) setSuggest(null); });
      return;
    }
    asked.current++;
    const slash = slashQuery(t, caret);
    const items = slash === null ? [] : commands.filter((c) => c.name.startsWith(slash));
    setSuggest(items.length ? { kind: 'command', end: caret, items } : null);
  };

  const attach = (label: string, block: Obj) => setAttached((a) => [...a, { key: nextKey.current++, label, block }]);

  /**
   * Puts `t` in the box with the caret at `caret`, at once (not on the next frame: a key typed in
   * between would land where the caret was moved from).
   */
  const put = (t: string, caret: number) => {
    const el = box.current;
    if (el) { el.value = t; el.setSelectionRange(caret, caret); }
    setText(t);
  };

  const pick = (i: number) => {
    const s = suggest;
    if (!s) return;
    setSuggest(null);
    asked.current++; // a list still on its way would open again over the pick
    // The box as it is now: keys typed since the list was asked for (its answer still on its way)
    // are in it, so the word replaced is the one the caret is in now, not the one the list was for.
    const el = box.current;
    const now = el ? el.value : text;
    const caret = el ? el.selectionStart : s.end;
    if (s.kind === 'command') {
      const c = s.items[i];
      if (!c) return;
      const rest = now.slice(caret).replace(/^\S*/, '');
      put(`/${c.name}${rest.startsWith(' ') ? rest : ` ${rest}`}`, c.name.length + 2);
      return;
    }
    const at = atQuery(now, caret);
    // A list asked for an older word (its answer for what was typed since still on its way): pick
    // among its files the first that what is typed now still matches, as the newer list will show.
    const stale = at !== null && at.query !== s.query;
    const q = at?.query.toLowerCase() ?? '';
    const still = stale ? s.items.filter((x) => x.path.toLowerCase().includes(q)) : [];
    const f = stale ? still.find((x) => (x.path.split('/').pop() ?? '').toLowerCase().startsWith(q)) ?? still[0] : s.items[i];
    if (!f) return;
    const [start, end] = at ? [at.start, caret] : [s.start, s.end];
    put(`${now.slice(0, start)}@${f.path} ${now.slice(end)}`, start + f.path.length + 2);
    const as = f.mimeType?.startsWith('image/') && pc.image === true ? 'image' : f.mimeType?.startsWith('audio/') && pc.audio === true ? 'audio' : filesAs;
    void act(async () => attach(f.path, await attachFile(f.path, as)));
  };

  const onKey = (e: KeyboardEvent) => composerKeys(e, { count: suggest?.items.length ?? 0, send, move: setIndex, pick: () => pick(index), close: () => setSuggest(null) });

  const media = (kind: 'image' | 'audio') => (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    void act(async () => {
      if (file.size > MEDIA_LIMIT) throw new Error(`${file.name} is ${file.size} bytes; the console attaches at most ${MEDIA_LIMIT}`);
      if (!file.type.startsWith(`${kind}/`)) throw new Error(`${file.name} is not ${kind === 'image' ? 'an image' : 'audio'} (${file.type || 'unknown type'})`);
      const url = await new Promise<string>((resolve, reject) => {
        const r = new FileReader();
        r.onload = () => resolve(String(r.result));
        r.onerror = () => reject(new Error(`cannot read ${file.name}`));
        r.readAsDataURL(file);
      });
      attach(file.name, { type: kind, data: url.slice(url.indexOf(',') + 1), mimeType: file.type });
    });
  };

  const send = () => {
    if (!sid || (!text.trim() && !attached.length)) return;
    const prompt = [...(text.trim() ? [{ type: 'text', text }] : []), ...attached.map((a) => a.block)];
    setText('');
    setAttached([]);
    setSuggest(null);
    void act(() => request('session/prompt', { sessionId: sid, prompt }));
  };

  const typed = /^\/(\S+) ?$/.exec(text);
  const hint = typed ? commands.find((c) => c.name === typed[1])?.hint : null;
  const optId = (i: number) => `c-suggest-${i}`;
  return (
    <section class="console-box" aria-labelledby="c-prompt">
      <h2 id="c-prompt">Prompt</h2>
      {!sid && <p class="muted">Initialize and open a session first.</p>}
      <div class="composer">
        <textarea ref={box} rows={3} aria-label="Prompt text (Ctrl/⌘+Enter sends)" placeholder="Ask the agent… (@ picks a file, / a command; Ctrl/⌘+Enter sends)" value={text} disabled={!sid}
          role="combobox" aria-autocomplete="list" aria-expanded={suggest !== null} aria-controls="c-suggest" aria-activedescendant={suggest?.items.length ? optId(index) : undefined}
          onInput={(e) => { const el = e.currentTarget as HTMLTextAreaElement; setText(el.value); look(el.value, el.selectionStart); }}
          onKeyDown={onKey} onBlur={() => setTimeout(() => setSuggest(null), 150)} />
        {suggest && (
          <ul id="c-suggest" role="listbox" class="suggest" aria-label={suggest.kind === 'file' ? 'Files in the folder' : 'Slash commands'}>
            {suggest.items.length === 0 && <li class="muted">no file matches “{suggest.kind === 'file' ? suggest.query : ''}”</li>}
            {suggest.kind === 'file' && suggest.items.map((f, i) => (
              <li key={f.path} id={optId(i)} role="option" aria-selected={i === index} class={i === index ? 'sel' : ''} onMouseDown={(e) => { e.preventDefault(); pick(i); }}>
                <code>{f.path}</code> <span class="muted">{f.size} B{f.mimeType ? ` · ${f.mimeType}` : ''}</span>
              </li>
            ))}
            {suggest.kind === 'command' && suggest.items.map((c, i) => (
              <li key={c.name} id={optId(i)} role="option" aria-selected={i === index} class={i === index ? 'sel' : ''} onMouseDown={(e) => { e.preventDefault(); pick(i); }}>
                <code>/{c.name}</code> <span class="muted">{c.description}{c.hint ? ` · ${c.hint}` : ''}</span>
              </li>
            ))}
            {suggest.kind === 'file' && suggest.truncated && <li class="muted">more files match: type more of the name</li>}
          </ul>
        )}
      </div>
      {hint && <p class="muted command-hint" role="status">/{typed![1]} <em>{hint}</em></p>}
      {commands.length > 0 && (
        <div class="commands" aria-label="Slash commands">
          {commands.map((c) => <button key={c.name} type="button" class="chip" title={`${c.description}${c.hint ? ` (${c.hint})` : ''}`} onClick={() => { setText(`/${c.name} `); box.current?.focus(); }}>/{c.name}</button>)}
        </div>
      )}
      {attached.length > 0 && (
        <ul class="attached" aria-label="Attachments">
          {attached.map((a) => (
            <li key={a.key}><span>{describe(a.block)}</span>{' '}
              <button type="button" class="link" aria-label={`remove ${a.label}`} onClick={() => setAttached(attached.filter((x) => x !== a))}>×</button></li>
          ))}
        </ul>
      )}
      <div class="row-form">
        <label title="How a file picked with @ goes into the prompt (an embedded resource only when the agent advertises embeddedContext)">files as{' '}
          <select value={filesAs} onChange={(e) => setFileMode((e.currentTarget as HTMLSelectElement).value as 'link' | 'embedded')}>
            <option value="link">resource link</option>
            <option value="embedded" disabled={!embedded}>embedded resource{embedded ? '' : ' (not advertised)'}</option>
          </select>
        </label>
        {pc.image === true && <label class="file-pick">Attach image <input type="file" accept="image/*" disabled={!sid} onChange={media('image')} /></label>}
        {pc.audio === true && <label class="file-pick">Attach audio <input type="file" accept="audio/*" disabled={!sid} onChange={media('audio')} /></label>}
      </div>
      <div class="row-form">
        <button type="button" class="primary" disabled={!sid || (!text.trim() && !attached.length)} onClick={send}>Send prompt</button>
        <button type="button" disabled={!sid} onClick={() => void act(() => notify('session/cancel', { sessionId: sid }))} title="session/cancel: ask the agent to stop this session's turn">Cancel turn</button>
        {running.map((r) => (
          <button key={JSON.stringify(r.id)} type="button" onClick={() => void act(() => notify('$/cancel_request', { requestId: r.id }))} title="$/cancel_request for this prompt request">$/cancel_request {JSON.stringify(r.id)}</button>
        ))}
        <span class="muted" role="status">{running.length ? 'turn running…' : stop ? `stop reason: ${stop}` : ''}</span>
      </div>
    </section>
  );
}
