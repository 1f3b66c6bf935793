/**
 * The client probe's transport: the shared ProbeConnection (the agent end) wired to a byte stream in
 * (what the client writes, the probe's stdin) and one out (the probe's stdout). Lines are split as
 * the tap splits them; the end of the input is the client hanging up (or dying).
 */
import type { Readable, Writable } from 'node:stream';
import { LineSplitter, decodeUtf8 } from '../../wire/line-splitter.js';
import type { Frame } from '../../wire/frame.js';
import { ProbeConnection } from '../connection.js';

export interface StdioConnection {
  conn: ProbeConnection;
  /** Resolves when the client closed its end (or the streams failed). */
  closed: Promise<void>;
  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void>;
}

/** Wires a ProbeConnection (side 'agent') to the streams; `onFrame` sees every frame the client sends, after the connection has. */
export function connectStdio(input: Readable, output: Writable, timeoutMs: number, onFrame: (f: Frame) => void): StdioConnection {
  const conn = new ProbeConnection({
    side: 'agent', timeoutMs,
    write: (line) => { if (!output.destroyed && !output.writableEnded) output.write(`${line}\n`); },
  });
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => { markClosed = resolve; });
  const splitter = new LineSplitter();
  const take = (line: Buffer): void => onFrame(conn.receive(decodeUtf8(line).text));
  let ended = false;
  const end = (reason: string) => (): void => {
    if (ended) return;
    ended = true;
    const last = splitter.end();
    if (last) take(last);
    conn.close(reason);
    markClosed();
  };
  input.on('data', (chunk: Buffer) => { for (const line of splitter.push(chunk)) take(line); });
  input.once('end', end('the client closed the connection'));
  input.once('close', end('the client closed the connection'));
  input.once('error', end('the connection failed'));
  output.on('error', end('the client stopped reading'));
  return {
    conn,
    closed,
    flush: () => new Promise((resolve) => {
      if (output.destroyed || output.writableEnded) return resolve();
      output.write('', () => resolve());
    }),
  };
}
