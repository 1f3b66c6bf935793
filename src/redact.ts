/**
 * Redaction of credentials in recorded frames, keeping the shape: keys stay, values become
 * `<redacted>`, so replay and checking still work on a redacted recording.
 *
 * Redacted (spec 2.7, 4.3, part 5 rule 6):
 * - `value` of each entry of `env` and `headers` arrays (MCP servers in session/new, load, resume,
 *   fork; `terminal/create` env);
 * - every value of a `headers` or `env` object (`providers/set` headers, terminal auth methods' env);
 * - string values of keys that look like credentials (authorization, cookie, password, secret,
 *   token, api key, private key, credentials, ...);
 * - the password in a URL's user-info (`https://user:secret@host`) of `url`/`baseUrl`-like keys.
 *
 * The raw text is edited in place (each secret string literal replaced), so everything else in the
 * line keeps its exact bytes: key order, spacing, number spellings. Only when a secret cannot be
 * found in the text is the line re-serialized from the redacted JSON value.
 */
import type { Frame, Item } from './wire/frame.js';
import type { Recording } from './transcript/format.js';
import { isQuotedTextChunk, isTextChunkRaw } from './wire/chunk-frame.js';

export const REDACTED = '<redacted>';

/** Keys whose string values are credentials. Matches the end of the key, case-insensitively. */
const SECRET_KEY = /(^|[-_.]|[a-z])(authorization|cookie|password|passwd|passphrase|secret|token|api[-_]?key|apikey|private[-_]?key|credentials?|bearer|signature)$/i;
/** Keys that look like credentials but are not (counts, limits). */
const NOT_SECRET_KEY = /(tokens|token[-_]?(count|limit|usage|type))$/i;
const URL_KEY = /(^|[-_a-z])(url|uri|endpoint)$/i;
const URL_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/@:\s]*):([^/@\s]*)@/i;

function isSecretKey(k: string): boolean {
  return SECRET_KEY.test(k) && !NOT_SECRET_KEY.test(k);
}

/** A string value replaced by redaction: the original and what stands in for it. */
export type Replacement = [from: string, to: string];

/** Returns a redacted copy of a JSON value, whether anything changed, and the string replacements made. */
export function redactValue(v: unknown): { value: unknown; changed: boolean; secrets: Replacement[] } {
  const secrets: Replacement[] = [];
  let changed = false;
  const hide = (s: unknown): string => {
    changed = true;
    if (typeof s === 'string') secrets.push([s, REDACTED]);
    return REDACTED;
  };
  const walk = (x: unknown, parentKey: string | undefined): unknown => {
    if (Array.isArray(x)) {
      if (parentKey === 'env' || parentKey === 'headers') {
        return x.map((e) => {
          if (e && typeof e === 'object' && !Array.isArray(e) && 'value' in e) {
            const o = e as Record<string, unknown>;
            const out = walk(o, undefined) as Record<string, unknown>;
            if (o.value !== REDACTED) out.value = hide(o.value);
            return out;
          }
          return walk(e, undefined);
        });
      }
      return x.map((e) => walk(e, undefined));
    }
    if (x && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, val] of Object.entries(x as Record<string, unknown>)) {
        if ((k === 'headers' || k === 'env') && val && typeof val === 'object' && !Array.isArray(val)) {
          const o: Record<string, unknown> = {};
          for (const [hk, hv] of Object.entries(val as Record<string, unknown>)) o[hk] = hv === REDACTED ? REDACTED : hide(hv);
          out[k] = o;
        } else if (typeof val === 'string' && val !== REDACTED && isSecretKey(k)) {
          out[k] = hide(val);
        } else if (typeof val === 'string' && URL_KEY.test(k) && URL_USERINFO.test(val)) {
          const m = URL_USERINFO.exec(val)!;
          if (m[3] !== REDACTED) {
            out[k] = val.replace(URL_USERINFO, `$1$2:${REDACTED}@`);
            secrets.push([val, out[k] as string]);
            changed = true;
          } else {
            out[k] = val;
          }
        } else {
          out[k] = walk(val, k);
        }
      }
      return out;
    }
    return x;
  };
  const value = walk(v, undefined);
  return { value, changed, secrets };
}

