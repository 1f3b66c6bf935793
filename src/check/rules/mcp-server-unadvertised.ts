import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { agentCaps, obj } from './util.js';

/** Reading: `native` is UNSTABLE, so using it unadvertised is a warning. */
export const mcpServerUnadvertised = defineRule({
  id: 'mcp-server-unadvertised',
  severity: 'error',
  spec: '2.8',
  title: 'MCP server kind the agent did not advertise',
  specText: 'McpServer stdio: every agent must support it; http: only when `mcpCapabilities.http` is true; sse: only when `mcpCapabilities.sse` is true; native: only when `mcpCapabilities.native` is true.',
  methods: [M.sessionNew, M.sessionLoad, M.sessionResume, M.sessionFork],
  kinds: ['request'],
  check(c) {
    const servers = c.params?.mcpServers;
    if (!Array.isArray(servers) || c.state.agent.capabilities === undefined) return;
    const mc = obj(agentCaps(c.state).mcpCapabilities) ?? {};
    for (let i = 0; i < servers.length && i < 1000; i++) {
      const t = obj(servers[i])?.type;
      if (t !== 'http' && t !== 'sse' && t !== 'native') continue;
      if (mc[t] === true) continue;
      c.report(`${c.method} mcpServers[${i}] is a ${t} server, but the agent did not advertise mcpCapabilities.${t} = true`, { severity: t === 'native' ? 'warning' : 'error' });
    }
  },
});
