/**
 * The ACP method table (spec parts 4.1–4.3): every method with its direction, kind, the capability
 * that gates it and the spec section. Data only; the checker's rules read it. Methods only in the
 * SDK's unstable schema are listed as `unstable` so they are known but never gated as errors.
 */

/** Who handles the method: `agent` methods are sent client→agent, `client` methods agent→client. */
export type MethodSide = 'agent' | 'client' | 'protocol';
export type MethodKind = 'request' | 'notification' | 'both';

/** A capability that must be advertised by `holder` for the method to be available. */
export interface CapabilityGate {
  /** Whose capabilities hold the gate: the agent's `agentCapabilities` or the client's `clientCapabilities`. */
  holder: 'agent' | 'client';
  /** Path inside the capabilities object. */
  path: readonly string[];
  /** `true`: the value must be boolean true; `present`: it must be a non-null object. */
  test: 'true' | 'present';
  /** Spec section stating the gate. */
  spec: string;
}

export interface MethodSpec {
  name: string;
  side: MethodSide;
  kind: MethodKind;
  /** Marked UNSTABLE (spec 9 rule 5): known, but never an error by itself. */
  unstable?: boolean;
  gate?: CapabilityGate;
  /** Section of spec.md describing the method. */
  spec: string;
  /** Params carry a `sessionId` that must name a session known on this connection. */
  session?: 'required' | 'none';
  /**
   * Required fields as spec.md lists them, for methods the SDK's schemas do not describe (checked
   * by presence, and by type where spec.md gives one: `string`, `int64`; UNSTABLE methods, so warnings).
   */
  required?: { params?: readonly string[]; result?: readonly string[]; types?: Readonly<Record<string, 'string' | 'int64'>> };
}

const agentGate = (path: string[], test: 'true' | 'present', spec: string): CapabilityGate => ({ holder: 'agent', path, test, spec });
const clientGate = (path: string[], test: 'true' | 'present', spec: string): CapabilityGate => ({ holder: 'client', path, test, spec });

