/**
 * Whether a command colours what it writes to `stream`: only on a terminal, never with `--no-color`
 * (every command takes it: see program.ts) or with NO_COLOR set (https://no-color.org).
 */
export function colorFor(stream: { isTTY?: boolean }, opts: { color?: boolean } = {}): boolean {
  return opts.color !== false && stream.isTTY === true && !process.env.NO_COLOR;
}
