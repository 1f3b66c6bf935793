import { defineRule } from '../rule.js';

export const errorObject = defineRule({
  id: 'error-object',
  severity: 'error',
  spec: '7',
  title: 'Malformed error object',
  specText: 'Errors are JSON-RPC error objects: `code` integer, required; `message` string, required; `data` optional.',
  layer: 'wire',
  kinds: ['error'],
  check(c) {
    const e = c.msg?.error;
    if (e === null || typeof e !== 'object' || Array.isArray(e)) {
      c.report(`"error" is ${JSON.stringify(e)}; it must be an object with an integer "code" and a string "message"`);
      return;
    }
    const o = e as Record<string, unknown>;
    const problems: string[] = [];
    if (!('code' in o)) problems.push('"code" is missing');
    else if (typeof o.code !== 'number' || !Number.isInteger(o.code)) problems.push(`"code" is ${JSON.stringify(o.code)}, not an integer`);
    if (!('message' in o)) problems.push('"message" is missing');
    else if (typeof o.message !== 'string') problems.push(`"message" is ${JSON.stringify(o.message)}, not a string`);
    if (problems.length) c.report(`error object: ${problems.join('; ')}`);
  },
});
