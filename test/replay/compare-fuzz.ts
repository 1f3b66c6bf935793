/**
 * Seeded pairs of recordings for differential tests of comparing: recording b is recording a run
 * again (other session, tool call and terminal ids, another working directory, other JSON-RPC ids),
 * and a seeded share of its lines mutated the ways that make a text comparison fragile: escapes
 * (`\u`, `\/`, `\n` beside a path), unicode, control characters, key order, extra and missing fields,
 * duplicate keys, numbers spelled otherwise, whitespace, a volatile id in an array or an object, a
 * path in a key, lines that are not JSON, dropped and repeated lines.
 */
import { Store } from '../../src/store/store.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import { Correlator } from '../../src/wire/correlate.js';
import type { Frame } from '../../src/wire/frame.js';
import { seededRandom } from '../helpers.js';


export type Line = ['c2a' | 'a2c', string];

const CWD_A = '/home/dev/proj';
const CWD_B = '/tmp/ci/run-7/proj';

/** One scripted session of `turns` turns, as run `run` would send it. */
export function scenario(turns: number, run: 'a' | 'b'): Line[] {
  const cwd = run === 'a' ? CWD_A : CWD_B;
  const sid = `sess-${run}-${turns}`;
  const out: Line[] = [];
  let aid = run === 'a' ? 0 : 700;
  const j = (o: unknown) => JSON.stringify(o);
  out.push(['c2a', j({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })]);
  out.push(['a2c', j({ jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } })]);
  out.push(['c2a', j({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd, mcpServers: [] } })]);
  out.push(['a2c', j({ jsonrpc: '2.0', id: 2, result: { sessionId: sid } })]);
  for (let t = 0; t < turns; t++) {
    const upd = (update: unknown) => j({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update } });
    const file = `${cwd}/src/f${t}.ts`;
    const tc = `tc-${run}-${t}`;
    out.push(['c2a', j({ jsonrpc: '2.0', id: 10 + t, method: 'session/prompt', params: { sessionId: sid, prompt: [{ type: 'text', text: `fix ${file}` }] } })]);
    out.push(['a2c', upd({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `thinking about ${file}.` } })]);
    out.push(['a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `I edit ${file} now` } })]);
    out.push(['a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ' and test it.' } })]);
    out.push(['a2c', upd({ sessionUpdate: 'tool_call', toolCallId: tc, title: `Read ${file}`, kind: 'read', status: 'pending', locations: [{ path: file }] })]);
    out.push(['a2c', j({ jsonrpc: '2.0', id: ++aid, method: 'fs/read_text_file', params: { sessionId: sid, path: file } })]);
    out.push(['c2a', j({ jsonrpc: '2.0', id: aid, result: { content: `line 1\nline 2 in ${file}\n` } })]);
    out.push(['a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: tc, status: 'completed' })]);
    out.push(['a2c', j({ jsonrpc: '2.0', id: ++aid, method: 'session/request_permission', params: { sessionId: sid, toolCall: { toolCallId: tc }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'deny', name: 'Deny', kind: 'reject_once' }] } })]);
    out.push(['c2a', j({ jsonrpc: '2.0', id: aid, result: { outcome: { outcome: 'selected', optionId: 'allow' } } })]);
    out.push(['a2c', j({ jsonrpc: '2.0', id: ++aid, method: 'terminal/create', params: { sessionId: sid, command: 'npm', args: ['test'], cwd } })]);
    out.push(['c2a', j({ jsonrpc: '2.0', id: aid, result: { terminalId: `term-${run}-${t}` } })]);
    out.push(['a2c', upd({ sessionUpdate: 'plan', entries: [{ content: `step ${t}`, priority: 'high', status: 'pending' }] })]);
    out.push(['c2a', j({ jsonrpc: '2.0', id: 10 + t, result: { stopReason: 'end_turn' } })]);
  }
  return out;
}

/** Mutations of one line's text, each kept only if it still reads as something (JSON or not). */
const MUTATIONS: Array<(raw: string, r: () => number) => string> = [
  (s) => s.replace('"sessionId"', '"session\\u0049d"'),
  (s) => s.replace('"text":"', '"text":"\\u00e9t\\u00e9 '),
  (s) => s.replace(/\//, '\\/'),
  (s) => s.replace('"text":"', '"text":"\\n'),
  (s) => s.replace('"text":"', '"text":"caf\u00e9 \u{1F600} '),
  (s) => s.replace('"text":"', '"text":"\\t\\u0001'),
  (s) => s.replace(/^\{"jsonrpc":"2\.0",/, '{').replace(/\}$/, ',"jsonrpc":"2.0"}'),
  (s) => s.replace(/\}$/, ',"extra":1}'),
  (s) => s.replace(/,"status":"[a-z_]+"/, ''),
  (s) => s.replace(/"sessionId":"([^"]*)"/, '"sessionId":"$1","sessionId":"$1"'),
  (s) => s.replace(/"toolCallId":"([^"]*)"/, '"toolCallId":"$1","toolCallId":"other"'),
  (s) => s.replace(/"protocolVersion":1/, '"protocolVersion":1.0'),
  (s) => s.replace(/"priority":"high"/, '"priority":"high","n":-0'),
  (s) => s.replace(/":/g, '": '),
  (s) => ` ${s}`,
  (s) => s.replace(/"toolCallId":"([^"]*)"/, '"toolCallId":["$1"]'),
  (s) => s.replace(/"sessionId":"([^"]*)"/, '"sessionId":{"v":"$1"}'),
  (s) => s.replace(/\}$/, `,"${CWD_B}/k":1}`),
  (s) => s.replace(/\}$/, `,"${CWD_A}/k":1}`),
  (s) => s.replace('"text":"', `"text":"\\n${CWD_B}/x and `),
  (s) => s.replace('"id":', '"id":"s-').replace(/"id":"s-(\d+)/, '"id":"s-$1"'),
  (s) => s.slice(0, Math.max(1, s.length - 3)),
  (s) => s.replace('"update":{', '"update":{"sessionUpdate":"plan",'),
  (s) => s.replace(/"params":\{/, '"params":{"update":{"sessionUpdate":"x"},'),
  (s) => s.replace(/"cwd":"[^"]*"/, '"cwd":"relative/dir"'),
  (s) => s.replace(/"cwd":"([^"]*)"/, '"cwd":"$1/"'),
  (s) => s.replace(/"optionId":"allow"/, '"optionId":"deny"'),
  (s) => s.replace(/"sessionId":"[^"]*"/, '"sessionId":"sess-a-x"'),
  (s, r) => (r() < 0.5 ? s.replace(/"1"|1/, '2') : s.replace(/"text":"[^"]*"/, '"text":"changed"')),
  (s) => s.replace(/"method":"session\/update"/, '"method":"$/cancel_request"').replace(/"update":/, '"requestId":3,"u":'),
];

/** Lines of run b with a seeded share mutated, dropped, repeated or moved. */
export function mutate(lines: readonly Line[], seed: number, rate: number): Line[] {
  const r = seededRandom(seed);
  const out: Line[] = [];
  for (const [dir, raw] of lines) {
    const x = r();
    if (x < rate * 0.1) continue;
    if (x < rate) {
      const m = MUTATIONS[Math.floor(r() * MUTATIONS.length)]!;
      out.push([dir, m(raw, r)]);
    } else out.push([dir, raw]);
    if (r() < rate * 0.05) out.push([dir, raw]);
    if (out.length > 2 && r() < rate * 0.05) out.splice(out.length - 2, 2, out[out.length - 1]!, out[out.length - 2]!);
  }
  return out;
}

/** Stores `lines` as a recording, correlated as the recorder does; returns its id. */
export function storeLines(store: Store, name: string, lines: readonly Line[]): number {
  const id = store.createRecording({ name, status: 'complete', command: ['agent'] });
  const correlator = new Correlator();
  const frames: Frame[] = lines.map(([d, raw], i) => {
    const f = frameFromText(i + 1, i * 1.25, d, raw);
    correlator.observe(f);
    return f;
  });
  store.appendItems(id, frames);
  return id;
}
