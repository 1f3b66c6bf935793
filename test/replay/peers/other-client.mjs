#!/usr/bin/env node
// A second, different ACP client written on the 2.4.0 SDK API: other capabilities and clientInfo,
// its own working directory, another prompt text; it picks the first "allow" option by itself.
// usage: node other-client.mjs -- <agent command> [args...]
// Prints one JSON line on stdout: {stopReason, updates, permission, sessionId}.
import * as acp from '@agentclientprotocol/sdk';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';

const cmd = process.argv.slice(process.argv.indexOf('--') + 1);
const agent = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
let permission = null;
const kinds = [];
try {
  const result = await acp
    .client({ name: 'other-client' })
    .onRequest('session/request_permission', (ctx) => {
      const opt = ctx.params.options.find((o) => o.kind.startsWith('allow')) ?? ctx.params.options[0];
      permission = opt.optionId;
      return { outcome: { outcome: 'selected', optionId: opt.optionId } };
    })
    .onRequest('fs/read_text_file', () => ({ content: '' }))
    .connectWith(stream, async (ctx) => {
      await ctx.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true },
        clientInfo: { name: 'other-client', version: '0.0.1' },
      });
      return ctx.buildSession(process.cwd()).withSession(async (session) => {
        session.prompt('Please update the database host in config.json');
        for (;;) {
          const m = await session.nextUpdate();
          if (m.kind === 'stop') return { ...m.response, sessionId: session.sessionId };
          kinds.push(m.update.sessionUpdate);
        }
      });
    });
  process.stdout.write(`${JSON.stringify({ stopReason: result.stopReason, updates: kinds, permission, sessionId: result.sessionId })}\n`);
  agent.stdin.end();
  agent.kill();
  process.exit(0);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: String(e?.message ?? e) })}\n`);
  agent.kill();
  process.exit(1);
}
