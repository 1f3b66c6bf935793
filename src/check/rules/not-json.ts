import { defineRule } from '../rule.js';
import { quote } from './util.js';

/** A line on the agent's stdin or stdout that is not JSON. On stdout this is usually logging. */
export const notJson = defineRule({
  id: 'not-json',
  severity: 'error',
  spec: '4',
  title: 'Line is not JSON',
  specText: 'All calls are JSON-RPC 2.0 messages: requests carry `jsonrpc`, `id`, `method`, `params`; responses carry `result` or `error`; notifications carry no `id`.',
  layer: 'wire',
  kinds: ['invalid'],
  check(c) {
    const f = c.frame;
    if (f.rawBase64 !== undefined || !f.parseError?.startsWith('not JSON')) return;
    const t = f.raw.trim();
    if (t === '{' || t === '}' || t === '[' || /^"[^"]+":/.test(t)) {
      c.report(`${f.dir === 'a2c' ? 'agent' : 'client'} wrote a piece of multi-line (pretty-printed) JSON: ${quote(f.raw)}; each message must be one line of JSON with no embedded newlines`);
    } else if (f.dir === 'a2c') {
      c.report(`agent wrote a line that is not JSON to stdout: ${quote(f.raw)}; stdout must carry only ACP messages — send logs to stderr`);
    } else {
      c.report(`client wrote a line that is not JSON to the agent's stdin: ${quote(f.raw)}; only ACP messages may be written there`);
    }
  },
});
