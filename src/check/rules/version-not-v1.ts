import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

/** Reading: this checker knows v1; on another version it says so once and turns v1 findings into info. */
export const versionNotV1 = defineRule({
  id: 'version-not-v1',
  severity: 'info',
  spec: '9 rule 1',
  title: 'Protocol version other than 1 negotiated',
  specText: 'The protocol version is a single integer naming a major version; it increases only on breaking changes.',
  layer: 'wire',
  methods: [M.initialize],
  kinds: ['result'],
  check(c) {
    const v = obj(c.msg?.result)?.protocolVersion;
    if (c.req?.seq !== c.state.initializeSeq || typeof v !== 'number' || v === 1) return;
    c.report(`protocol version ${v} negotiated; these checks follow version 1, so their findings are reported as info from here on`);
  },
});
