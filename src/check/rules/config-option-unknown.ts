import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str } from './util.js';

/** Reading: not stated as a MUST, but a configId the agent never offered, or a value a select option did not offer, is a likely bug (warning). */
export const configOptionUnknown = defineRule({
  id: 'config-option-unknown',
  severity: 'warning',
  spec: '4.1',
  title: 'set_config_option for an option not offered',
  specText: '`session/set_config_option`: sessionId req; configId SessionConfigId req; result: configOptions (full set with current values).',
  methods: [M.setConfigOption],
  kinds: ['request'],
  check(c) {
    const s = sessionOf(c.state, c.params);
    const id = str(c.params?.configId);
    if (!s || id === undefined) return;
    if (!s.configOptions) c.report(`session/set_config_option for ${JSON.stringify(id)}, but session ${JSON.stringify(s.id)} offered no configOptions`);
    else if (!s.configOptions.includes(id)) c.report(`session/set_config_option for ${JSON.stringify(id)}, which is not among the session's configOptions (${s.configOptions.join(', ') || 'none'})`);
    else {
      // A select option: the value must be one of the values it offered.
      const values = s.configValues?.[id];
      const v = c.params?.value;
      if (values && typeof v === 'string' && c.params?.type === undefined && !values.includes(v)) c.report(`session/set_config_option sets ${JSON.stringify(id)} to ${JSON.stringify(v)}, which is not among its options (${values.map((x) => JSON.stringify(x)).join(', ') || 'none'})`);
    }
  },
});
