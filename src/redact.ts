/**
 * Redaction of credentials in recorded frames, keeping the shape: keys stay, values become
 * `<redacted>`, so replay and checking still work on a redacted recording.
 *
 * Redacted: `value` of each entry of `env` and `headers` arrays (MCP servers, terminal/create),
 * every value of a `headers` or `env` object (providers/set), and string values of keys that look
 * like credentials (authorization, token, apiKey, password, secret, cookie).
 */
import type { Frame, Item } from './wire/frame.js';
import type { Recording } from './transcript/format.js';

export const REDACTED = '<redacted>';
const SECRET_KEY = /^(authorization|proxy-authorization|x-api-key|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|token|secret|client[-_]?secret|password|passwd|cookie|set-cookie|bearer|credentials?)$/i;

/** Returns a redacted copy of a JSON value and whether anything changed. */
export function redactValue(v: unknown): { value: unknown; changed: boolean } {
  let changed = false;
  const walk = (x: unknown, parentKey: string | undefined): unknown => {
    if (Array.isArray(x)) {
      if (parentKey === 'env' || parentKey === 'headers') {
        return x.map((e) => {
          if (e && typeof e === 'object' && !Array.isArray(e) && 'value' in e) {
            const o = e as Record<string, unknown>;
            if (o.value !== REDACTED) changed = true;
            return { ...(walk(o, undefined) as Record<string, unknown>), value: REDACTED };
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
          for (const hk of Object.keys(val as Record<string, unknown>)) o[hk] = REDACTED;
          if (Object.keys(o).length) changed = true;
          out[k] = o;
        } else if (SECRET_KEY.test(k) && typeof val === 'string' && val !== REDACTED) {
          changed = true;
          out[k] = REDACTED;
        } else {
          out[k] = walk(val, k);
        }
      }
      return out;
    }
    return x;
  };
  const value = walk(v, undefined);
  return { value, changed };
}

/** Redacts one frame's raw text (only when it changes; otherwise the exact bytes are kept). */
export function redactFrame(f: Frame): Frame {
  if (f.json === undefined || f.kind === 'invalid') return f;
  const { value, changed } = redactValue(f.json);
  if (!changed) return f;
  const raw = JSON.stringify(value);
  return { ...f, raw, json: value, size: Buffer.byteLength(raw) };
}

export function redactItem(item: Item): Item {
  return item.dir === 'c2a' || item.dir === 'a2c' ? redactFrame(item as Frame) : item;
}

export function redactRecording(rec: Recording): Recording {
  return { header: rec.header, items: rec.items.map(redactItem) };
}
