/** What a peer is called where a name is shown: its clientInfo/agentInfo, else the command that started it. */
import { describe, expect, it } from 'vitest';
import { commandLabel, peerLabel, targetLabel } from '../../src/view/names.js';

const rec = (over: Partial<Parameters<typeof peerLabel>[0]> = {}) => ({
  name: 'x', command: ['/usr/bin/node', '/home/dev/agent/dist/index.js', '--acp'], agent: { name: null, version: null }, client: { name: null, version: null }, ...over,
});

describe('peer names', () => {
  it('cuts each path of a command to its last part, and keeps flags, scoped packages and a shell script whole', () => {
    expect(commandLabel(['/usr/bin/node', '/x/y/agent.js', '--dir=/tmp/a'])).toBe('node agent.js --dir=/tmp/a');
    expect(commandLabel(['sh', '-c', "echo hi; exec node '/x/agent.js'"])).toBe("sh -c echo hi; exec node '/x/agent.js'");
    expect(commandLabel(['npx', '@zed-industries/claude-code-acp'])).toBe('npx @zed-industries/claude-code-acp');
    expect(commandLabel(['C:\\tools\\agent.exe'])).toBe('agent.exe');
    expect(commandLabel([])).toBeNull();
    expect(commandLabel(null)).toBeNull();
  });

  it('names the side the command started by it when that side gave no name, and the other side not at all', () => {
    expect(peerLabel(rec(), 'agent')).toBe('node index.js --acp');
    expect(peerLabel(rec(), 'client')).toBeNull();
    expect(peerLabel(rec({ agent: { name: 'my-agent', version: '1.2' } }), 'agent')).toBe('my-agent 1.2');
    expect(peerLabel(rec({ client: { name: 'zed', version: null } }), 'client')).toBe('zed');
    // A client probe started the client: the command is the client's.
    expect(peerLabel(rec({ name: 'probe client #3: fs-read' }), 'client')).toBe('node index.js --acp');
    expect(peerLabel(rec({ name: 'probe client #3: fs-read' }), 'agent')).toBeNull();
    expect(peerLabel(rec({ command: null }), 'agent')).toBeNull();
  });

  it('titles a probe\'s target by its name, else its command, else says it gave none', () => {
    expect(targetLabel({ name: 'a', version: '1', command: ['x'] })).toBe('a 1');
    expect(targetLabel({ name: null, version: null, command: ['/bin/agent', '--acp'] })).toBe('agent --acp');
    expect(targetLabel({ name: null, version: null, command: null })).toBe('(no name given)');
  });
});
