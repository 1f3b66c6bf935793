#!/usr/bin/env node
// A changed version of the SDK example agent, written on the 2.4.0 SDK API, for regression tests of
// `replay --as client`: new random tool call ids and permission option ids (volatile: must not count
// as divergences), no pauses, a reworded second message chunk and no update for the first tool call
// (real divergences the replay must report).
import * as acp from '@agentclientprotocol/sdk';
import { Readable, Writable } from 'node:stream';

const rand = () => Math.random().toString(16).slice(2, 10);
const sessions = new Set();

async function prompt(params, client) {
  const sessionId = params.sessionId;
  const say = (text) => client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
  const t1 = `tc-${rand()}`;
  const t2 = `tc-${rand()}`;
  await say("I'll help you with that. Let me start by reading some files to understand the current situation.");
  await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: t1, title: 'Reading project files', kind: 'read', status: 'pending', locations: [{ path: '/project/README.md' }], rawInput: { path: '/project/README.md' } } });
  await say(' Now I understand the project layout. I will change one setting.');
  await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: t2, title: 'Modifying critical configuration file', kind: 'edit', status: 'pending', locations: [{ path: '/project/config.json' }], rawInput: { path: '/project/config.json', content: '{"database": {"host": "new-host"}}' } } });
  const allow = `allow-${rand()}`;
  const answer = await client.request('session/request_permission', {
    sessionId,
    toolCall: { toolCallId: t2, title: 'Modifying critical configuration file', kind: 'edit', status: 'pending', locations: [{ path: '/home/user/project/config.json' }], rawInput: { path: '/home/user/project/config.json', content: '{"database": {"host": "new-host"}}' } },
    options: [{ kind: 'allow_once', name: 'Allow this change', optionId: allow }, { kind: 'reject_once', name: 'Skip this change', optionId: `reject-${rand()}` }],
  });
  if (answer.outcome.outcome === 'selected' && answer.outcome.optionId === allow) {
    await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: t2, status: 'completed', rawOutput: { success: true, message: 'Configuration updated' } } });
    await say(" Perfect! I've successfully updated the configuration. The changes have been applied.");
  } else {
    await say(` I did not get permission (${JSON.stringify(answer.outcome)}).`);
  }
  return { stopReason: 'end_turn' };
}

acp
  .agent({ name: 'changed-agent' })
  .onRequest('initialize', () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: false } }))
  .onRequest('session/new', () => { const sessionId = `s-${rand()}${rand()}`; sessions.add(sessionId); return { sessionId }; })
  .onRequest('session/prompt', (ctx) => prompt(ctx.params, ctx.client))
  .onNotification('session/cancel', () => {})
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
