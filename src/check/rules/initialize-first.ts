import { defineRule } from '../rule.js';
import { M, isExtensionName } from '../../spec/methods.js';

/**
 * Reading: extension (`_`) and `$/` messages are outside the rule; reported once, at the first
 * offending frame. A client going on after initialize was answered with an error is reported too.
 */
export const initializeFirst = defineRule({
  id: 'initialize-first',
  severity: 'error',
  spec: '4.4 rule 1',
  title: 'initialize is not the first call',
  specText: 'Before any session exists, the client must call `initialize` with its latest supported version and its capabilities. (4.1: must be the first call.)',
  kinds: ['request', 'notification'],
  check(c) {
    const m = c.method;
    if (m === undefined || m === M.initialize) return;
    if (isExtensionName(m) || m.startsWith('$/')) return;
    if (c.state.initializeSeq !== undefined) {
      // initialize answered with an error: the connection never became initialized.
      if (c.state.initializeErrorSeq !== undefined && c.state.connection !== 'initialized' && c.frame.dir === 'c2a' && c.once('failed')) c.report(`client sent ${m} although initialize failed (error at #${c.state.initializeErrorSeq}); the connection is not initialized until initialize succeeds`);
      return;
    }
    if (c.frame.dir === 'c2a' && c.once('first')) c.report(`client sent ${m} before initialize; initialize must be the first call on a connection`);
    if (c.frame.dir === 'a2c' && c.once('agent')) c.report(`agent sent ${m} before the client called initialize`);
  },
});
