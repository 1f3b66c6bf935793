/**
 * What the console page knows from the lines it sent and heard, folded in order: the agent's answer
 * to initialize, the sessions it opened (with their modes and config options, kept current by their
 * updates), the slash commands on offer, and the prompts still running. Pure: frames in, state out.
 */
import type { ConsoleFrame } from '../../src/console/contract.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface ConsoleMode { id: string; name: string }
export interface ConsoleConfigOption { id: string; name: string; type: string; currentValue: unknown; options: { value: string; name: string }[] }
export interface ConsoleSessionView {
  sessionId: string;
  modes: ConsoleMode[];
  currentModeId: string | null;
  configOptions: ConsoleConfigOption[];
  commands: { name: string; description: string; hint: string | null }[];
}

export interface ConsoleState {
  /** The result of the last initialize (null until answered), or its error. */
  init: { result?: Obj; error?: Obj } | null;
  sessions: Map<string, ConsoleSessionView>;
  /** Prompts sent and not answered yet: their request id and session. */
  running: { id: unknown; sessionId: string }[];
  /** The last stop reason per session. */
  stopReasons: Map<string, string>;
}

export function emptyConsoleState(): ConsoleState {
  return { init: null, sessions: new Map(), running: [], stopReasons: new Map() };
}

function configOptions(v: unknown): ConsoleConfigOption[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).map((o) => ({
    id: String(o.id ?? ''), name: String(o.name ?? o.id ?? ''), type: String(o.type ?? 'select'), currentValue: o.currentValue,
    options: (Array.isArray(o.options) ? o.options : []).flatMap((x) => (isObj(x) && Array.isArray(x.options) ? x.options : [x])).filter(isObj)
      .map((x) => ({ value: String(x.value ?? ''), name: String(x.name ?? x.value ?? '') })),
  }));
}

function sessionFrom(sessionId: string, r: Obj, prev?: ConsoleSessionView): ConsoleSessionView {
  const modes = isObj(r.modes) ? r.modes : undefined;
  return {
    sessionId,
    modes: modes && Array.isArray(modes.availableModes) ? modes.availableModes.filter(isObj).map((m) => ({ id: String(m.id ?? ''), name: String(m.name ?? m.id ?? '') })) : prev?.modes ?? [],
    currentModeId: modes && typeof modes.currentModeId === 'string' ? modes.currentModeId : prev?.currentModeId ?? null,
    configOptions: Array.isArray(r.configOptions) ? configOptions(r.configOptions) : prev?.configOptions ?? [],
    commands: prev?.commands ?? [],
  };
}

/** Folds one frame into `s` (in place; returns it). `sent` maps the console's request ids to their frames. */
export function foldConsoleFrame(s: ConsoleState, f: ConsoleFrame, sent: Map<string, ConsoleFrame>): ConsoleState {
  const j = isObj(f.json) ? f.json : undefined;
  if (f.dir === 'c2a') {
    if (f.kind === 'request' && j) {
      sent.set(JSON.stringify(f.id), f);
      const p = isObj(j.params) ? j.params : {};
      if (f.method === 'session/prompt' && typeof p.sessionId === 'string') s.running.push({ id: f.id, sessionId: p.sessionId });
    }
    return s;
  }
  if ((f.kind === 'result' || f.kind === 'error') && j) {
    const key = JSON.stringify(f.id);
    const req = sent.get(key);
    sent.delete(key);
    s.running = s.running.filter((r) => JSON.stringify(r.id) !== key);
    if (!req) return s;
    const reqParams = isObj(req.json) && isObj((req.json as Obj).params) ? ((req.json as Obj).params as Obj) : {};
    const result = isObj(j.result) ? j.result : undefined;
    if (req.method === 'initialize') s.init = result ? { result } : { error: isObj(j.error) ? j.error : { message: String(j.error) } };
    else if (result && (req.method === 'session/new' || req.method === 'session/fork') && typeof result.sessionId === 'string') {
      s.sessions.set(result.sessionId, sessionFrom(result.sessionId, result));
    } else if (result && (req.method === 'session/load' || req.method === 'session/resume') && typeof reqParams.sessionId === 'string') {
      s.sessions.set(reqParams.sessionId, sessionFrom(reqParams.sessionId, result, s.sessions.get(reqParams.sessionId)));
    } else if (result && (req.method === 'session/close' || req.method === 'session/delete') && typeof reqParams.sessionId === 'string') {
      s.sessions.delete(reqParams.sessionId);
    } else if (result && req.method === 'session/prompt' && typeof reqParams.sessionId === 'string' && typeof result.stopReason === 'string') {
      s.stopReasons.set(reqParams.sessionId, result.stopReason);
    } else if (result && req.method === 'session/set_config_option' && typeof reqParams.sessionId === 'string' && Array.isArray(result.configOptions)) {
      const cur = s.sessions.get(reqParams.sessionId);
      if (cur) s.sessions.set(cur.sessionId, { ...cur, configOptions: configOptions(result.configOptions) });
    } else if (result && req.method === 'session/set_mode' && typeof reqParams.sessionId === 'string' && typeof reqParams.modeId === 'string') {
      const cur = s.sessions.get(reqParams.sessionId);
      if (cur) s.sessions.set(cur.sessionId, { ...cur, currentModeId: reqParams.modeId });
    }
    return s;
  }
  if (f.kind === 'notification' && f.method === 'session/update' && j && isObj(j.params) && isObj(j.params.update)) {
    const sid = j.params.sessionId;
    const u = j.params.update;
    const cur = typeof sid === 'string' ? s.sessions.get(sid) : undefined;
    if (!cur) return s;
    if (u.sessionUpdate === 'current_mode_update' && typeof u.currentModeId === 'string') s.sessions.set(cur.sessionId, { ...cur, currentModeId: u.currentModeId });
    else if (u.sessionUpdate === 'config_option_update' && Array.isArray(u.configOptions)) s.sessions.set(cur.sessionId, { ...cur, configOptions: configOptions(u.configOptions) });
    else if (u.sessionUpdate === 'available_commands_update' && Array.isArray(u.availableCommands)) {
      s.sessions.set(cur.sessionId, {
        ...cur,
        commands: u.availableCommands.filter(isObj).map((c) => ({
          name: String(c.name ?? ''), description: String(c.description ?? ''), hint: isObj(c.input) && typeof c.input.hint === 'string' ? c.input.hint : null,
        })),
      });
    }
  }
  return s;
}
