import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

export const modeUpdateUnadvertised = defineRule({
  id: 'mode-update-unadvertised',
  severity: 'warning',
  spec: '3',
  title: 'Agent switched to a mode it did not advertise',
  specText: 'Session: any → `session/set_mode` (mode is one of the `availableModes` given at creation or load) → current mode changed; the agent may also change the mode itself and send a current-mode update.',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['current_mode_update'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'current_mode_update') return;
    const s = sessionOf(c.state, c.params);
    const mode = str(u?.currentModeId);
    if (!s || mode === undefined) return;
    if (!s.modes) {
      c.report(`current_mode_update to ${JSON.stringify(mode)}, but session ${JSON.stringify(s.id)} advertised no modes`);
      return;
    }
    if (s.modes.available.includes(mode)) return;
    c.report(`current_mode_update to ${JSON.stringify(mode)}, which is not among the advertised availableModes (${s.modes.available.join(', ') || 'none'})`);
  },
});
