import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { MESSAGE_CHUNKS } from '../model.js';
import { sessionOf, str, updateOf } from './util.js';

/**
 * Reading: all chunks of one message share a messageId and a changed messageId marks a new message,
 * so a messageId that comes back after another message of the same kind started, or that names
 * chunks of two kinds (user, agent, thought), mixes two messages. Chunks without a messageId are not judged.
 */
export const messageIdReused = defineRule({
  id: 'message-id-reused',
  severity: 'warning',
  spec: '2.6',
  title: 'messageId of an earlier or another kind of message',
  specText: 'ContentChunk = {content: ContentBlock req, messageId: MessageId | null}; all chunks of one message share a `messageId`, and a changed `messageId` marks a new message.',
  methods: [M.update],
  kinds: ['notification'],
  updates: [...MESSAGE_CHUNKS],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind === undefined || !MESSAGE_CHUNKS.has(kind)) return;
    const mid = str(u?.messageId);
    if (mid === undefined) return;
    const s = sessionOf(c.state, c.params);
    const owner = s?.messages?.[mid];
    if (!s || owner === undefined) return;
    if (owner !== kind) c.report(`${kind} with messageId ${JSON.stringify(mid)}, which already names a ${owner} message; one message id, one message`);
    else if (s.lastMessage?.[kind] !== mid) c.report(`${kind} goes back to messageId ${JSON.stringify(mid)} after message ${JSON.stringify(s.lastMessage?.[kind])} started; a changed messageId marks a new message, so chunks of an earlier message cannot follow`);
  },
});
