#!/usr/bin/env node
// A conformant agent on the 2.4.0 SDK API that uses most of the protocol: auth, modes, load with
// history replay, list, close, prompt turns with fs, terminals, permissions, plans, tool calls, and
// cancellation (answers "cancelled" after session/cancel).
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const turns = new Map(); // sessionId -> AbortController of the running turn
let n = 0;
const text = (t) => ({ type: 'text', text: t });

const app = acp
  .agent({ name: 'rich-agent' })
  .onRequest('initialize', () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true }, sessionCapabilities: { close: {}, list: {} } },
    agentInfo: { name: 'rich-agent', version: '0.0.1' },
    authMethods: [{ id: 'api-key', name: 'API key', description: 'Use ACME_API_KEY' }],
  }))
  .onRequest('authenticate', () => ({}))
  .onRequest('session/new', () => ({
    sessionId: `sess-${++n}`,
    modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] },
  }))
  .onRequest('session/set_mode', () => ({}))
  .onRequest('session/list', (ctx) => ({ sessions: [{ sessionId: 'sess-old', cwd: ctx.params.cwd ?? '/tmp' }] }))
  .onRequest('session/close', () => ({}))
  .onRequest('session/load', async (ctx) => {
    const sessionId = ctx.params.sessionId;
    await ctx.client.notify('session/update', { sessionId, update: { sessionUpdate: 'user_message_chunk', content: text('earlier question') } });
    await ctx.client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: text('earlier answer') } });
    return { modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }] } };
  })
  .onNotification('session/cancel', (ctx) => {
    turns.get(ctx.params.sessionId)?.abort();
  })
  .onRequest('session/prompt', async (ctx) => {
    const { sessionId, prompt } = ctx.params;
    const ac = new AbortController();
    turns.set(sessionId, ac);
    const say = (u) => ctx.client.notify('session/update', { sessionId, update: u });
    const words = prompt.map((b) => (b.type === 'text' ? b.text : '')).join(' ');
    try {
      await say({ sessionUpdate: 'agent_message_chunk', content: text('Working on it.') });
      if (words.includes('slow')) {
        await say({ sessionUpdate: 'tool_call', toolCallId: 'slow-1', title: 'Delete build output', kind: 'delete', status: 'pending' });
        const answer = await ctx.client.request('session/request_permission', {
          sessionId,
          toolCall: { toolCallId: 'slow-1', title: 'Delete build output', kind: 'delete', status: 'pending' },
          options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }],
        });
        if (answer.outcome.outcome === 'cancelled' || ac.signal.aborted) {
          await say({ sessionUpdate: 'tool_call_update', toolCallId: 'slow-1', status: 'failed' });
          return { stopReason: 'cancelled' };
        }
        return { stopReason: 'end_turn' };
      }
      await say({ sessionUpdate: 'plan', entries: [{ content: 'Read the file', priority: 'high', status: 'in_progress' }, { content: 'Run the tests', priority: 'medium', status: 'pending' }] });
      await say({ sessionUpdate: 'tool_call', toolCallId: 'read-1', title: 'Read README', kind: 'read', status: 'in_progress', locations: [{ path: '/tmp/project/README.md' }] });
      const file = await ctx.client.request('fs/read_text_file', { sessionId, path: '/tmp/project/README.md', line: 1, limit: 20 });
      await say({ sessionUpdate: 'tool_call_update', toolCallId: 'read-1', status: 'completed', content: [{ type: 'content', content: text(file.content) }] });
      await ctx.client.request('fs/write_text_file', { sessionId, path: '/tmp/project/NOTES.md', content: 'notes\n' });
      const term = await ctx.client.createTerminal({ sessionId, command: '/bin/echo', args: ['hi'], outputByteLimit: 1024 });
      await say({ sessionUpdate: 'tool_call', toolCallId: 'run-1', title: 'echo hi', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: term.id }] });
      await term.waitForExit();
      await term.currentOutput();
      await term.release();
      await say({ sessionUpdate: 'tool_call_update', toolCallId: 'run-1', status: 'completed' });
      const answer = await ctx.client.request('session/request_permission', {
        sessionId,
        toolCall: { toolCallId: 'edit-1', title: 'Edit config', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: '/tmp/project/config.json', oldText: '{}', newText: '{"a":1}' }] },
        options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }],
      });
      await say({ sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'yes' ? 'completed' : 'failed' });
      await say({ sessionUpdate: 'agent_message_chunk', content: text('Done.') });
      return { stopReason: 'end_turn' };
    } finally {
      turns.delete(sessionId);
    }
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
