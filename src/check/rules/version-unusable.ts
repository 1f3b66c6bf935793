import { defineRule } from '../rule.js';

export const versionUnusable = defineRule({
  id: 'version-unusable',
  severity: 'warning',
  spec: '9 rule 2',
  title: 'Client went on with a version it cannot use',
  specText: 'If the client cannot use the answered version it should close the connection and inform the user.',
  layer: 'wire',
  kinds: ['request'],
  check(c) {
    const s = c.state;
    if (c.frame.dir !== 'c2a' || s.protocolVersion === undefined || s.requestedVersion === undefined) return;
    if (s.protocolVersion <= s.requestedVersion || !c.once('v')) return;
    c.report(`client asked for version ${s.requestedVersion} (its latest) but continued after the agent answered ${s.protocolVersion}; it should close the connection and inform the user`);
  },
});
