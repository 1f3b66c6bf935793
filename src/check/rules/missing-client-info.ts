import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';

export const missingClientInfo = defineRule({
  id: 'missing-client-info',
  severity: 'warning',
  spec: '4.4 rule 1',
  title: 'initialize without clientInfo',
  specText: 'The client must call `initialize` ...; it should also send `clientInfo`. (2.4: both peers should send this; it is to become required.)',
  methods: [M.initialize],
  kinds: ['request'],
  check(c) {
    const ci = c.params?.clientInfo;
    if ((ci === undefined || ci === null) && c.state.initializeSeq === undefined) c.report('initialize has no clientInfo {name, version}; clients should send it (it becomes required in a future version)');
  },
});
