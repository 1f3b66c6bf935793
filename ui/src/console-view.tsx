/**
 * The console page (`acp-inspect console`): the browser as the ACP client of one agent. On the left
 * what an editor would offer (connect, sessions, the prompt, the turn as it streams, the requests
 * waiting on the user, a raw composer); on the right the timeline of the recording the console is
 * making, the same components as any recording's (the timeline list and its detail pane).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { source, type TurnDetail, type TurnInfo } from './api.js';
import { current, detailOpen, findings, selSeq } from './model.js';
import { TimelineList } from './timeline-view.js';
import { useTimelineKeys } from './app.js';
import { DetailPane } from './detail-pane.js';
import { TurnSummaryBody } from './turns-view.js';
import { DiffView } from './diff-view.js';
import { JsonTree } from './json-tree.js';
import { fmtMs } from './format.js';
import {
  status, pending, cstate, activeSession, consoleError, streamOpen, notices, connectConsole, request, notify, answer, setTerminals, setPermissions, reconnect, act, runTerminalAuth, cancelTerminalAuth, terminalViews,
} from './console-model.js';
import type { PendingRequest, TerminalAuthMethod } from '../../src/console/contract.js';
import { takeStoredDraft } from './console-link.js';
import { Raw } from './console-raw.js';
import { Prompt } from './console-composer.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Ctrl/⌘+Enter in a text box runs `fn`. */
const onCtrlEnter = (fn: () => void) => (e: KeyboardEvent) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); fn(); }
};

function parseJson(text: string, what: string): unknown {
  try { return JSON.parse(text); } catch (e) { throw new Error(`${what} is not JSON: ${(e as Error).message}`); }
}

