import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { at, clientCaps, obj, present } from './util.js';

function hasBoolean(list: unknown): number {
  if (!Array.isArray(list)) return -1;
  for (let i = 0; i < list.length && i < 1000; i++) if (obj(list[i])?.type === 'boolean') return i;
  return -1;
}

export const configBooleanUnadvertised = defineRule({
  id: 'config-boolean-unadvertised',
  severity: 'error',
  spec: '2.3',
  title: 'Boolean config option without client support',
  specText: 'Boolean config options: omitted or null at any level (`session`, `configOptions`, `boolean`) means unsupported; `{}` at `session.configOptions.boolean` means the agent may include options of `type: boolean` in `configOptions` payloads.',
  methods: [M.sessionNew, M.sessionLoad, M.sessionResume, M.sessionFork, M.setConfigOption, M.update],
  kinds: ['result', 'notification'],
  check(c) {
    if (c.state.client.capabilities === undefined) return;
    const list = c.frame.kind === 'result' ? obj(c.msg?.result)?.configOptions : at(c.params, 'update', 'sessionUpdate') === 'config_option_update' ? at(c.params, 'update', 'configOptions') : undefined;
    const i = hasBoolean(list);
    if (i < 0 || present(at(clientCaps(c.state), 'session', 'configOptions', 'boolean'))) return;
    c.report(`configOptions[${i}] has type "boolean", but the client did not advertise clientCapabilities.session.configOptions.boolean`);
  },
});
