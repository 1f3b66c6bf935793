import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { errorOf } from './util.js';

const REQUIRED: readonly string[] = [M.initialize, M.sessionNew, M.prompt];

export const requiredMethodNotFound = defineRule({
  id: 'required-method-not-found',
  severity: 'error',
  spec: '4.4 rule 2',
  title: 'Agent says a required method does not exist',
  specText: 'Every agent must support `session/new`, `session/prompt`, `session/cancel` and `session/update`. (`initialize` must be the first call.)',
  methods: REQUIRED,
  kinds: ['error'],
  check(c) {
    if (errorOf(c.msg)?.code === -32601) c.report(`agent answered ${c.method} with -32601 (method not found); every agent must support it`);
  },
});
