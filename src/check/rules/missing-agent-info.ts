import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

export const missingAgentInfo = defineRule({
  id: 'missing-agent-info',
  severity: 'warning',
  spec: '2.4',
  title: 'initialize result without agentInfo',
  specText: 'Both peers should send this (`clientInfo`, `agentInfo`); it is to become required in a future protocol version.',
  methods: [M.initialize],
  kinds: ['result'],
  check(c) {
    const r = obj(c.msg?.result);
    if (!r || c.req?.seq !== c.state.initializeSeq) return;
    if (r.agentInfo === undefined || r.agentInfo === null) c.report('initialize result has no agentInfo {name, version}; agents should send it (it becomes required in a future version)');
  },
});