const LIST: MethodSpec[] = [
  // 4.1 Agent methods (client calls agent)
  { name: 'initialize', side: 'agent', kind: 'request', spec: '4.1' },
  { name: 'authenticate', side: 'agent', kind: 'request', spec: '5 rule 2' },
  { name: 'logout', side: 'agent', kind: 'request', spec: '5 rule 4', gate: agentGate(['auth', 'logout'], 'present', '5 rule 4') },
  { name: 'session/new', side: 'agent', kind: 'request', spec: '4.1' },
  { name: 'session/load', side: 'agent', kind: 'request', spec: '4.1', gate: agentGate(['loadSession'], 'true', '4.1') },
  { name: 'session/resume', side: 'agent', kind: 'request', spec: '4.1', gate: agentGate(['sessionCapabilities', 'resume'], 'present', '2.3') },
  { name: 'session/fork', side: 'agent', kind: 'request', spec: '4.1', unstable: true, session: 'required', gate: agentGate(['sessionCapabilities', 'fork'], 'present', '2.3') },
  { name: 'session/list', side: 'agent', kind: 'request', spec: '4.1', gate: agentGate(['sessionCapabilities', 'list'], 'present', '2.3') },
  { name: 'session/close', side: 'agent', kind: 'request', spec: '4.1', session: 'required', gate: agentGate(['sessionCapabilities', 'close'], 'present', '2.3') },
  { name: 'session/delete', side: 'agent', kind: 'request', spec: '4.1', gate: agentGate(['sessionCapabilities', 'delete'], 'present', '2.3') },
  { name: 'session/prompt', side: 'agent', kind: 'request', spec: '4.4 rule 3', session: 'required' },
  { name: 'session/cancel', side: 'agent', kind: 'notification', spec: '4.1', session: 'required' },
  { name: 'session/set_mode', side: 'agent', kind: 'request', spec: '4.4 rule 8', session: 'required' },
  { name: 'session/set_config_option', side: 'agent', kind: 'request', spec: '4.1', session: 'required' },
  { name: 'document/didOpen', side: 'agent', kind: 'notification', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId', 'uri', 'languageId', 'version', 'text'], types: { uri: 'string', languageId: 'string', version: 'int64', text: 'string' } } },
  { name: 'document/didChange', side: 'agent', kind: 'notification', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId', 'uri', 'version', 'contentChanges'], types: { uri: 'string', version: 'int64' } } },
  { name: 'document/didClose', side: 'agent', kind: 'notification', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId', 'uri'], types: { uri: 'string' } } },
  { name: 'document/didSave', side: 'agent', kind: 'notification', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId', 'uri'], types: { uri: 'string' } } },
  { name: 'document/didFocus', side: 'agent', kind: 'notification', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId', 'uri', 'version', 'position', 'visibleRange'], types: { uri: 'string', version: 'int64' } } },
  { name: 'nes/start', side: 'agent', kind: 'request', spec: '4.1', unstable: true, gate: agentGate(['nes'], 'present', '2.3'), required: { result: ['sessionId'] } },
  { name: 'nes/suggest', side: 'agent', kind: 'request', spec: '4.1', unstable: true, session: 'required', gate: agentGate(['nes'], 'present', '2.3'), required: { params: ['sessionId', 'uri', 'version', 'position', 'triggerKind'], result: ['suggestions'], types: { uri: 'string', version: 'int64' } } },
  { name: 'nes/accept', side: 'agent', kind: 'notification', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId', 'id'] } },
  { name: 'nes/reject', side: 'agent', kind: 'notification', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId', 'id'] } },
  { name: 'nes/close', side: 'agent', kind: 'request', spec: '4.1', unstable: true, session: 'required', required: { params: ['sessionId'] } },
  { name: 'providers/list', side: 'agent', kind: 'request', spec: '4.1', unstable: true, gate: agentGate(['providers'], 'present', '2.3') },
  { name: 'providers/set', side: 'agent', kind: 'request', spec: '2.12', unstable: true, gate: agentGate(['providers'], 'present', '2.3') },
  { name: 'providers/disable', side: 'agent', kind: 'request', spec: '4.1', unstable: true, gate: agentGate(['providers'], 'present', '2.3') },
  // Only in the SDK's unstable schema (not in spec.md): known so they are not "unknown methods".
  { name: 'auth/status', side: 'agent', kind: 'request', spec: '9 rule 5', unstable: true },
  { name: 'session/archive', side: 'agent', kind: 'request', spec: '9 rule 5', unstable: true },
  { name: 'session/unarchive', side: 'agent', kind: 'request', spec: '9 rule 5', unstable: true },
  { name: 'session/status', side: 'agent', kind: 'request', spec: '9 rule 5', unstable: true },
  { name: 'session/set_title', side: 'agent', kind: 'request', spec: '9 rule 5', unstable: true },
  { name: 'auth/status_update', side: 'client', kind: 'notification', spec: '9 rule 5', unstable: true },
  { name: 'proxy/initialize', side: 'protocol', kind: 'request', spec: '9 rule 5', unstable: true },
  { name: 'proxy/successor', side: 'protocol', kind: 'both', spec: '9 rule 5', unstable: true },
  // 4.2 Client methods (agent calls client)
  { name: 'session/update', side: 'client', kind: 'notification', spec: '6', session: 'required' },
  { name: 'session/request_permission', side: 'client', kind: 'request', spec: '4.2', session: 'required' },
  { name: 'fs/read_text_file', side: 'client', kind: 'request', spec: '4.4 rule 4', session: 'required', gate: clientGate(['fs', 'readTextFile'], 'true', '4.4 rule 4') },
  { name: 'fs/write_text_file', side: 'client', kind: 'request', spec: '4.4 rule 4', session: 'required', gate: clientGate(['fs', 'writeTextFile'], 'true', '4.4 rule 4') },
  { name: 'terminal/create', side: 'client', kind: 'request', spec: '4.4 rule 4', session: 'required', gate: clientGate(['terminal'], 'true', '4.4 rule 4') },
  { name: 'terminal/output', side: 'client', kind: 'request', spec: '4.4 rule 4', session: 'required', gate: clientGate(['terminal'], 'true', '4.4 rule 4') },
  { name: 'terminal/wait_for_exit', side: 'client', kind: 'request', spec: '4.4 rule 4', session: 'required', gate: clientGate(['terminal'], 'true', '4.4 rule 4') },
  { name: 'terminal/kill', side: 'client', kind: 'request', spec: '4.4 rule 4', session: 'required', gate: clientGate(['terminal'], 'true', '4.4 rule 4') },
  { name: 'terminal/release', side: 'client', kind: 'request', spec: '4.4 rule 4', session: 'required', gate: clientGate(['terminal'], 'true', '4.4 rule 4') },
  { name: 'elicitation/create', side: 'client', kind: 'request', spec: '2.9' },
  { name: 'elicitation/complete', side: 'client', kind: 'notification', spec: '6' },
  { name: 'mcp/connect', side: 'client', kind: 'request', spec: '4.2', unstable: true, required: { params: ['serverId'], result: ['connectionId'] } },
  { name: 'mcp/disconnect', side: 'client', kind: 'request', spec: '4.2', unstable: true, required: { params: ['connectionId'] } },
  // Either side
  // spec.md and the SDK schema disagree on mcp/message (connectionId vs serverId/requestId): spec.md's fields are checked.
  { name: 'mcp/message', side: 'protocol', kind: 'both', spec: '4.1', unstable: true, required: { params: ['connectionId', 'method'] } },
  { name: '$/cancel_request', side: 'protocol', kind: 'notification', spec: '4.3' },
];

/** Every known method by name. */
export const METHODS: ReadonlyMap<string, MethodSpec> = new Map(LIST.map((m) => [m.name, m]));

/** Method names used by the checker (one place for the string literals). */
export const M = {
  initialize: 'initialize',
  authenticate: 'authenticate',
  logout: 'logout',
  sessionNew: 'session/new',
  sessionLoad: 'session/load',
  sessionResume: 'session/resume',
  sessionFork: 'session/fork',
  sessionList: 'session/list',
  sessionClose: 'session/close',
  sessionDelete: 'session/delete',
  prompt: 'session/prompt',
  cancel: 'session/cancel',
  setMode: 'session/set_mode',
  setConfigOption: 'session/set_config_option',
  update: 'session/update',
  requestPermission: 'session/request_permission',
  readTextFile: 'fs/read_text_file',
  writeTextFile: 'fs/write_text_file',
  terminalCreate: 'terminal/create',
  terminalOutput: 'terminal/output',
  terminalWait: 'terminal/wait_for_exit',
  terminalKill: 'terminal/kill',
  terminalRelease: 'terminal/release',
  elicitationCreate: 'elicitation/create',
  elicitationComplete: 'elicitation/complete',
  cancelRequest: '$/cancel_request',
  nesStart: 'nes/start',
  nesClose: 'nes/close',
} as const;

/** Methods that create or attach a session (their result or params name it). */
export const SESSION_OPENERS: readonly string[] = [M.sessionNew, M.sessionLoad, M.sessionResume, M.sessionFork, M.nesStart];

/** The direction a method travels in when sent by the right side. */
export function expectedDirection(spec: MethodSpec): 'c2a' | 'a2c' | undefined {
  return spec.side === 'agent' ? 'c2a' : spec.side === 'client' ? 'a2c' : undefined;
}

/** True for extension names (spec 9 rule 6): a leading underscore. */
export function isExtensionName(name: string): boolean {
  return name.startsWith('_');
}

/** Reads a capability gate against the capabilities object of its holder. */
export function gateOpen(gate: CapabilityGate, caps: unknown): boolean {
  let v: unknown = caps;
  for (const k of gate.path) {
    if (v === null || typeof v !== 'object') return false;
    v = (v as Record<string, unknown>)[k];
  }
  return gate.test === 'true' ? v === true : v !== null && v !== undefined && typeof v === 'object';
}

/** `agentCapabilities.loadSession` for a gate path, for messages. */
export function gateLabel(gate: CapabilityGate): string {
  return `${gate.holder}Capabilities.${gate.path.join('.')}`;
}
