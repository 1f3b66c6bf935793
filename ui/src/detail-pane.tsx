/** The detail of the selected item: JSON tree, raw text, its request/response pair, the model state, findings, and the diff for patching updates. */
import { useEffect, useState } from 'preact/hooks';
import { source, type ItemDetail, type ItemState } from './api.js';
import { consoleServer, editInConsole, forkInConsole } from './console-link.js';
import { recId, selSeq, jumpTo, setReference, refSeq, detailOpen, applyFilter } from './model.js';
import { JsonTree } from './json-tree.js';
import { ItemNotes } from './notes-view.js';
import { Markdown } from './markdown.js';
import { SpecLink } from './spec-link.js';
import { DiffView, jsonText } from './diff-view.js';
import { fmtClock, fmtMs, fmtSize, DIR_LABEL } from './format.js';
import type { Item, Frame } from '../../src/wire/frame.js';

/** In a console's server: start its agent again, replay this recording's client side up to this frame, and go to the console. */
function ForkButton({ seq }: { seq: number }) {
  const [err, setErr] = useState<string | null>(null);
  const fork = () => {
    const id = recId.value;
    if (id === null) return;
    setErr(null);
    forkInConsole(id, seq).then(() => { location.assign('/console'); }).catch((e: Error) => setErr(e.message));
  };
  return (
    <>
      <button type="button" onClick={fork} title="Start the console's agent again, replay this recording's client side up to this frame, then drive it from the console">Fork from here</button>
      {err && <span class="bad" role="alert">{err}</span>}
    </>
  );
}

type Tab = 'tree' | 'raw' | 'pair' | 'state' | 'findings' | 'diff';

function ItemHead({ item }: { item: Item }) {
  const f = item.dir === 'c2a' || item.dir === 'a2c' ? (item as Frame) : null;
  return (
    <dl class="facts">
      <dt>seq</dt><dd>{item.seq}</dd>
      <dt>time</dt><dd>{fmtClock(item.t)}</dd>
      <dt>direction</dt><dd>{DIR_LABEL[item.dir]}</dd>
      {f && <><dt>kind</dt><dd>{f.kind}</dd></>}
      {f?.method && <><dt>method</dt><dd><button type="button" class="link plain" title={`Filter: method:${f.method}`} onClick={() => void applyFilter(`method:${f.method}`)}>{f.method}</button></dd></>}
      {f && f.id !== undefined && <><dt>id</dt><dd>{JSON.stringify(f.id)}</dd></>}
      {f && <><dt>size</dt><dd>{fmtSize(f.size)}{f.truncated ? ' (stored truncated)' : ''}</dd></>}
      {f?.latency !== undefined && <><dt>latency</dt><dd>{fmtMs(f.latency)}</dd></>}
      {f?.sessionId && <><dt>session</dt><dd><button type="button" class="link plain" title={`Filter: session:${f.sessionId}`} onClick={() => void applyFilter(`session:${f.sessionId}`)}>{f.sessionId}</button></dd></>}
      {f?.parseError && <><dt>problem</dt><dd class="bad">{f.parseError}</dd></>}
      {item.dir === 'event' && <><dt>event</dt><dd>{item.type}</dd></>}
    </dl>
  );
}

const RAW_SHOWN = 512 * 1024;

