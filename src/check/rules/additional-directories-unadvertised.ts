import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { agentCaps, obj, present } from './util.js';

/** Reading: an empty list asks for nothing and is not reported. */
export const additionalDirectoriesUnadvertised = defineRule({
  id: 'additional-directories-unadvertised',
  severity: 'error',
  spec: '2.3',
  title: 'additionalDirectories without the capability',
  specText: '`additionalDirectories` (SessionAdditionalDirectoriesCapabilities; `{}` means additional workspace roots are supported). Peers treat all omitted capabilities as unsupported (9 rule 3).',
  methods: [M.sessionNew, M.sessionLoad, M.sessionResume, M.sessionFork],
  kinds: ['request'],
  check(c) {
    const dirs = c.params?.additionalDirectories;
    if (!Array.isArray(dirs) || dirs.length === 0 || c.state.agent.capabilities === undefined) return;
    if (present(obj(agentCaps(c.state).sessionCapabilities)?.additionalDirectories)) return;
    c.report(`${c.method} sends additionalDirectories, but the agent did not advertise sessionCapabilities.additionalDirectories`);
  },
});
