import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { clientCaps, obj, present, str } from './util.js';

/**
 * Reading: `form` needs `elicitation.form`, `url` needs `elicitation.url` (a non-null object);
 * a custom mode needs at least some elicitation mode advertised. `elicitation/complete` needs `url`.
 */
export const elicitationUnadvertised = defineRule({
  id: 'elicitation-unadvertised',
  severity: 'error',
  spec: '2.3',
  title: 'Elicitation mode the client did not advertise',
  specText: 'An `elicitation` object advertises a mode only through its non-null `form` or `url` member. An empty object or an all-null object is valid but advertises no mode.',
  methods: [M.elicitationCreate, M.elicitationComplete],
  kinds: ['request', 'notification'],
  check(c) {
    if (c.state.client.capabilities === undefined) return;
    const el = obj(clientCaps(c.state).elicitation);
    const form = present(el?.form);
    const url = present(el?.url);
    if (c.method === M.elicitationComplete) {
      if (!url) c.report('elicitation/complete sent, but the client did not advertise URL elicitation (clientCapabilities.elicitation.url)');
      return;
    }
    const mode = str(c.params?.mode);
    if (mode === 'form' && !form) c.report('form elicitation sent, but the client did not advertise clientCapabilities.elicitation.form');
    else if (mode === 'url' && !url) c.report('URL elicitation sent, but the client did not advertise clientCapabilities.elicitation.url');
    else if (mode !== 'form' && mode !== 'url' && !form && !url) c.report(`elicitation/create (mode ${JSON.stringify(mode)}) sent, but the client advertised no elicitation mode`);
  },
});
