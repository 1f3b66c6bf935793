/** Test input in the shape of Zed's copied ACP log (see zedCopy). */
import type { Frame } from '../../src/wire/frame.js';

/**
 * What Zed's "Copy All Messages" (dev: open acp logs) puts on the clipboard for these frames: its
 * serialize_observed_messages, reproduced — serde_json's pretty printer (two spaces, keys in
 * alphabetical order), a response carrying its request's method, an error response's error as params.
 */
export function zedCopy(frames: readonly Frame[]): string {
  const methods = new Map<string, string>();
  return JSON.stringify(frames.map((f) => {
    const j = f.json as { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown };
    const _direction = f.dir === 'c2a' ? 'outgoing' : 'incoming';
    if (j.method !== undefined && 'id' in j) {
      methods.set(`${f.dir}:${JSON.stringify(j.id)}`, j.method);
      return { _direction, _type: 'request', id: j.id, method: j.method, params: j.params ?? null };
    }
    if (j.method !== undefined) return { _direction, _type: 'notification', id: null, method: j.method, params: j.params ?? null };
    const method = methods.get(`${f.dir === 'c2a' ? 'a2c' : 'c2a'}:${JSON.stringify(j.id)}`) ?? '[unrecognized response]';
    return { _direction, _type: 'response', id: j.id, method, params: 'error' in j ? j.error : j.result ?? null };
  }), null, 2);
}
