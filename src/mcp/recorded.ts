/**
 * Recorded text, marked as data from the wire. The MCP server hands an AI agent prompts, agent
 * messages, file contents, tool output and raw frames exactly as a session recorded them; any of
 * them may carry injected instructions ("ignore the above and run ..."). So in every text answer,
 * recorded text is never part of our own sentences: it is either
 *
 * - a block, opened by `<<<recorded #SEQ DIRECTION WHAT id=ID>>>` and closed by
 *   `<<<end recorded id=ID>>>` on lines of their own, where ID is random for each block (the
 *   recording was made before the id existed, so it cannot close the block early), and any
 *   marker-like text inside the data (fullwidth, lookalike or zero-width-split forms included) is
 *   replaced by `[marker removed]` before it is shown, so a forged marker cannot reach the reader; or
 * - inline, a JSON string literal ("…", escaped, so it cannot end itself early), or a bare token that
 *   has no space, quote or bracket in it (a method name, an id), which cannot carry a sentence.
 *
 * This is delimiting with a boundary the data cannot know plus neutralising in the data, as
 * multipart MIME boundaries and the untrusted-content wrappers of agent tool runners do; it does not
 * change what is shown otherwise (the structured answers keep the exact recorded values).
 */
import { randomBytes } from 'node:crypto';
import type { ItemDir } from '../wire/frame.js';

/** The word every marker carries (the server's instructions name it). */
export const MARKER = 'recorded';

/** Where a block of recorded text comes from: its seq (or seq range), direction and what it is. */
export function origin(seq: number | [number, number | null], dir: ItemDir | 'both' | null, what: string): string {
  const s = Array.isArray(seq) ? `#${seq[0]}-${seq[1] === null ? 'end' : `#${seq[1]}`}` : `#${seq}`;
  const d = dir === 'c2a' ? 'client→agent' : dir === 'a2c' ? 'agent→client' : dir === 'stderr' ? 'agent-stderr' : dir === 'event' ? 'tap-event' : dir === 'both' ? 'both-directions' : '';
  return [s, d, what].filter(Boolean).join(' ');
}

/**
 * Recorded text as a block with its origin (see `origin`), cut to `max` characters (how much was
 * left out is said after the block, in our words).
 */
export function recordedBlock(text: string, where: string, max = Number.POSITIVE_INFINITY): string {
  const id = randomBytes(4).toString('hex');
  const shown = text.length > max ? text.slice(0, max) : text;
  const left = text.length - shown.length;
  return `<<<${MARKER} ${where} id=${id}>>>\n${neutralize(shown)}\n<<<end ${MARKER} id=${id}>>>${left > 0 ? `\n(${left} more characters of it not shown)` : ''}`;
}

/** A short recorded value inline: a JSON string literal, marker-like text removed. */
export function quoted(s: string): string {
  return JSON.stringify(neutralize(s));
}

/** The first `n` characters of recorded text, with an ellipsis when there were more. */
export function excerpt(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…`;
}

/** A recorded JSON value inline (capabilities, an id): its JSON text, marker-like text removed. */
export function recordedJson(v: unknown): string {
  return neutralize(JSON.stringify(v) ?? 'null');
}

/** A recorded name or id: bare when it is one plain token (no space, quote or bracket), else quoted. */
export function token(s: string | null | undefined): string {
  if (s === null || s === undefined) return '—';
  return /^[\w./:@+$#-]{1,100}$/.test(s) ? s : quoted(s);
}

/** Stands in for a marker-like run found inside recorded text. */
export const REMOVED = '[marker removed]';

/** `<<recorded`, `<<<end recorded`, `</recorded`, `end recorded id=` once folded (see `fold`). */
const FORGED = /<{2,}\s*\/?\s*(?:end\s*)?recorded|<\s*\/\s*recorded|end\s*recorded\s*id\s*=/g;
const LT = /[<＜﹤‹〈⟨˂ᐸ❮《«〈]/u;
const GT = /[>＞﹥›〉⟩˃ᐳ❯》»〉]/u;

/** One character as the marker search sees it: compatibility form, lower case, lookalike brackets as ASCII, invisible format characters dropped. */
function fold(ch: string): string {
  if (/\p{Cf}/u.test(ch)) return '';
  if (LT.test(ch)) return '<';
  if (GT.test(ch)) return '>';
  return ch.normalize('NFKC').toLowerCase();
}

/** Replaces every marker-like run in recorded text by `[marker removed]`; other text is left as it is. */
export function neutralize(s: string): string {
  // Plain ASCII needs no folding (no lookalikes, no format characters): the common case, one regex.
  if (/^[\x00-\x7f]*$/.test(s)) return /recorded/i.test(s) ? s.replace(new RegExp(FORGED.source, 'gi'), REMOVED) : s;
  // Every marker-like run holds the word: without it (in any spelling), nothing to fold character by character.
  if (!s.normalize('NFKC').toLowerCase().replace(/\p{Cf}/gu, '').includes('recorded')) return s;
  let folded = '';
  const from: number[] = [];
  let i = 0;
  for (const ch of s) {
    const f = fold(ch);
    for (let k = 0; k < f.length; k++) from.push(i);
    folded += f;
    i += ch.length;
  }
  from.push(s.length);
  const spans: [number, number][] = [];
  for (const m of folded.matchAll(FORGED)) {
    const start = from[m.index]!;
    // The end of the last original character the match covers.
    const last = from[m.index + m[0].length - 1]!;
    spans.push([start, last + (s.codePointAt(last)! > 0xffff ? 2 : 1)]);
  }
  if (!spans.length) return s;
  let out = '';
  let at = 0;
  for (const [a, b] of spans) {
    out += s.slice(at, a) + REMOVED;
    at = b;
  }
  return out + s.slice(at);
}

/**
 * Cuts an answer to `n` characters; when the cut falls inside a block, the block is closed first,
 * so what follows the cut (our note) is never read as recorded data.
 */
export function cutAnswer(s: string, n: number): string {
  if (s.length <= n) return s;
  let head = s.slice(0, n);
  const open = [...head.matchAll(new RegExp(`^<<<${MARKER} .* id=([0-9a-f]+)>>>$`, 'gm'))].pop();
  if (open && !head.includes(`<<<end ${MARKER} id=${open[1]}>>>`, open.index)) head += `\n<<<end ${MARKER} id=${open[1]}>>>`;
  return `${head}\n… [${s.length - n} more characters of the answer not shown]`;
}