/** Raw text, cut at RAW_SHOWN characters unless the user asks for all of it. */
function RawText({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  if (all || text.length <= RAW_SHOWN) return <pre class="raw">{text}</pre>;
  return (
    <>
      <pre class="raw">{text.slice(0, RAW_SHOWN)}…</pre>
      <p class="muted">Showing {RAW_SHOWN.toLocaleString()} of {text.length.toLocaleString()} characters. <button type="button" class="link" onClick={() => setAll(true)}>Show all</button></p>
    </>
  );
}

function rawOf(item: Item): string {
  if (item.dir === 'event') return JSON.stringify(item.data, null, 2);
  return item.raw;
}

function Body({ item }: { item: Item }) {
  if (item.dir === 'c2a' || item.dir === 'a2c') {
    const f = item as Frame;
    if (f.json !== undefined) return <JsonTree value={f.json} />;
    return <RawText text={f.raw} />;
  }
  if (item.dir === 'event') return <JsonTree value={item.data} />;
  return <RawText text={item.raw} />;
}

export function DetailPane() {
  const id = recId.value;
  const seq = selSeq.value;
  const [detail, setDetail] = useState<ItemDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>('tree');
  /** The model state of item `seq`, asked for apart from the detail (see below). */
  const [fetched, setFetched] = useState<(ItemState & { seq: number }) | null>(null);
  const [stateError, setStateError] = useState<string | null>(null);

  useEffect(() => {
    if (id === null || seq === null) { setDetail(null); return undefined; }
    let live = true;
    // Aborted when the selection moves on: a browser opens only a few connections to a server at a time.
    const abort = new AbortController();
    setError(null);
    // Without the model state where the source can give it apart: far down a large recording the
    // server folds the checker's model for seconds, and the frame, its pair and findings are ready now.
    source.item(id, seq, abort.signal, !source.itemState).then((d) => { if (live) setDetail(d); }).catch((e: Error) => { if (live) { setDetail(null); setError(e.message); } });
    return () => { live = false; abort.abort(); };
  }, [id, seq]);

  const hasDetail = !!detail && detail.item.seq === seq;
  const needState = hasDetail && tab === 'state' && !('state' in detail) && !!source.itemState && !(fetched && fetched.seq === seq);
  useEffect(() => {
    if (!needState || id === null || seq === null || !source.itemState) return undefined;
    let live = true;
    // Asked only while the State tab is shown; aborted when the selection or the tab moves on (the
    // server's fold goes on, so asking again later is quick).
    const abort = new AbortController();
    setStateError(null);
    source.itemState(id, seq, abort.signal).then((s) => { if (live) setFetched({ ...s, seq }); })
      .catch((e: Error) => { if (live && e.name !== 'AbortError') setStateError(e.message); });
    return () => { live = false; abort.abort(); };
  }, [id, seq, needState]);

  if (seq === null) return <aside class="detail empty-detail" aria-label="Detail"><p class="muted">Select an item (click, or j/k) to see its detail.</p></aside>;
  if (error) return <aside class="detail" aria-label="Detail"><p class="bad">{error}</p></aside>;
  if (!detail || detail.item.seq !== seq) return <aside class="detail" aria-label="Detail"><p class="muted">Loading #{seq}…</p></aside>;

  const { item, pair, findings, patch } = detail;
  const st: ItemState | null = 'state' in detail ? { state: detail.state, stateSummary: detail.stateSummary } : fetched?.seq === seq ? fetched : null;
  const tabs: [Tab, string][] = [['tree', 'JSON'], ['raw', 'Raw'], ['pair', pair ? (pair.seq < item.seq ? 'Request' : 'Response') : 'Pair'], ['state', 'State'], ['findings', `Findings${findings.length ? ` (${findings.length})` : ''}`]];
  if (patch) tabs.push(['diff', 'Diff']);
  const active = tabs.some(([t]) => t === tab) ? tab : 'tree';

  return (
    <aside class="detail" aria-label={`Detail of item ${seq}`}>
      <div class="detail-head">
        <h2>#{item.seq} {item.dir === 'c2a' || item.dir === 'a2c' ? ((item as Frame).method ?? (item as Frame).kind) : item.dir}</h2>
        <div class="detail-actions">
          <button type="button" onClick={() => setReference(refSeq.value === item.seq ? null : item.seq, refSeq.value === item.seq ? null : item.t)}
            aria-pressed={refSeq.value === item.seq} title="Measure times from this item (Δ ref)">
            {refSeq.value === item.seq ? 'Reference ✓' : 'Set reference'}
          </button>
          <button type="button" onClick={() => { void navigator.clipboard?.writeText(rawOf(item)); }} title="Copy the raw line">Copy raw</button>
          {consoleServer.value && <ForkButton seq={item.seq} />}
          {consoleServer.value && item.dir === 'c2a' && (
            <button type="button" onClick={() => editInConsole(rawOf(item))} title="Put this client frame in the console's raw composer, to edit and send again">Edit and resend</button>
          )}
          <button type="button" onClick={() => { detailOpen.value = false; }} aria-label="Close the detail">✕</button>
        </div>
      </div>
      <ItemHead item={item} />
      <ItemNotes seq={item.seq} />
      {findings.length > 0 && (
        <ul class="finding-list compact">
          {findings.map((f, i) => <li key={i} class={`sev-${f.severity}`}><span class={`badge sev-${f.severity}`}>{f.severity[0]!.toUpperCase()}</span> {f.message} <span class="muted">[{f.rule}{f.spec ? <> · <SpecLink spec={f.spec} url={f.url} /></> : ''}]</span></li>)}
        </ul>
      )}
      <div role="tablist" class="tabs small" aria-label="Detail views">
        {tabs.map(([t, label]) => (
          <button key={t} type="button" role="tab" aria-selected={active === t} class={active === t ? 'active' : ''} onClick={() => setTab(t)}>{label}</button>
        ))}
      </div>
      <div class="detail-body" role="tabpanel">
        {active === 'tree' && <Body item={item} />}
        {active === 'raw' && <RawText text={rawOf(item)} />}
        {active === 'pair' && (pair
          ? <>
              <p><button type="button" class="link" onClick={() => void jumpTo(pair.seq)}>Go to #{pair.seq}</button>
                {(item as Frame).latency !== undefined && <span class="muted"> · answered after {fmtMs((item as Frame).latency)}</span>}
                {(pair as Frame).latency !== undefined && <span class="muted"> · answered after {fmtMs((pair as Frame).latency)}</span>}</p>
              <ItemHead item={pair} />
              <Body item={pair} />
            </>
          : <p class="muted">{(item as Frame).kind === 'request' ? 'No response to this request (yet).' : 'This item has no request/response pair.'}</p>)}
        {active === 'state' && (st
          ? <>
              {st.stateSummary && <p class="state-summary">{st.stateSummary}</p>}
              <JsonTree value={st.state} open={2} />
            </>
          : stateError
            ? <p class="bad">{stateError}</p>
            : <p class="muted state-pending" role="status">Working out the state at #{item.seq}… (the checker's model is folded up to this item; the rest of the detail is ready)</p>)}
        {active === 'findings' && (findings.length === 0
          ? <p class="muted">No findings at this item.</p>
          : <ul class="finding-list">
              {findings.map((f, i) => (
                <li key={i} class={`sev-${f.severity}`}>
                  <div><span class={`badge sev-${f.severity}`}>{f.severity}</span> <strong>{f.title ?? f.rule}</strong></div>
                  <div>{f.message}</div>
                  <div class="muted">rule {f.rule}{f.spec ? <> · <SpecLink spec={f.spec} url={f.url} label={`spec ${f.spec}`} /></> : null}</div>
                  {f.specText && <blockquote class="spec-text"><Markdown text={f.specText} /></blockquote>}
                </li>
              ))}
            </ul>)}
        {active === 'diff' && patch && (
          <>
            <p class="muted">
              {patch.entity} <code>{patch.key}</code>{' '}
              {patch.previousSeq !== null
                ? <>changed since <button type="button" class="link" onClick={() => void jumpTo(patch.previousSeq!)}>#{patch.previousSeq}</button></>
                : 'first seen here'}
            </p>
            <DiffView before={jsonText(patch.before)} after={jsonText(patch.after)} label="before → after" />
          </>
        )}
      </div>
    </aside>
  );
}
