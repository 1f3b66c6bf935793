/**
 * Steps the checker's protocol model one item at a time, so the server can keep a cursor instead of
 * refolding from the start for every row or click. Mirrors the loop of `stateAt` in check/index.ts
 * (the model only, no rules: much faster than checking); test/server/model-step.test.ts holds the
 * two equal at every item, so a change there shows up as a failing test here.
 */
import { initialState, applyFrame, obj, pendingKey, type ModelState } from '../check/model.js';
import { isFrame, reverse, type Item } from '../wire/frame.js';

export { initialState };
export type { ModelState };

export function stepModel(s: ModelState, item: Item): void {
  s.items++;
  s.lastSeq = item.seq;
  if (!isFrame(item)) {
    if (item.dir === 'event' && (item.type === 'stdin-closed' || item.type === 'exit' || item.type === 'stdout-closed' || item.type === 'signal')) s.closedSeq ??= item.seq;
    return;
  }
  const msg = obj(item.json);
  let req;
  let key: string | undefined;
  if ((item.kind === 'result' || item.kind === 'error') && msg) {
    const id = msg.id;
    if (typeof id === 'string' || typeof id === 'number' || id === null) {
      key = pendingKey(reverse(item.dir), id);
      req = s.pending[key];
    }
  }
  try {
    applyFrame(s, { frame: item, msg, method: item.kind === 'request' || item.kind === 'notification' ? item.method : req?.method, params: obj(msg?.params), req, key });
  } catch {
    /* the model never throws on traffic */
  }
}
