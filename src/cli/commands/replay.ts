import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import { DB_OPTION } from '../options.js';
import type { ReplayCliOptions } from '../replay-run.js';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('Replay a recording as the agent (to test a client) or as the client (to regression-test an agent)')
    .argument('<recording>', 'recording id, "latest", or a transcript file (.jsonl)')
    .argument('[agent...]', 'with --as client: the agent command, after --')
    .requiredOption('--as <side>', 'which side to play: "agent" (serve on stdio) or "client" (drive the agent command given after --)')
    .option(...DB_OPTION)
    .option('--speed <factor>', 'agent pacing: 0 = instant (default), 1 = as recorded, N = N times faster', '0')
    .option('--strict', 'a request whose params differ from the recording is unmatched (agent: gets an error; exit 1 at the end)')
    .option('--cwd <dir>', 'client: run the agent in DIR; the recorded cwd and paths under it are mapped to DIR')
    .option('--ignore <path>', 'a field to ignore when comparing, e.g. params.update.content.text or result._meta.*.time (repeatable; * = one segment, ** = any)', collect)
    .option('--merge-chunks', 'client: compare streamed message chunks as whole messages (a model that splits its answer differently is not a divergence)')
    .option('--record', 'client: store this replay run as a new recording in the database')
    .option('--name <label>', 'client: label of the recording made by --record')
    .option('--timeout <ms>', 'client: how long to wait for an expected agent frame before moving on', '10000')
    .option('--delay <method=ms>', 'fault: wait MS before sending frames of METHOD (repeatable; METHOD may be session/update:KIND)', collect)
    .option('--drop <method>', 'fault: never send frames of METHOD (responses count by the method they answer; repeatable)', collect)
    .option('--duplicate <method>', 'fault: send frames of METHOD twice (repeatable)', collect)
    .option('--error-for <method>', "fault: answer the peer's METHOD requests with a JSON-RPC error (repeatable)", collect)
    .option('--inject-malformed <n>', 'fault: after N frames sent, send a line that is not JSON')
    .option('--kill-after <n>', 'fault: close the connection after N frames sent')
    .option('--no-color', 'no colour in diffs (default: colour only on a TTY)')
    .option('--listen <host:port>', 'agent: serve the recording as a remote agent (Streamable HTTP and WebSocket at http://HOST:PORT/acp, each connection replaying it from the start) instead of on stdio; prints the URL')
    .addHelpText('after', `
Examples:
  acp-inspect replay --as agent latest                 # an editor spawns this instead of the agent
  acp-inspect replay --as agent session.jsonl --speed 1
  acp-inspect replay --as agent latest --listen 127.0.0.1:8080   # a mock remote agent at http://127.0.0.1:8080/acp
  acp-inspect replay --as client 12 -- node my-agent.js # exit 0 equivalent, 1 diverged, 2 could not run
  acp-inspect replay --as client s.jsonl --cwd /tmp/w --ignore params.update.content.text --record -- my-agent

Matching: a live request matches the next unused recorded request with the same method (and, for
session/update, the same update kind) in the same session; order may differ. JSON-RPC ids, sessionId,
toolCallId, terminalId, elicitationId, optionId, messageId and the cwd (with the paths under it) are
mapped between the recording and the live run. Unmatched requests get a JSON-RPC error saying why; the
nearest recorded frame and a diff go to stderr.`)
    .action(async (ref: string, agent: string[], opts: ReplayCliOptions) => {
      if (opts.as !== 'agent' && opts.as !== 'client') {
        throw new CliError(`--as must be "agent" or "client", got "${opts.as}"`, 2);
      }
      const { runReplayCli } = await import('../replay-run.js');
      await runReplayCli(ref, agent, opts);
    });
}