/**
 * Replaces each secret string literal in `raw` in place. Returns null when one is not found verbatim
 * (then the caller re-serializes). A truncated line may end inside a secret: that tail is cut too.
 */
function redactRawInPlace(raw: string, secrets: Replacement[], truncated: boolean): string | null {
  let out = raw;
  for (const [from, to] of secrets) {
    const lit = JSON.stringify(from);
    if (out.includes(lit)) {
      out = out.split(lit).join(JSON.stringify(to));
      continue;
    }
    if (!truncated) return null;
    // The line was cut inside this literal: replace the tail from its opening quote on.
    for (let k = Math.min(lit.length - 1, out.length); k >= 2; k--) {
      if (out.endsWith(lit.slice(0, k))) {
        out = out.slice(0, out.length - k) + JSON.stringify(to).slice(0, -1);
        break;
      }
    }
  }
  return out;
}

/** Redacts one frame's raw text (only when it changes; otherwise the exact bytes are kept). */
export function redactFrame(f: Frame): Frame {
  if (f.json === undefined) return mayHoldSecret(f.raw) && !isTextChunkRaw(f.raw) ? blankUnparsed(f) : f;
  const { value, changed, secrets } = redactValue(f.json);
  if (!changed) return f;
  let raw = redactRawInPlace(f.raw, secrets, !!f.truncated);
  if (raw !== null && !f.truncated) {
    // The edit must leave valid JSON equal to the redacted value; otherwise fall back.
    try {
      if (JSON.stringify(JSON.parse(raw)) !== JSON.stringify(value)) raw = null;
    } catch {
      raw = null;
    }
  }
  if (raw === null) raw = f.truncated ? REDACTED : JSON.stringify(value);
  const out: Frame = { ...f, raw, json: value };
  // The original bytes (kept when they were not valid UTF-8) would still hold the secret, and so
  // would the raw text written as a JSON string (a RawJsonFrame's, copied by the spread).
  delete out.rawBase64;
  delete (out as { rawJson?: string }).rawJson;
  if (!f.truncated) out.size = Buffer.byteLength(raw);
  return out;
}

/**
 * A frame that may hold a secret (a key redaction looks at) but is no JSON to edit: a stored frame
 * cut by the size cap (its value, or the key, may be cut off), or a malformed line. Its secret cannot
 * be told from the rest, so its raw text becomes REDACTED whole, as redactFrame does with a cut frame
 * it cannot edit in place; the frame stays what it was (kind, cut, parse error), and `--no-redact`
 * gives the text back.
 */
function blankUnparsed(f: Frame): Frame {
  const out: Frame = { ...f, raw: REDACTED };
  delete out.rawBase64;
  delete (out as { rawJson?: unknown }).rawJson;
  if (!f.truncated) out.size = REDACTED.length;
  return out;
}

export function redactItem(item: Item): Item {
  return item.dir === 'c2a' || item.dir === 'a2c' ? redactFrame(item as Frame) : item;
}

export function redactRecording(rec: Recording): Recording {
  return { ...rec, items: rec.items.map(redactItem) };
}

/** Whether redaction looks at the value of key `k` (redactValue's tests of keys, all of them). */
function isRedactedKey(k: string): boolean {
  let v = keyVerdicts.get(k);
  if (v === undefined) {
    v = k === 'headers' || k === 'env' || isSecretKey(k) || URL_KEY.test(k);
    if (keyVerdicts.size < 4096) keyVerdicts.set(k, v);
  }
  return v;
}

/** isRedactedKey's answers: the same few keys are on every frame, and a lookup costs less than the tests. */
const keyVerdicts = new Map<string, boolean>();

/**
 * Whether redaction could change a line: it holds a key redaction looks at. Redaction only ever
 * looks at keys, and a key is a string followed by `:` (maybe after spaces), so every `:` is tried as
 * the end of one; a `:` inside a string only costs a look. Errs on the side of yes: a `\u` escape
 * anywhere (it could spell a key), and a key with a backslash in it or an escaped quote before it,
 * are yes. A line that says no is kept as it is, unparsed: most lines, and the reason this is not a
 * test of the whole text (a regular expression of the secret words took three times as long on a
 * kilobyte line, and said yes to every text that mentions a token). `quoted`: `text` is the line
 * written as a JSON string (its quotes, backslashes and control characters escaped once more, as
 * JSON.stringify writes it), read as the line it stands for.
 */
