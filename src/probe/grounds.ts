/**
 * Which of the checker's findings may decide a probe's verdict. The checker flags as an error what
 * the spec states (a method "exists only when" a capability is true, `session/load` "streams the
 * whole history before completing", paths "are absolute"), whether or not the spec's words there are a
 * "must". A probe verdict rests only on a "must" or "required" (`req`) of the spec, or on JSON-RPC
 * 2.0's own MUSTs: the errors of the rules listed here are required; the checker's other errors are
 * advisory in a probe (reported, never deciding), like its warnings; its infos are info.
 */
import { RULES } from '../check/rule-list.js';
import type { ProbeFinding, Tier } from './report.js';

const RPC = 'JSON-RPC 2.0';
/** Rule id → the "must" its error rests on. */
const MUST_RULES: Readonly<Record<string, string>> = {
  'unanswered-request': `${RPC} (4): "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."`,
  'cancel-request-answer': '"After `$/cancel_request`, the receiver must answer the original request with either a valid response (partial results or a cancellation marker) or an error with code -32800." (7 rule 2)',
  'required-method-not-found': '"Every agent must support `session/new`, `session/prompt`, `session/cancel` and `session/update`." (4.4 rule 2)',
  'jsonrpc-version': `${RPC} (4): "jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly \\"2.0\\"."`,
  'result-and-error': `${RPC} (5): "Either the result member or error member MUST be included, but both members MUST NOT be included."`,
  'response-unknown-id': `${RPC} (5): "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object."`,
  'invalid-id': `${RPC} (4): "An identifier established by the Client that MUST contain a String, Number, or NULL value if included."`,
  'not-a-message': `${RPC} (4, 5): a request's "jsonrpc" and "method", a response's "id" and its "result" or "error" are REQUIRED / MUST be included`,
  'error-object': `${RPC} (5.1): "code: A Number that indicates the error type that occurred. This MUST be an integer."; "req means required" (spec, notation): Error \`message\` string req (7)`,
  'invalid-params': '"`req` means required" (spec, notation): a required field of the params (4.1, 4.2)',
  'invalid-result': '"`req` means required" (spec, notation): a required field of the result (4.1, 4.2)',
  'invalid-format': '"`req` means required" (spec, notation): image and audio `data` string req (base64), `blob` string req base64 (2.6)',
  'elicitation-scope-unknown': '"`req` means required" (spec, notation): an elicitation\'s `sessionId` req or `requestId` req (2.9)',
  // The client's.
  'initialize-first': '"Before any session exists, the client must call `initialize`" (4.4 rule 1); initialize "must be the first call" (4.1)',
  'initialize-once': 'initialize "must be the first call; once per connection" (4.1)',
  'permission-not-cancelled': '"on cancel of the turn the client must answer with the cancelled outcome" (4.2)',
  'prompt-block-unadvertised': '"The client must adapt to the prompt capabilities." (4.4 rule 3)',
  'authenticate-terminal-method': '"The client must not pass this method to `authenticate`." (5 rule 3)',
};

/** The rules whose errors decide (for the tests: each must be one of the checker's). */
export const MUST_RULE_IDS: readonly string[] = Object.keys(MUST_RULES);

const SPEC_TEXT = new Map(RULES.map((r) => [r.id, r.specText]));

/** The probe tier of a checker finding: required only where the rule rests on a "must" (above). */
export function tierOfFinding(f: Pick<ProbeFinding, 'rule' | 'severity'>): Tier {
  if (f.severity === 'error') return Object.hasOwn(MUST_RULES, f.rule) ? 'required' : 'advisory';
  return f.severity === 'warning' ? 'advisory' : 'info';
}

/** The words a checker finding's probe tier rests on. */
export function quoteOfFinding(f: Pick<ProbeFinding, 'rule' | 'severity' | 'spec'>): string {
  const must = MUST_RULES[f.rule];
  if (must && f.severity === 'error') return `${must}: the checker's rule ${f.rule}`;
  const words = SPEC_TEXT.get(f.rule);
  return `the checker's rule ${f.rule} (spec ${f.spec})${words ? ` reads ${JSON.stringify(words)}` : ''}${f.severity === 'error' ? ': no "must" there, so it does not decide' : ''}`;
}
