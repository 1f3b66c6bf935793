import { defineRule } from '../rule.js';

export const notificationSentAsRequest = defineRule({
  id: 'notification-sent-as-request',
  severity: 'error',
  spec: '4',
  title: 'Notification method sent with an id',
  specText: 'Notifications carry no `id` (and get no response).',
  kinds: ['request'],
  check(c) {
    if (c.spec?.kind === 'notification') c.report(`${c.method} is a notification but was sent with an id, as a request; drop the id (no response will come)`);
  },
});