export function mayHoldSecret(text: string, quoted = false): boolean {
  // A quote of the line is `\"` in its quoted text, a backslash `\\`, a tab `\t`.
  const esc = quoted ? 1 : 0;
  if (text.includes(quoted ? '\\\\u' : '\\u')) return true;
  for (let colon = text.indexOf(':'); colon >= 0; colon = text.indexOf(':', colon + 1)) {
    let q = colon - 1;
    for (;;) { // back over JSON whitespace
      const c = text.charCodeAt(q);
      if (c === 0x20 || (!quoted && (c === 0x09 || c === 0x0a || c === 0x0d))) q--;
      else if (quoted && (c === 0x74 || c === 0x6e || c === 0x72) && text.charCodeAt(q - 1) === 0x5c) q -= 2;
      else break;
    }
    if (text.charCodeAt(q) !== 0x22 || (quoted && text.charCodeAt(q - 1) !== 0x5c)) continue; // not the end of a key
    const close = q - esc;
    const open = text.lastIndexOf('"', close - 1);
    if (open < 0) continue;
    if (quoted && text.charCodeAt(open - 1) !== 0x5c) return true; // from the line's start: not a key, but cheap to parse
    if (text.charCodeAt(open - esc - 1) === 0x5c) return true; // an escaped quote: the key starts further back
    const key = text.slice(open + 1, close);
    if (key.includes('\\') || isRedactedKey(key)) return true;
  }
  return false;
}

/**
 * UTF-8 bytes as a string of a character a byte (Latin-1), for mayHoldSecret and isQuotedTextChunk
 * to read without decoding them: they answer of it what they answer of the decoded text. Both look
 * only for ASCII (quotes, backslashes, colons, spaces, key names matched by patterns of ASCII
 * letters and punctuation, without the `u` flag, so `/i` maps no character past ASCII onto one in
 * it), and past ASCII UTF-8 has only bytes 0x80–0xFF, each such a character here, which their
 * patterns match wherever they match any character past ASCII (`[^"\\\x00-\x1f]`) and nowhere
 * else. A key they pull out is spelled otherwise than decoded, and is judged the same.
 */
function latin1Of(bytes: Buffer): string {
  return bytes.toString('latin1');
}

/**
 * Redacts items as they are read (a recording streamed, never held). Frames may come without their
 * JSON parsed (the store's pagedItems with `json: false`): those that may hold a secret are parsed here.
 */
export function* redactItems(items: Iterable<Item>): Generator<Item> {
  for (const it of items) {
    if (it.dir !== 'c2a' && it.dir !== 'a2c') {
      yield it;
      continue;
    }
    const f = it as Frame;
    // A frame read as a RawJsonFrame is tested on its line as a JSON string: its raw text is not decoded.
    const rawJson = (f as { rawJson?: string | Buffer }).rawJson;
    const quoted = rawJson === undefined || typeof rawJson === 'string' ? rawJson : latin1Of(rawJson);
    if (f.json === undefined && (quoted !== undefined ? mayHoldSecret(quoted, true) : mayHoldSecret(f.raw))) {
      // The line from its quoted text when it has one (a RawJsonFrame's raw is a getter, which a copy made by spreading lacks).
      // A text chunk frame in the SDK's form holds no key redaction looks at, whatever its text
      // spells (a `\u` escape in it made mayHoldSecret say yes): kept as it is, unparsed.
      if (quoted !== undefined ? isQuotedTextChunk(quoted) : isTextChunkRaw(f.raw)) {
        yield f;
        continue;
      }
      const raw = rawJson !== undefined ? (JSON.parse(typeof rawJson === 'string' ? rawJson : rawJson.toString('utf8')) as string) : f.raw;
      let json: unknown;
      try { json = JSON.parse(raw); } catch { /* not JSON: see blankUnparsed */ }
      yield json === undefined ? blankUnparsed(f) : redactFrame({ ...f, raw, json });
    } else {
      yield f.json === undefined ? f : redactFrame(f);
    }
  }
}
