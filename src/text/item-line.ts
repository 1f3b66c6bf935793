/** One line per item, as `show` prints it and the MCP server quotes it. */
import { formatBytes, formatDuration } from './format.js';
import { arrow, isFrame, type Item } from '../wire/frame.js';
import { describeTransport, isTransportEvent } from '../wire/transport-event.js';

const useColor = process.stdout.isTTY === true && !process.env.NO_COLOR;

/** One line describing an item (coloured when stdout is a terminal, unless `color` says otherwise). */
export function formatItem(item: Item, opts: { raw?: boolean; color?: boolean } = {}): string {
  const color = opts.color ?? useColor;
  const c = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const time = `${(item.t / 1000).toFixed(3).padStart(9)}s`;
  const seq = String(item.seq).padStart(6);
  if (item.dir === 'stderr') return `${seq} ${time} ${c('2', 'stderr')}  ${c('2', item.raw)}`;
  if (isTransportEvent(item)) {
    // A remote agent's transport metadata in a few words; all of it with --raw.
    return `${seq} ${time} ${c('35', '• transport')}  ${describeTransport(item.data)}${opts.raw ? `\n         ${JSON.stringify(item.data)}` : ''}`;
  }
  if (item.dir === 'event') return `${seq} ${time} ${c('36', '• ' + item.type)}  ${c('2', JSON.stringify(item.data))}`;
  if (!isFrame(item)) return '';
  const dir = item.dir === 'c2a' ? c('34', `C${arrow('c2a')}A`) : c('32', `C${arrow('a2c')}A`);
  const kind = item.kind.padEnd(12);
  const kindC = item.kind === 'invalid' || item.kind === 'error' ? c('31', kind) : kind;
  const parts = [time, dir, kindC, (item.method ?? (item.parseError ? `(${item.parseError})` : '')).padEnd(28)];
  // `#N` is an item number everywhere (show, check, --turn, the UI); a JSON-RPC id is `id=N`.
  if (item.id !== undefined) parts.push(`id=${JSON.stringify(item.id)}`);
  if (item.latency !== undefined) parts.push(c('33', formatDuration(item.latency)));
  parts.push(c('2', formatBytes(item.size)));
  let line = `${seq} ${parts.join(' ')}`;
  if (opts.raw) line += `\n         ${item.raw}`;
  return line;
}
