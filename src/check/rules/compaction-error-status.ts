import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { updateOf } from './util.js';

/** Reading: `error: null` clears the error (patch semantics) and is fine with any status. */
export const compactionErrorStatus = defineRule({
  id: 'compaction-error-status',
  severity: 'error',
  spec: '3',
  title: 'Compaction error with a status other than failed',
  specText: '`error` is valid only with status `failed`.',
  methods: [M.update],
  kinds: ['notification'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'compaction_update' || u?.error === undefined || u.error === null) return;
    if (u.status !== 'failed') c.report(`compaction_update ${JSON.stringify(u.compactionId)} carries an error with status ${JSON.stringify(u.status)}; error is valid only with "failed"`);
  },
});
