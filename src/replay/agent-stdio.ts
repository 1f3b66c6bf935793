/**
 * The mock agent's IO edge: reads the live client's lines from a byte stream, feeds them to an
 * `AgentReplayer`, and writes its output in order, honouring delays (pacing, injected delays).
 * Used by `acp-inspect replay --as agent` on stdio and by the in-process fixtures API.
 */
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '../wire/line-splitter.js';
import type { Recording } from '../transcript/format.js';
import { AgentReplayer, type AgentReplayerOptions, type AgentReplaySummary, type Effect } from './agent-replayer.js';

export interface MockAgentIo {
  /** What the client writes (the agent's stdin). */
  input: Readable;
  /** Where the agent's frames go (the agent's stdout). */
  output: Writable;
  /** Diagnostics (the agent's stderr). */
  log: (text: string) => void;
}

export interface MockAgentRun {
  replayer: AgentReplayer;
  /** Resolves when the client closed the input (or the connection was killed) and all output was written. */
  done: Promise<AgentReplaySummary>;
}

/** Serves `recording` as the agent on the given streams. */
export function serveMockAgent(recording: Recording, io: MockAgentIo, opts: AgentReplayerOptions = {}): MockAgentRun {
  const replayer = new AgentReplayer(recording, opts);
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  let finish: (s: AgentReplaySummary) => void = () => {};
  const done = new Promise<AgentReplaySummary>((resolve) => { finish = resolve; });

  const write = (line: string): Promise<void> => new Promise((resolve) => {
    if (closed || io.output.destroyed || io.output.writableEnded) return resolve();
    io.output.write(`${line}\n`, () => resolve());
  });
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  const run = (effects: Effect[]): void => {
    for (const e of effects) {
      chain = chain.then(async () => {
        if (e.type === 'log') io.log(e.text);
        else if (e.type === 'send') {
          if (e.delayMs > 0) await sleep(e.delayMs);
          await write(e.line);
        } else if (e.type === 'close') {
          end();
        }
      }).catch((err: unknown) => io.log(`replay: output error: ${(err as Error).message}`));
    }
  };

  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    io.input.off('data', onData);
    const r = replayer.end();
    run(r.effects);
    chain = chain.then(() => {
      closed = true;
      if (!io.output.writableEnded) io.output.end();
      finish(r.summary);
    });
  };

  const splitter = new LineSplitter();
  const onData = (chunk: Buffer): void => {
    for (const line of splitter.push(chunk)) run(replayer.receive(line.toString('utf8')));
  };
  io.input.on('data', onData);
  io.input.once('end', () => {
    const last = splitter.end();
    if (last) run(replayer.receive(last.toString('utf8')));
    end();
  });
  io.input.once('error', () => end());
  run(replayer.start());
  return { replayer, done };
}
