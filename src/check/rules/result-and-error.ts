import { defineRule } from '../rule.js';

export const resultAndError = defineRule({
  id: 'result-and-error',
  severity: 'error',
  spec: '4',
  title: 'Response with both result and error',
  specText: 'Responses carry `result` or `error`.',
  layer: 'wire',
  kinds: ['error'],
  check(c) {
    if (c.msg && 'result' in c.msg) c.report('response carries both "result" and "error"; a response has exactly one of them');
  },
});