function Header() {
  const st = status.value;
  if (!st) return null;
  return (
    <header class="console-head">
      <h1>Console</h1>
      <code class="console-cmd" title="The agent command, from the command line">{st.command.join(' ')}</code>
      <span class={`pill ${st.state === 'running' ? 'live' : 'warn'}`} role="status">
        {st.state === 'running' ? `running (run ${st.run})` : `exited${st.exitCode !== null ? ` ${st.exitCode}` : ''}${st.signal ? ` ${st.signal}` : ''}`}
      </span>
      {st.recordingId !== null && <a href={`/?rec=${st.recordingId}`} target="_blank" rel="noopener">recording #{st.recordingId}</a>}
      <span class="muted">cwd {st.cwd}</span>
      {st.fork && (
        <span class={`pill ${st.fork.state === 'replaying' ? 'live' : st.fork.divergences ? 'warn' : 'ok'}`} role="status" title="This run began by replaying a recording's client side">
          forked from #{st.fork.recordingId} at #{st.fork.seq}: {st.fork.state === 'replaying' ? 'replaying…' : `${st.fork.sent} frames replayed, ${st.fork.divergences} difference${st.fork.divergences === 1 ? '' : 's'}`}
        </span>
      )}
      {!streamOpen.value && <span class="pill warn">reconnecting…</span>}
      <span class="spacer-flex" />
      <label class="switch" title="Let the agent run terminal commands (terminal/create) in this console">
        <input type="checkbox" checked={st.terminals} onChange={(e) => {
          const on = (e.currentTarget as HTMLInputElement).checked;
          if (on && !confirm('Let the agent run commands on this machine (terminal/create), in the console\'s folder?')) { (e.currentTarget as HTMLInputElement).checked = false; return; }
          void act(() => setTerminals(on));
        }} /> terminals
      </label>
      <button type="button" onClick={() => void act(reconnect)} title="End this agent process and start the same command again (a new recording)">Reconnect</button>
    </header>
  );
}

const CAPS: [string, string][] = [
  ['fs.readTextFile', 'fs read'], ['fs.writeTextFile', 'fs write'], ['terminal', 'terminal'], ['auth.terminal', 'auth.terminal'],
  ['elicitation.form', 'elicitation form'], ['elicitation.url', 'elicitation url'], ['plan', 'plan (unstable)'], ['session.compaction', 'compaction (unstable)'],
  ['session.configOptions.boolean', 'boolean config options'],
];

function capabilities(on: Set<string>): Obj {
  const caps: Obj = { fs: { readTextFile: on.has('fs.readTextFile'), writeTextFile: on.has('fs.writeTextFile') }, terminal: on.has('terminal'), auth: { terminal: on.has('auth.terminal') } };
  if (on.has('elicitation.form') || on.has('elicitation.url')) caps.elicitation = { ...(on.has('elicitation.form') ? { form: {} } : {}), ...(on.has('elicitation.url') ? { url: {} } : {}) };
  if (on.has('plan')) caps.plan = {};
  if (on.has('session.compaction') || on.has('session.configOptions.boolean')) {
    caps.session = { ...(on.has('session.compaction') ? { compaction: {} } : {}), ...(on.has('session.configOptions.boolean') ? { configOptions: { boolean: {} } } : {}) };
  }
  return caps;
}

function Connect() {
  const [on, setOn] = useState<Set<string>>(() => new Set(['fs.readTextFile', 'fs.writeTextFile']));
  const [meta, setMeta] = useState('');
  const terminalsOn = status.value?.terminals ?? false;
  const init = cstate.value.init;
  const send = () => void act(async () => {
    const caps = capabilities(on);
    if (!terminalsOn) caps.terminal = false;
    if (meta.trim()) caps._meta = parseJson(meta, 'the extra _meta');
    await request('initialize', { protocolVersion: 1, clientCapabilities: caps, clientInfo: { name: 'acp-inspect console', version: '0.1.0' } });
  });
  const methods = init?.result && Array.isArray(init.result.authMethods) ? init.result.authMethods.filter(isObj) : [];
  const terminalAuth = status.value?.terminalAuth ?? [];
  const authRun = status.value?.authRun ?? null;
  const [confirming, setConfirming] = useState<string | null>(null);
  const confirm = terminalAuth.find((t) => t.id === confirming);
  return (
    <section class="console-box" aria-labelledby="c-connect">
      <h2 id="c-connect">Connect</h2>
      <fieldset class="caps"><legend>Client capabilities</legend>
        {CAPS.map(([k, label]) => (
          <label key={k} title={k === 'terminal' && !terminalsOn ? 'Switch terminals on first (top right)' : k}>
            <input type="checkbox" name={k} checked={on.has(k) && (k !== 'terminal' || terminalsOn)} disabled={k === 'terminal' && !terminalsOn}
              onChange={(e) => { const n = new Set(on); if ((e.currentTarget as HTMLInputElement).checked) n.add(k); else n.delete(k); setOn(n); }} /> {label}
          </label>
        ))}
      </fieldset>
      <label class="block">extra <code>_meta</code> (JSON, optional)
        <input type="text" value={meta} placeholder='{"example.com/flag": true}' onInput={(e) => setMeta((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="button" class="primary" onClick={send}>Initialize</button>
      {init?.error && <p class="bad" role="alert">initialize failed: {String(init.error.message ?? JSON.stringify(init.error))}</p>}
      {init?.result && (
        <div class="agent-answer" aria-label="The agent's answer">
          <p><strong>{isObj(init.result.agentInfo) ? `${String(init.result.agentInfo.title ?? init.result.agentInfo.name ?? '')} ${String(init.result.agentInfo.version ?? '')}` : 'agent (no agentInfo)'}</strong>
            {' '}<span class="muted">protocol v{String(init.result.protocolVersion)}</span></p>
          <details open><summary>Agent capabilities</summary><JsonTree value={init.result.agentCapabilities ?? {}} /></details>
          {methods.length > 0 && (
            <div class="auth-methods"><h3>Authenticate</h3>
              {methods.map((m) => {
                if (m.type !== 'terminal') return <button key={String(m.id)} type="button" title={String(m.description ?? '')} onClick={() => void act(() => request('authenticate', { methodId: m.id }))}>{String(m.name ?? m.id)}</button>;
                const runnable = terminalAuth.find((t) => t.id === m.id);
                return <button key={String(m.id)} type="button" disabled={!runnable || authRun?.state === 'running'} aria-expanded={confirming === m.id}
                  title={runnable ? 'A terminal auth method: the console runs the agent program with its arguments, after you confirm' : 'A terminal auth method runs only when this console advertised auth.terminal (tick it and initialize again)'}
                  onClick={() => setConfirming(String(m.id))}>{String(m.name ?? m.id)} (terminal)</button>;
              })}
              {confirm && <TerminalAuthConfirm m={confirm} tty={status.value?.tty ?? false} close={() => setConfirming(null)} />}
              {authRun && (
                <div class="row-form">
                  <p role="status" class={authRun.state === 'done' && (authRun.exitCode !== 0 || authRun.cancelled) ? 'bad' : 'muted'}>terminal auth {authRun.methodId}: {authRun.state === 'running' ? 'running…'
                    : authRun.cancelled ? 'cancelled: not authenticated' : authRun.exitCode === 0 ? 'exited 0: authenticated' : `failed (${authRun.signal ?? `exit ${authRun.exitCode}`})`}</p>
                  {authRun.state === 'running' && <button type="button" onClick={() => void act(cancelTerminalAuth)} title="End the terminal auth method's process group (SIGTERM, then SIGKILL)">Cancel terminal auth</button>}
                </div>
              )}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * The confirmation a terminal auth method needs: exactly what would run (from the server: the
 * console's agent command with the method's args, and its env), run only on "Run it".
 */
function TerminalAuthConfirm({ m, tty, close }: { m: TerminalAuthMethod; tty: boolean; close: () => void }) {
  const env = Object.entries(m.env);
  return (
    <div class="auth-confirm" role="group" aria-label={`Run terminal auth method ${m.name}?`}>
      <p>Run <strong>{m.name}</strong> on this machine, in the console's folder{tty ? ', in the terminal where the console was started (type there)' : ' (no terminal: it gets no input; its output is shown here)'}?</p>
      <pre class="auth-command" aria-label="Command">{m.command.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')}</pre>
      {env.length > 0 && <pre class="auth-env" aria-label="Environment overrides">{env.map(([k, v]) => `${k}=${v}`).join('\n')}</pre>}
      <div class="row-form">
        <button type="button" class="primary" ref={(b) => b?.focus()} onClick={() => { close(); void act(() => runTerminalAuth(m)); }}>Run it</button>
        <button type="button" onClick={close}>Don't run</button>
      </div>
    </div>
  );
}

function Sessions() {
  const st = status.value;
  const init = cstate.value.init?.result;
  const agentCaps = init && isObj(init.agentCapabilities) ? init.agentCapabilities : {};
  const sessionCaps = isObj(agentCaps.sessionCapabilities) ? agentCaps.sessionCapabilities : {};
  const [cwd, setCwd] = useState(st?.cwd ?? '');
  const [dirs, setDirs] = useState('');
  const [mcp, setMcp] = useState('[]');
  const [loadId, setLoadId] = useState('');
  const [listed, setListed] = useState<Obj[] | null>(null);
  useEffect(() => { if (!cwd && st) setCwd(st.cwd); }, [st?.cwd]);
  const sessions = [...cstate.value.sessions.values()];
  const sid = activeSession.value;
  const cur = sid ? cstate.value.sessions.get(sid) : undefined;
  const newSession = () => void act(async () => {
    const extra = dirs.split('\n').map((d) => d.trim()).filter(Boolean);
    const r = await request('session/new', { cwd, mcpServers: parseJson(mcp, 'the MCP servers'), ...(extra.length ? { additionalDirectories: extra } : {}) });
    if (r.kind === 'result' && isObj(r.json) && isObj(r.json.result) && typeof r.json.result.sessionId === 'string') activeSession.value = r.json.result.sessionId;
  });
  return (
    <section class="console-box" aria-labelledby="c-sessions">
      <h2 id="c-sessions">Sessions</h2>
      <div class="row-form">
        <label>cwd <input type="text" value={cwd} onInput={(e) => setCwd((e.currentTarget as HTMLInputElement).value)} /></label>
        <button type="button" class="primary" onClick={newSession}>New session</button>
      </div>
      <details><summary>more for session/new</summary>
        {isObj(sessionCaps.additionalDirectories) && <label class="block">additionalDirectories (one a line)<textarea rows={2} value={dirs} onInput={(e) => setDirs((e.currentTarget as HTMLTextAreaElement).value)} /></label>}
        <label class="block">mcpServers (JSON: stdio, or http/sse as the agent's mcpCapabilities allow)<textarea rows={3} value={mcp} onInput={(e) => setMcp((e.currentTarget as HTMLTextAreaElement).value)} /></label>
      </details>
      {(agentCaps.loadSession === true || isObj(sessionCaps.list)) && (
        <div class="row-form">
          {agentCaps.loadSession === true && <>
            <label>session id <input type="text" value={loadId} onInput={(e) => setLoadId((e.currentTarget as HTMLInputElement).value)} /></label>
            <button type="button" onClick={() => void act(async () => { await request('session/load', { sessionId: loadId, cwd, mcpServers: parseJson(mcp, 'the MCP servers') }); activeSession.value = loadId; })}>Load</button>
          </>}
          {isObj(sessionCaps.list) && <button type="button" onClick={() => void act(async () => {
            const r = await request('session/list', {});
            setListed(isObj(r.json) && isObj(r.json.result) && Array.isArray(r.json.result.sessions) ? r.json.result.sessions.filter(isObj) : []);
          })}>List sessions</button>}
        </div>
      )}
      {listed && <ul class="listed" aria-label="Listed sessions">{listed.map((s) => {
        const id = String(s.sessionId);
        return (
          <li key={id}><code>{id}</code> {String(s.title ?? '')}{' '}
            {agentCaps.loadSession === true && <button type="button" class="link" onClick={() => setLoadId(id)}>pick to load</button>}
            {isObj(sessionCaps.resume) && <button type="button" class="link" onClick={() => void act(async () => { await request('session/resume', { sessionId: id, cwd, mcpServers: parseJson(mcp, 'the MCP servers') }); activeSession.value = id; })}>resume</button>}
            {isObj(sessionCaps.delete) && <button type="button" class="link danger" onClick={() => void act(async () => { await request('session/delete', { sessionId: id }); setListed(listed.filter((x) => x !== s)); })}>delete</button>}
          </li>
        );
      })}</ul>}
      {sessions.length > 0 && (
        <div class="row-form">
          <label>session <select value={sid ?? ''} onChange={(e) => { activeSession.value = (e.currentTarget as HTMLSelectElement).value; }}>
            {sessions.map((s) => <option key={s.sessionId} value={s.sessionId}>{s.sessionId}</option>)}
          </select></label>
          {cur && isObj(sessionCaps.fork) && <button type="button" onClick={() => void act(async () => {
            const r = await request('session/fork', { sessionId: cur.sessionId, cwd, mcpServers: parseJson(mcp, 'the MCP servers') });
            if (isObj(r.json) && isObj(r.json.result) && typeof r.json.result.sessionId === 'string') activeSession.value = r.json.result.sessionId;
          })} title="session/fork: a new session with this one's conversation">Fork session</button>}
          {cur && isObj(sessionCaps.close) && <button type="button" onClick={() => void act(() => request('session/close', { sessionId: cur.sessionId }))} title="session/close: the agent frees this session">Close session</button>}
          {cur && cur.modes.length > 0 && (
            <label>mode <select value={cur.currentModeId ?? ''} onChange={(e) => void act(() => request('session/set_mode', { sessionId: cur.sessionId, modeId: (e.currentTarget as HTMLSelectElement).value }))}>
              {cur.modes.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
            </select></label>
          )}
          {cur?.configOptions.map((o) => (
            <label key={o.id}>{o.name} {o.type === 'boolean'
              ? <input type="checkbox" checked={o.currentValue === true} onChange={(e) => void act(() => request('session/set_config_option', { sessionId: cur.sessionId, configId: o.id, type: 'boolean', value: (e.currentTarget as HTMLInputElement).checked }))} />
              : <select value={String(o.currentValue ?? '')} onChange={(e) => void act(() => request('session/set_config_option', { sessionId: cur.sessionId, configId: o.id, value: (e.currentTarget as HTMLSelectElement).value }))}>
                {o.options.map((x) => <option key={x.value} value={x.value}>{x.name}</option>)}
              </select>}
            </label>
          ))}
        </div>
      )}
    </section>
  );
}

function Waited({ since }: { since: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return <span class="waited" title="How long the agent has been waiting on you">waiting {fmtMs(Math.max(0, now - since))}</span>;
}

type Field = { name: string; schema: Obj };

/** One property of an elicitation form, by its type (primitive types only; another is left to the raw answer). */
function FormField({ f, value, set, required }: { f: Field; value: unknown; set: (v: unknown) => void; required: boolean }) {
  const s = f.schema;
  const label = `${String(s.title ?? f.name)}${required ? ' *' : ''}`;
  const options = Array.isArray(s.enum) ? s.enum.map((v) => ({ value: String(v), title: String(v) }))
    : Array.isArray(s.oneOf) ? s.oneOf.filter(isObj).map((o) => ({ value: String(o.const ?? ''), title: String(o.title ?? o.const ?? '') })) : null;
  const help = typeof s.description === 'string' ? s.description : undefined;
  if (s.type === 'boolean') return <label title={help}><input type="checkbox" name={f.name} checked={value === true} onChange={(e) => set((e.currentTarget as HTMLInputElement).checked)} /> {label}</label>;
  if (s.type === 'string' && options) {
    return <label title={help}>{label} <select name={f.name} value={String(value ?? '')} onChange={(e) => set((e.currentTarget as HTMLSelectElement).value)}>
      <option value="">—</option>{options.map((o) => <option key={o.value} value={o.value}>{o.title}</option>)}
    </select></label>;
  }
  if (s.type === 'string') return <label title={help}>{label} <input type="text" name={f.name} value={String(value ?? '')} onInput={(e) => set((e.currentTarget as HTMLInputElement).value)} /></label>;
  if (s.type === 'number' || s.type === 'integer') {
    return <label title={help}>{label} <input type="number" name={f.name} step={s.type === 'integer' ? 1 : 'any'} value={value === undefined ? '' : String(value)}
      onInput={(e) => { const t = (e.currentTarget as HTMLInputElement).value; set(t === '' ? undefined : Number(t)); }} /></label>;
  }
  if (s.type === 'array') {
    const items = isObj(s.items) ? s.items : {};
    const choices = Array.isArray(items.enum) ? items.enum.map(String) : Array.isArray(items.anyOf) ? items.anyOf.filter(isObj).map((o) => String(o.const ?? '')) : [];
    return <label title={help}>{label} <select multiple name={f.name} onChange={(e) => set([...(e.currentTarget as HTMLSelectElement).selectedOptions].map((o) => o.value))}>
      {choices.map((c) => <option key={c} value={c} selected={Array.isArray(value) && value.includes(c)}>{c}</option>)}
    </select></label>;
  }
  return <p class="muted">{label}: a property of type {JSON.stringify(s.type)} is not a known kind; answer with the raw JSON below.</p>;
}

/** An elicitation in form mode, rendered from its schema; the answer is `{action, content}`. */
function ElicitationForm({ params, send }: { params: Obj; send: (result: unknown) => void }) {
  const schema = isObj(params.requestedSchema) ? params.requestedSchema : {};
  const fields: Field[] = Object.entries(isObj(schema.properties) ? schema.properties : {}).filter(([, v]) => isObj(v)).map(([name, v]) => ({ name, schema: v as Obj }));
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const [values, setValues] = useState<Obj>(() => Object.fromEntries(fields.filter((f) => f.schema.default !== undefined && f.schema.default !== null).map((f) => [f.name, f.schema.default])));
  const accept = () => send({ action: 'accept', content: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== '')) });
  return (
    <form class="elicitation" onSubmit={(e) => { e.preventDefault(); accept(); }}>
      <p>{String(params.message ?? '')}</p>
      {typeof schema.title === 'string' && <h3>{schema.title}</h3>}
      {fields.map((f) => <div key={f.name} class="row-form"><FormField f={f} value={values[f.name]} required={required.includes(f.name)} set={(v) => setValues({ ...values, [f.name]: v })} /></div>)}
      <div class="row-form">
        <button type="submit" class="primary" disabled={required.some((r) => values[r] === undefined || values[r] === '')}>Accept</button>
        <button type="button" onClick={() => send({ action: 'decline' })}>Decline</button>
        <button type="button" onClick={() => send({ action: 'cancel' })}>Cancel</button>
      </div>
    </form>
  );
}

function PendingCard({ p }: { p: PendingRequest }) {
  const params = isObj(p.params) ? p.params : {};
  const [reply, setReply] = useState('{}');
  const reply2 = (a: Record<string, unknown>) => void act(() => answer(p.key, a));
  const rawAnswer = (
    <>
      <JsonTree value={p.params ?? null} />
      <label class="block">answer (JSON: the result, or the error object)
        <textarea rows={3} value={reply} onInput={(e) => setReply((e.currentTarget as HTMLTextAreaElement).value)} onKeyDown={onCtrlEnter(() => reply2({ result: parseJson(reply, 'the answer') }))} /></label>
      <div class="row-form">
        <button type="button" onClick={() => void act(async () => answer(p.key, { result: parseJson(reply, 'the result') }))}>Send result</button>
        <button type="button" onClick={() => void act(async () => answer(p.key, { error: parseJson(reply, 'the error') }))}>Send error</button>
      </div>
    </>
  );
  let body;
  if (p.method === 'session/request_permission') {
    const tc = isObj(params.toolCall) ? params.toolCall : {};
    const options = Array.isArray(params.options) ? params.options.filter(isObj) : [];
    body = (
      <>
        <p><strong>{String(tc.title ?? tc.toolCallId ?? 'a tool call')}</strong> <span class="muted">{String(tc.kind ?? '')}</span></p>
        <div class="row-form">
          {options.map((o) => <button key={String(o.optionId)} type="button" class={`opt opt-${String(o.kind ?? '')}`} onClick={() => reply2({ optionId: o.optionId })}>{String(o.name ?? o.optionId)}</button>)}
          <button type="button" onClick={() => reply2({ cancelled: true })}>Dismiss (cancelled)</button>
        </div>
      </>
    );
  } else if (p.write) {
    body = (
      <>
        <DiffView before={p.write.oldText ?? ''} after={p.write.newText} label={`${p.write.path}${p.write.oldText === null ? ' (new file)' : ''}`} />
        <div class="row-form">
          <button type="button" class="primary" onClick={() => reply2({ approve: true })}>Approve write</button>
          <button type="button" onClick={() => reply2({ approve: false })}>Reject</button>
        </div>
      </>
    );
  } else {
    const form = p.method === 'elicitation/create' && params.mode === 'form';
    const url = p.method === 'elicitation/create' && params.mode === 'url' && typeof params.url === 'string' ? params.url : null;
    body = (
      <>
        {form && <ElicitationForm params={params} send={(result) => reply2({ result })} />}
        {url !== null && (
          <div>
            <p>{String(params.message ?? '')}</p>
            <p>The agent asks you to open {/^https?:\/\//i.test(url) ? <a href={url} target="_blank" rel="noopener noreferrer">{url}</a> : <code>{url}</code>}</p>
            <div class="row-form">
              <button type="button" class="primary" onClick={() => reply2({ result: { action: 'accept' } })}>Accept</button>
              <button type="button" onClick={() => reply2({ result: { action: 'decline' } })}>Decline</button>
              <button type="button" onClick={() => reply2({ result: { action: 'cancel' } })}>Cancel</button>
            </div>
          </div>
        )}
        {(form || url !== null) ? <details><summary>raw JSON</summary>{rawAnswer}</details> : rawAnswer}
      </>
    );
  }
  return (
    <article class="pending" aria-label={`${p.method} ${p.key}`}>
      <header><code>{p.method}</code> <span class="muted">id {p.key}</span> <Waited since={p.receivedAt} /></header>
      {body}
    </article>
  );
}

function Waiting() {
  const list = pending.value;
  return (
    <section class="console-box" aria-labelledby="c-waiting">
      <h2 id="c-waiting">Waiting on you {list.length > 0 && <span class="badge sev-warning">{list.length}</span>}</h2>
      <label title="For repeated runs: answer every permission request at once with its first option of that kind">permission requests{' '}
        <select value={status.value?.permissions ?? 'ask'} onChange={(e) => void act(() => setPermissions((e.currentTarget as HTMLSelectElement).value))}>
          <option value="ask">ask me</option><option value="allow">allow (first allow option)</option><option value="reject">reject (first reject option)</option>
        </select>
      </label>
      {list.length === 0 ? <p class="muted">No request of the agent is waiting.</p> : list.map((p) => <PendingCard key={p.key} p={p} />)}
    </section>
  );
}

/**
 * A terminal the console runs for the agent, in the tool call that names it: its output as it comes
 * (the last part kept, as the server keeps it) and its exit status once it ended; still shown after
 * the agent released it.
 */
function TerminalOutput({ terminalId }: { terminalId: string }) {
  const t = terminalViews.value.get(terminalId);
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => { if (pre.current) pre.current.scrollTop = pre.current.scrollHeight; }, [t?.output.length]);
  if (!t) return <p class="muted small-note">terminal {terminalId}: not run by this console's agent process</p>;
  const exit = t.exit;
  return (
    <div class="terminal-view" role="group" aria-label={`Terminal ${terminalId}`}>
      <pre ref={pre} class="raw small terminal-output" aria-label={`Terminal ${terminalId} output`}>{t.truncated ? '…(earlier output cut)\n' : ''}{t.output}</pre>
      <p role="status" class={exit && exit.exitCode !== 0 ? 'bad small-note' : 'muted small-note'}>{exit === null ? 'running…' : exit.signal ? `ended by ${exit.signal}` : `exited ${exit.exitCode}`}</p>
    </div>
  );
}

/** The last turns of the console's recording, as the timeline's turn cards show them, kept current. */
function Turns() {
  const id = status.value?.recordingId ?? null;
  const items = current.value?.items ?? 0;
  const [turns, setTurns] = useState<TurnInfo[]>([]);
  const [details, setDetails] = useState<Map<number, TurnDetail>>(new Map());
  /** Asks for the turns again (set while a recording is shown). */
  const refresh = useRef<(() => void) | null>(null);
  // One load at a time, its answer always shown, and one more after it when items came meanwhile.
  // Items come with every chunk of a streaming turn: an answer dropped (or a timer put off) for each
  // newer item would leave the cards as they were for as long as the turn streams, once the server is
  // slower to answer than the agent to stream (a loaded machine).
  useEffect(() => {
    if (id === null) return undefined;
    let alive = true;
    let busy = false;
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () => {
      timer = undefined;
      if (busy) { again = true; return; }
      busy = true;
      void source.turns(id).then(async (list) => {
        const last = list.slice(-3);
        const got = await Promise.all(last.map((x) => source.turn(id, x.seq).catch(() => null)));
        if (!alive) return;
        setTurns(last);
        setDetails(new Map(got.filter((d): d is TurnDetail => d !== null).map((d) => [d.seq, d])));
      }).catch(() => undefined).finally(() => {
        busy = false;
        if (alive && again) { again = false; load(); }
      });
    };
    refresh.current = () => { timer ??= setTimeout(load, 150); };
    refresh.current();
    return () => { alive = false; clearTimeout(timer); refresh.current = null; };
  }, [id]);
  useEffect(() => { refresh.current?.(); }, [items]);
  return (
    <section class="console-box" aria-labelledby="c-turns">
      <h2 id="c-turns">Turns</h2>
      {turns.length === 0 && <p class="muted">No prompt turn yet.</p>}
      {turns.map((t) => {
        const d = details.get(t.seq);
        const running = (d?.endSeq ?? t.endSeq) === null;
        return (
          <article key={t.seq} class="turn console-turn" aria-label={`Turn at #${t.seq}`}>
            <header class="turn-head">
              <span class="turn-prompt">“{t.prompt || '(no text)'}”</span>
              <span class={`pill ${running ? 'live' : (d?.stopReason ?? t.stopReason) === 'end_turn' ? 'ok' : 'warn'}`}>{running ? 'running' : d?.stopReason ?? t.stopReason ?? 'no stop reason'}</span>
            </header>
            {d && <TurnSummaryBody d={d} terminal={(tid) => <TerminalOutput terminalId={tid} />} />}
          </article>
        );
      })}
    </section>
  );
}

function Notices() {
  const list = notices.value;
  if (!list.length) return null;
  return (
    <section class="console-box" aria-labelledby="c-notices">
      <h2 id="c-notices">What the console did</h2>
      <ul class="notices">{list.slice(-12).map((n, i) => <li key={i} class={n.level === 'error' ? 'bad' : ''}>{n.text}</li>)}</ul>
    </section>
  );
}

export function ConsoleApp() {
  useEffect(() => { takeStoredDraft(); void connectConsole(); }, []);
  // The timeline beside answers the same keys as anywhere (j/k, Enter, Esc...); there is no filter box here.
  useTimelineKeys({ current: null });
  const nf = findings.value?.length ?? 0;
  return (
    <div class="app console-app">
      <Header />
      {consoleError.value && <p class="bad console-error" role="alert">{consoleError.value}</p>}
      <div class="console-layout">
        <main class="console-side" aria-label="Console">
          <Connect />
          <Sessions />
          <Waiting />
          <Prompt />
          <Turns />
          <Raw />
          <Notices />
        </main>
        <section class="recording console-timeline" aria-label="This session's timeline">
          <h2 class="sr-only">Timeline</h2>
          <p class="muted small-note">{current.value ? `recording #${current.value.id} · ${current.value.frames} frames · ${nf} finding${nf === 1 ? '' : 's'}` : 'waiting for the recording…'}</p>
          <div class={`split${detailOpen.value && selSeq.value !== null ? ' with-detail' : ''}`}>
            <TimelineList />
            {detailOpen.value && selSeq.value !== null && <DetailPane />}
          </div>
        </section>
      </div>
    </div>
  );
}
