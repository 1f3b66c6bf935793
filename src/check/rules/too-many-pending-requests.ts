import { defineRule } from '../rule.js';
import { MAX_PENDING_REQUESTS, pendingKey } from '../model.js';
import { who } from './util.js';
import { reverse } from '../../wire/frame.js';

/**
 * Reading: every request gets a response (4); a side with MAX_PENDING_REQUESTS requests in flight
 * that the other side has not answered is far past any real session, and the checker stops
 * tracking the oldest of them from here on so that its memory stays bounded. Reported once per side
 * (warning), so that the findings that now go unsaid (those requests unanswered, answers to them
 * paired) are never a silent gap.
 */
export const tooManyPendingRequests = defineRule({
  id: 'too-many-pending-requests',
  severity: 'warning',
  spec: '4',
  title: 'Too many requests in flight',
  specText: 'Requests get a response; each side numbers its own requests, and a response answers the request with its id.',
  layer: 'wire',
  kinds: ['request'],
  check(c) {
    const dir = c.frame.dir;
    if (c.state.pendingCount[dir] < MAX_PENDING_REQUESTS) return;
    const id = c.msg?.id;
    if ((typeof id === 'string' || typeof id === 'number' || id === null) && c.state.pending[pendingKey(dir, id)]) return; // replaces one
    if (!c.once(dir)) return;
    c.report(`the ${who(dir)} has ${MAX_PENDING_REQUESTS} requests in flight that the ${who(reverse(dir))} has not answered; from here on the checker forgets the oldest one for each new one (to bound its memory), so answers to forgotten requests are not paired and they are not reported as unanswered`);
  },
});
