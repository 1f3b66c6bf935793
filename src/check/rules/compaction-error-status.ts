import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

/** Reading: `error: null` clears the error (patch semantics) and is fine with any status; a stored error kept (omitted) into another status is a warning. */
export const compactionErrorStatus = defineRule({
  id: 'compaction-error-status',
  severity: 'error',
  spec: '3',
  title: 'Compaction error with a status other than failed',
  specText: '`error` is valid only with status `failed`.',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['compaction_update'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'compaction_update' || !u) return;
    if (u.error === undefined) {
      // Patch semantics: an omitted error keeps the stored one.
      const id = str(u.compactionId);
      const stored = id !== undefined ? sessionOf(c.state, c.params)?.compactions[id] : undefined;
      if (stored?.hasError && typeof u.status === 'string' && u.status !== 'failed' && !u.status.startsWith('_')) c.report(`compaction_update ${JSON.stringify(id)} moves to ${JSON.stringify(u.status)} and keeps its stored error; send "error": null to clear it`, { severity: 'warning' });
      return;
    }
    if (u.error === null) return;
    if (u.status !== 'failed') c.report(`compaction_update ${JSON.stringify(u.compactionId)} carries an error with status ${JSON.stringify(u.status)}; error is valid only with "failed"`);
  },
});
