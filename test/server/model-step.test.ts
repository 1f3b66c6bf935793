import { describe, expect, it } from 'vitest';
import { stateAt } from '../../src/check/index.js';
import { initialState, stepModel } from '../../src/server/model-step.js';
import { ItemBuilder, handshake, promptTurn } from './fixture.js';

describe('the server\'s model cursor', () => {
  it('equals the checker\'s stateAt after every item', () => {
    const b = new ItemBuilder();
    handshake(b);
    promptTurn(b, 2, 'one');
    b.frame('c2a', { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess-1' } });
    promptTurn(b, 3, 'two');
    b.frame('a2c', 'not json');
    b.items.push({ seq: ++b.seq, t: b.t, dir: 'event', type: 'exit', data: { code: 0 } });
    const items = b.take();
    const s = initialState();
    for (const it of items) {
      stepModel(s, it);
      expect(JSON.parse(JSON.stringify(s)), `after #${it.seq}`).toEqual(JSON.parse(JSON.stringify(stateAt(items, it.seq))));
    }
  });
});
