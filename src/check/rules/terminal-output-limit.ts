import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';
import { utf8Length } from '../../wire/make-frame.js';

export const terminalOutputLimit = defineRule({
  id: 'terminal-output-limit',
  severity: 'error',
  spec: '4.4 rule 5',
  title: 'Terminal output longer than outputByteLimit',
  specText: '`terminal/create`: the client keeps at most `outputByteLimit` bytes, truncating from the beginning, always at a character boundary.',
  methods: [M.terminalOutput],
  kinds: ['result'],
  check(c) {
    const tid = str(c.req?.info?.terminalId);
    const t = tid !== undefined ? c.state.terminals[tid] : undefined;
    const out = obj(c.msg?.result)?.output;
    if (!t || t.outputByteLimit === undefined || typeof out !== 'string') return;
    const bytes = utf8Length(out);
    if (bytes > t.outputByteLimit) c.report(`terminal/output returned ${bytes} bytes for terminal ${JSON.stringify(tid)}, created with outputByteLimit ${t.outputByteLimit}; the client keeps at most that many bytes`);
  },
});
