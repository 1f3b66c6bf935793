/**
 * Reads the two raw logs a user takes with `tee` around an agent (the agent's stdin and its stdout,
 * each one JSON-RPC message per line, as on the wire) as one recording. Each line is a frame with its
 * exact text; the order within each log is the wire's. Neither log says when a line passed, so the
 * order between the two cannot be known: the frames are merged in an order that ACP allows (a
 * response after its request, a cancel before the answers it causes; a side that sent a request
 * waits for its answer while the other side goes on, as peers mostly do), no time is invented (every item is at 0 ms), and the recording says
 * so: the header's `source` has `order: "unknown"` and `times: "unknown"`, and its first item is an
 * event of type `capture-note` with the same words. Findings that depend on the order between the
 * two sides (a cancel before or after the turn's end) are then about this merge, not the wire.
 * Pure: no Node built-in.
 */
import { TranscriptError, TRANSCRIPT_VERSION, type TranscriptHeader } from './format.js';
import { METHODS, expectedDirection } from '../spec/methods.js';

export const TEE_PAIR = 'tee-pair';

export const TEE_NOTE = 'two raw logs (the agent\'s stdin and stdout) merged: the order between the two sides is not known, so frames were put in an order ACP allows (each response after its request); the times were not kept (every item is at 0 ms)';

type Dir = 'c2a' | 'a2c';

interface Line {
  raw: string;
  /** A request's id (as JSON text), when the line is a request. */
  request?: string;
  /** The id (as JSON text) the line answers, when it is a response. */
  answers?: string;
  /** A cancel notification (`session/cancel`, `$/cancel_request`): it comes before the answers it causes. */
  cancel?: boolean;
}

const CANCELS = new Set(['session/cancel', '$/cancel_request']);

/** The id of a parsed JSON-RPC message as a key, or undefined. */
function idKey(o: Record<string, unknown>): string | undefined {
  return 'id' in o ? JSON.stringify(o.id) : undefined;
}

function readLog(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '' || raw === '\r') continue;
    const line: Line = { raw };
    try {
      const o = JSON.parse(raw) as unknown;
      if (o && typeof o === 'object' && !Array.isArray(o)) {
        const m = o as Record<string, unknown>;
        if (typeof m.method === 'string' && 'id' in m) line.request = idKey(m);
        else if (typeof m.method === 'string' && CANCELS.has(m.method)) line.cancel = true;
        else if (!('method' in m) && ('result' in m || 'error' in m)) line.answers = idKey(m);
      }
    } catch { /* not JSON: a frame all the same, recorded as malformed */ }
    out.push(line);
  }
  return out;
}

function requestIds(lines: readonly Line[]): Set<string> {
  const ids = new Set<string>();
  for (const l of lines) if (l.request !== undefined) ids.add(l.request);
  return ids;
}

/**
 * True when the first line of a file (`head`) is a bare JSON-RPC message: a raw log of one side of
 * the wire, not a transcript line.
 */
export function looksLikeRawJsonRpc(head: string): boolean {
  const first = head.replace(/^\uFEFF/, '').split('\n', 1)[0]!.trim();
  if (!first.startsWith('{')) return false;
  try {
    const o = JSON.parse(first) as Record<string, unknown>;
    return o !== null && typeof o === 'object' && o.jsonrpc === '2.0' && !('dir' in o);
  } catch {
    return /^\{\s*"jsonrpc"\s*:\s*"2\.0"/.test(first); // a line longer than the head
  }
}

/** How many lines of a log are requests or notifications the method table says go the other way. */
function wrongWay(text: string, dir: Dir): { wrong: number; known: number } {
  let wrong = 0, known = 0;
  for (const raw of text.split('\n')) {
    const m = /"method"\s*:\s*"([^"]+)"/.exec(raw);
    const spec = m ? METHODS.get(m[1]!) : undefined;
    const want = spec ? expectedDirection(spec) : undefined;
    if (want === undefined) continue;
    known++;
    if (want !== dir) wrong++;
  }
  return { wrong, known };
}

/**
 * The transcript lines of the agent's stdin log (`c2aText`) and stdout log (`a2cText`) merged.
 * Throws TranscriptError when the method names say the two were given the other way round.
 */
export function teePairToLines(c2aText: string, a2cText: string, names: { c2a: string; a2c: string } = { c2a: 'the stdin log', a2c: 'the stdout log' }): string[] {
  const inWay = wrongWay(c2aText, 'c2a');
  const outWay = wrongWay(a2cText, 'a2c');
  if (inWay.known + outWay.known > 0 && inWay.wrong + outWay.wrong > (inWay.known + outWay.known) / 2) {
    throw new TranscriptError(`${names.c2a} holds the agent's messages and ${names.a2c} the client's (by their methods): give the agent's stdin log first, as STDIN+STDOUT`);
  }
  const sides: Record<Dir, Line[]> = { c2a: readLog(c2aText), a2c: readLog(a2cText) };
  const at: Record<Dir, number> = { c2a: 0, a2c: 0 };
  const sent: Record<Dir, Set<string>> = { c2a: new Set(), a2c: new Set() };
  const other = (d: Dir): Dir => (d === 'c2a' ? 'a2c' : 'c2a');
  /** Requests whose answer the side that sent them waits for, innermost last. */
  const waits: Array<{ dir: Dir; id: string }> = [];
  const asked: Record<Dir, Set<string>> = { c2a: requestIds(sides.c2a), a2c: requestIds(sides.a2c) };
  /**
   * The side's next line can go now: not an answer to a request the other side has yet to send, nor
   * an answer while the other side's next line is a cancel (a cancel comes before what it causes).
   */
  const ready = (d: Dir): boolean => {
    const l = sides[d][at[d]];
    if (l === undefined || l.answers === undefined) return l !== undefined;
    if (sides[other(d)][at[other(d)]]?.cancel) return false;
    return sent[other(d)].has(l.answers) || !asked[other(d)].has(l.answers);
  };
  const header: TranscriptHeader = {
    acpInspect: 'recording', version: TRANSCRIPT_VERSION,
    source: { format: TEE_PAIR, order: 'unknown', times: 'unknown' },
  };
  const out = [JSON.stringify(header), JSON.stringify({ t: 0, dir: 'event', type: 'capture-note', data: { format: TEE_PAIR, order: 'unknown', message: TEE_NOTE } })];
  let cur: Dir = 'c2a';
  const total = sides.c2a.length + sides.a2c.length;
  for (let n = 0; n < total; n++) {
    if (!ready(cur) && (ready(other(cur)) || at[cur] >= sides[cur].length)) cur = other(cur);
    const l = sides[cur][at[cur]++]!;
    out.push(JSON.stringify({ t: 0, dir: cur, raw: l.raw }));
    if (l.request !== undefined) {
      sent[cur].add(l.request);
      waits.push({ dir: cur, id: l.request });
      cur = other(cur); // the sender waits for its answer
    } else if (l.answers !== undefined) {
      const w = waits.findIndex((x) => x.dir === other(cur) && x.id === l.answers);
      if (w >= 0) {
        waits.splice(w, 1);
        cur = other(cur); // the answer is back with the side that waited
      }
    } else if (waits.some((x) => x.dir === cur)) {
      cur = other(cur); // a notification from a side that waits (a cancel): it goes on waiting
    }
  }
  return out;
}
