import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

export const versionMismatch = defineRule({
  id: 'version-mismatch',
  severity: 'info',
  spec: '9 rule 2',
  title: 'Agent answered another protocol version',
  specText: 'If the agent supports it, it answers with the same version; otherwise with the latest it supports. If the client cannot use the answered version it should close the connection and inform the user.',
  layer: 'wire',
  methods: [M.initialize],
  kinds: ['result'],
  check(c) {
    const v = obj(c.msg?.result)?.protocolVersion;
    const asked = c.state.requestedVersion;
    if (c.req?.seq !== c.state.initializeSeq || typeof v !== 'number' || asked === undefined || v === asked) return;
    c.report(`client asked for protocol version ${asked}, agent answered ${v}${v > asked ? '; the client cannot use a version newer than its latest and should close the connection' : ''}`);
  },
});
