import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

/**
 * Reading: the cursor is opaque, so a client can only pass back a `nextCursor` the agent returned
 * on this connection (warning: a cursor may also come from an earlier connection).
 */
export const listCursorUnknown = defineRule({
  id: 'list-cursor-unknown',
  severity: 'warning',
  spec: '4.1',
  title: 'session/list with a cursor the agent never returned',
  specText: '`session/list`: cursor string | null; cursor is opaque; absent `nextCursor` means no more results. (8: opaque `cursor` and `nextCursor`.)',
  methods: [M.sessionList],
  kinds: ['request'],
  check(c) {
    const cur = str(c.params?.cursor);
    if (cur === undefined || c.state.listCursors?.[cur]) return;
    c.report(`session/list with cursor ${JSON.stringify(cur)}, which no session/list result returned as nextCursor; cursors are opaque, pass back the agent's nextCursor`);
  },
});
