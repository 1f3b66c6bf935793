// The @thinkwell/conductor 0.5.7 (an ACP proxy-chain conductor with its own JSON-RPC code, not the SDK) as a
// stdio ACP agent in front of an agent command. Install @thinkwell/conductor beside it. usage: conductor-stdio.mjs agent cmd...
import { createInterface } from 'node:readline';
import { Conductor, fromCommands } from '@thinkwell/conductor';
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const conn = {
  send(m) { process.stdout.write(JSON.stringify(m) + '\n'); },
  messages: { async *[Symbol.asyncIterator]() { for await (const line of rl) if (line.trim()) yield JSON.parse(line); } },
  async close() { rl.close(); },
};
const conductor = new Conductor({ name: 'conductor', instantiator: fromCommands([process.argv.slice(2).join(' ')]), mcpBridgeMode: 'disabled' });
await conductor.connect({ connect: async () => conn });
await conductor.shutdown?.();
process.exit(0);
