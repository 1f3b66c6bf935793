import { defineRule } from '../rule.js';

export const requestSentAsNotification = defineRule({
  id: 'request-sent-as-notification',
  severity: 'error',
  spec: '4',
  title: 'Request method sent without an id',
  specText: 'Requests carry `jsonrpc`, `id`, `method`, `params`; requests get a response.',
  kinds: ['notification'],
  check(c) {
    if (c.spec?.kind === 'request') c.report(`${c.method} is a request but was sent without an id, as a notification; it needs an id to be answered`);
  },
});
