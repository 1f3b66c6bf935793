import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str } from './util.js';

export const setModeUnadvertised = defineRule({
  id: 'set-mode-unadvertised',
  severity: 'error',
  spec: '4.4 rule 8',
  title: 'set_mode with a mode not advertised',
  specText: '`session/set_mode` is valid only with a mode id advertised in `availableModes`.',
  methods: [M.setMode],
  kinds: ['request'],
  check(c) {
    const s = sessionOf(c.state, c.params);
    const mode = str(c.params?.modeId);
    if (!s || mode === undefined) return;
    if (!s.modes) c.report(`session/set_mode to ${JSON.stringify(mode)}, but session ${JSON.stringify(s.id)} advertised no modes`);
    else if (!s.modes.available.includes(mode)) c.report(`session/set_mode to ${JSON.stringify(mode)}, which is not in availableModes (${s.modes.available.join(', ') || 'none'})`);
  },
});
