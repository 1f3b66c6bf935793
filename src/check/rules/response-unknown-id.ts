import { defineRule } from '../rule.js';
import { who } from './util.js';
import { reverse } from '../../wire/frame.js';
import { pendingKey, textHash } from '../model.js';

/**
 * Reading: an error response with id null answers a line the other side could not parse, so it is
 * fine after such a line.
 */
export const responseUnknownId = defineRule({
  id: 'response-unknown-id',
  severity: 'error',
  spec: '4',
  title: 'Response to no pending request',
  specText: 'Requests get a response; each side numbers its own requests, and a response answers the request with its id.',
  layer: 'wire',
  kinds: ['result', 'error'],
  check(c) {
    if (c.req || !c.msg) return;
    const id = c.msg.id;
    if (id !== undefined && typeof id !== 'string' && typeof id !== 'number' && id !== null) return; // invalid-id
    if (id === undefined) return;
    if (id === null && c.frame.kind === 'error' && c.state.unparsed[reverse(c.frame.dir)] > 0) return;
    const asker = who(reverse(c.frame.dir));
    const forgotten = c.state.pendingForgotten?.[reverse(c.frame.dir)] ?? 0;
    if (forgotten > 0) {
      // The checker forgot some of the asker's requests (too-many-pending-requests): this may answer one.
      if (c.once('forgotten')) c.report(`response with id ${JSON.stringify(id)} answers no request the ${asker} has in flight that the checker still tracks; it forgot ${forgotten} of them (too many in flight), so this may answer one of those; later such responses are not reported`, { severity: 'warning' });
      return;
    }
    // The answer to a request already answered, sent again unchanged: delivered twice (sandbox-agent
    // answers in the POST's body and on its event stream too). A request gets a response (spec part
    // 1), and no words forbid a second one: a warning (a client drops the copy by its id), not the
    // error of an answer to nothing.
    const key = pendingKey(reverse(c.frame.dir), id);
    const again = c.state.recentAnswers?.find(([k, , len, h]) => k === key && len === c.frame.raw.length && h === textHash(c.frame.raw));
    if (again) {
      c.report(`response with id ${JSON.stringify(id)} repeats, unchanged, the answer the ${who(c.frame.dir)} already gave to the ${asker}'s request #${again[1]}: delivered twice (the ${asker} tells the copy by its id)`, { severity: 'warning' });
      return;
    }
    c.report(`response with id ${JSON.stringify(id)} answers no request the ${asker} has in flight (never sent, or already answered)`);
  },
});
