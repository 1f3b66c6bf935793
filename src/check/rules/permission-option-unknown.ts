import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';

export const permissionOptionUnknown = defineRule({
  id: 'permission-option-unknown',
  severity: 'warning',
  spec: '4.2',
  title: 'Permission answered with an option not offered',
  specText: '`session/request_permission`: options PermissionOption[] req; result: outcome RequestPermissionOutcome req.',
  methods: [M.requestPermission],
  kinds: ['result'],
  check(c) {
    const o = obj(obj(c.msg?.result)?.outcome);
    const ids = c.req?.info?.optionIds;
    if (o?.outcome !== 'selected' || !Array.isArray(ids)) return;
    const id = str(o.optionId);
    if (id !== undefined && !ids.includes(id)) c.report(`permission answered with optionId ${JSON.stringify(id)}, which the request did not offer (${ids.join(', ')})`);
  },
});
