#!/usr/bin/env node
// An npm-style wrapper script in front of the probe's test agent, as codex-acp's and copilot's
// loaders are: it starts the real agent as a child sharing its stdio (spawnSync) and dies on SIGTERM
// without passing it on, so signalling the wrapper alone leaves the agent running with stdout open.
// The agent it starts does not exit when its stdin closes (PROBE_AGENT_LINGER=1, as codex-acp), or
// ignores SIGTERM too (PROBE_AGENT_LINGER=term). Its arguments are passed on to the agent (a test puts
// a marker there to find the processes afterwards).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const agent = join(dirname(fileURLToPath(import.meta.url)), 'probe-agent.mjs');
const r = spawnSync(process.execPath, [agent, ...process.argv.slice(2)], { stdio: 'inherit', env: { PROBE_AGENT_LINGER: '1', ...process.env } });
process.exit(r.status ?? 1);
