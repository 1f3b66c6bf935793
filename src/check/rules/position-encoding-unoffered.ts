import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { clientCaps, obj, str } from './util.js';

/** Reading: UNSTABLE (2.3), so a warning. When the client offered no list, any selection is unoffered. */
export const positionEncodingUnoffered = defineRule({
  id: 'position-encoding-unoffered',
  severity: 'warning',
  spec: '2.3',
  title: 'Agent selected a position encoding the client did not offer',
  specText: 'positionEncoding: PositionEncodingKind | null; UNSTABLE; the encoding the agent selected from the client\'s list (positionEncodings, in order of preference).',
  methods: [M.initialize],
  kinds: ['result'],
  check(c) {
    if (c.req?.seq !== c.state.initializeSeq) return;
    const chosen = str(obj(obj(c.msg?.result)?.agentCapabilities)?.positionEncoding);
    if (chosen === undefined) return;
    const offered = clientCaps(c.state).positionEncodings;
    const list = Array.isArray(offered) ? offered : [];
    if (!list.includes(chosen)) c.report(`agent selected positionEncoding ${JSON.stringify(chosen)}, which is not in the client's positionEncodings (${list.map((x) => JSON.stringify(x)).join(', ') || 'none offered'})`);
  },
});
