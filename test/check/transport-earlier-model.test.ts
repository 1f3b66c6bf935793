/**
 * The transport rules on a connection whose agent answered initialize without the RFD's
 * Acp-Connection-Id (an earlier draft's header model: Goose's pilot names the connection with
 * Acp-Session-Id): transport-connection-id-missing says so once, at that answer, and neither it nor
 * transport-session-header flags each request after it; a connection on the RFD's model is checked
 * request by request as before. Pure: transcripts in, findings out.
 */
import { describe, expect, it } from 'vitest';
import { check, init, session, prompt, chunk, endTurn, type Step } from './helpers.js';

const S = 's1';
const tx = (d: Record<string, unknown>): Step => ['event', 'transport', { transport: 'http', ...d }];
/** initialize and its POST, answered with `answer` headers. */
const initialized = (answer: Record<string, string>): Step[] => {
  const [request, result] = init();
  return [request!, tx({ op: 'post', method: 'POST', status: 200, contentType: 'application/json', requestHeaders: { 'content-type': 'application/json' }, responseHeaders: { 'content-type': 'application/json', ...answer }, rpc: { kind: 'request', id: 0, method: 'initialize' } }), result!];
};
/** session/new and a turn, each POST with `headers` (plus the session's Acp-Session-Id on the prompt's where `sessionHeader`). */
const rest = (headers: Record<string, string>, sessionHeader: boolean): Step[] => {
  const [newReq, newRes] = session(S);
  return [
    newReq!, tx({ op: 'post', method: 'POST', status: 202, requestHeaders: { 'content-type': 'application/json', ...headers }, rpc: { kind: 'request', id: 1, method: 'session/new' } }), newRes!,
    ['c2a', prompt(2)], tx({ op: 'post', method: 'POST', status: 202, requestHeaders: { 'content-type': 'application/json', ...headers, ...(sessionHeader ? { 'acp-session-id': S } : {}) }, rpc: { kind: 'request', id: 2, method: 'session/prompt', sessionId: S } }),
    ['a2c', chunk()], ['a2c', endTurn(2)],
  ];
};
const transportFindings = (steps: Step[]) => check(steps).filter((f) => f.rule.startsWith('transport-'));

describe('an agent on an earlier draft\'s header model', () => {
  it('Acp-Session-Id naming the connection: one finding at initialize\'s answer, none at the requests after it', () => {
    const f = transportFindings([...initialized({ 'acp-session-id': 'c1' }), ...rest({ 'acp-session-id': 'c1' }, false)]);
    expect(f.map((x) => [x.rule, x.seq])).toEqual([['transport-connection-id-missing', 2]]);
    expect(f[0]!.message).toContain('the agent names the connection with Acp-Session-Id c1 instead');
  });

  it('X-Acp-Connection-Id naming it, or no header at all: the same, once', () => {
    const x = transportFindings([...initialized({ 'x-acp-connection-id': 'c1' }), ...rest({ 'x-acp-connection-id': 'c1' }, false)]);
    expect(x.map((f) => f.rule)).toEqual(['transport-connection-id-missing']);
    expect(x[0]!.message).toContain('with X-Acp-Connection-Id c1');
    const none = transportFindings([...initialized({}), ...rest({}, false)]);
    expect(none.map((f) => [f.rule, f.seq])).toEqual([['transport-connection-id-missing', 2]]);
  });

  it('its requests answered 200 in their POST\'s own event stream (an earlier draft\'s model): no 202 warning per POST; on the RFD\'s model, each is warned', () => {
    const inPost = (headers: Record<string, string>): Step[] => {
      const [newReq, newRes] = session(S);
      const answered = (id: number, method: string): Step => tx({ op: 'post', method: 'POST', status: 200, contentType: 'text/event-stream', requestHeaders: { 'content-type': 'application/json', ...headers }, responseHeaders: { 'content-type': 'text/event-stream' }, rpc: { kind: 'request', id, method, ...(method === 'session/prompt' ? { sessionId: S } : {}) } });
      return [newReq!, answered(1, 'session/new'), newRes!, ['c2a', prompt(2)], answered(2, 'session/prompt'), ['a2c', chunk()], ['a2c', endTurn(2)]];
    };
    const earlier = transportFindings([...initialized({ 'acp-session-id': 'c1' }), ...inPost({ 'acp-session-id': 'c1' })]);
    expect(earlier.map((x) => x.rule)).toEqual(['transport-connection-id-missing']);
    const rfd = transportFindings([...initialized({ 'acp-connection-id': 'c1' }), ...inPost({ 'acp-connection-id': 'c1' })]);
    expect(rfd.filter((x) => x.rule === 'transport-accepted-status').map((x) => x.message)).toEqual([
      'the agent answered the POST of request session/new with 200, not 202 Accepted',
      'the agent answered the POST of request session/prompt with 200, not 202 Accepted',
    ]);
  });

  it('an agent that gave Acp-Connection-Id: nothing at initialize; a request without it, or a prompt without its session header, is flagged as before', () => {
    expect(transportFindings([...initialized({ 'acp-connection-id': 'c1' }), ...rest({ 'acp-connection-id': 'c1' }, true)])).toEqual([]);
    const f = transportFindings([...initialized({ 'acp-connection-id': 'c1' }), ...rest({}, false)]);
    expect(f.map((x) => x.rule).sort()).toEqual(['transport-connection-id-missing', 'transport-connection-id-missing', 'transport-session-header']);
  });
});
