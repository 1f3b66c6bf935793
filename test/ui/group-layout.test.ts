/** The grouped timeline's layout as a pure function: list indices, turns, headers, cards and keyboard steps. */
import { describe, expect, it } from 'vitest';
import { GroupLayout, type GroupTurn } from '../../ui/src/group-layout.js';

const turn = (seq: number, from: number, to: number, sessionId = 's1'): GroupTurn =>
  ({ seq, from, to, sessionId, endSeq: seq + (to - from) - 1, t: seq, durationMs: 1, stopReason: 'end_turn', prompt: `turn ${seq}` });

// 4 items of set-up, a turn of 10 items, 2 items between, a turn of 5 in another session, 3 after.
const TURNS = [turn(5, 4, 14), turn(17, 16, 21, 's2')];
const TOTAL = 24;

describe('GroupLayout', () => {
  it('cuts the list into rows, session headers, turn headers and cards', () => {
    const L = new GroupLayout(TOTAL, TURNS, () => false, 8);
    expect(L.entries.map((e) => `${e.kind}@${e.pos}+${e.size}`)).toEqual([
      'rows@0+4', 'session@4+1', 'turn@5+1', 'card@6+8', 'rows@14+2', 'session@16+1', 'turn@17+1', 'card@18+8', 'rows@26+3',
    ]);
    expect(L.height).toBe(29);
    expect(L.entries[L.entryAt(10)]!.kind).toBe('card');
    expect(L.entries[L.entryAt(1000)]!.kind).toBe('rows');
  });

  it('gives each card the rows measured for it, so what follows starts below its last line', () => {
    const L = new GroupLayout(TOTAL, TURNS, () => false, (seq) => (seq === 5 ? 13 : 8));
    expect(L.entries.map((e) => `${e.kind}@${e.pos}+${e.size}`)).toEqual([
      'rows@0+4', 'session@4+1', 'turn@5+1', 'card@6+13', 'rows@19+2', 'session@21+1', 'turn@22+1', 'card@23+8', 'rows@31+3',
    ]);
    expect(L.posOf(14)).toBe(19);
  });

  it('maps list indices to display rows, hidden items to their turn header', () => {
    const L = new GroupLayout(TOTAL, TURNS, (seq) => seq === 17, 8);
    expect(L.posOf(0)).toBe(0);
    expect(L.posOf(4)).toBe(5); // the prompt of a collapsed turn: its header
    expect(L.posOf(9)).toBe(5);
    expect(L.posOf(14)).toBe(14);
    expect(L.posOf(16)).toBe(18); // the first row of the expanded turn, below its header at 17
    expect(L.posOf(20)).toBe(22);
    expect(L.posOf(21)).toBe(23);
    expect(L.hidden(9)).toBe(true);
    expect(L.hidden(4)).toBe(false);
    expect(L.hidden(18)).toBe(false);
  });

  it('steps over the inside of collapsed turns with j/k', () => {
    const L = new GroupLayout(TOTAL, TURNS, () => false, 8);
    expect(L.step(3, 1, TOTAL)).toBe(4);
    expect(L.step(4, 1, TOTAL)).toBe(14);
    expect(L.step(14, -1, TOTAL)).toBe(4);
    expect(L.step(15, 1, TOTAL)).toBe(16);
    expect(L.step(23, 1, TOTAL)).toBe(23);
    expect(L.step(0, -1, TOTAL)).toBe(0);
  });

  it('starts a new session header when the session changes, and leaves out empty turns', () => {
    const L = new GroupLayout(10, [turn(1, 0, 3), turn(4, 3, 3), turn(5, 3, 6)], () => true, 8);
    expect(L.entries.filter((e) => e.kind === 'session')).toHaveLength(1);
    expect(L.entries.filter((e) => e.kind === 'turn')).toHaveLength(2);
    expect(L.height).toBe(1 + 2 + 6 + 4);
  });

  it('puts a session header before the first item of a session, with or without turns', () => {
    // s1 appears at index 2 (session/new's answer), its turn at 4-14; s3 (loaded, no turn) at 15; s2's turn at 16.
    const L = new GroupLayout(TOTAL, TURNS, () => true, 8, [{ sessionId: 's1', from: 2 }, { sessionId: 's3', from: 15 }, { sessionId: 's2', from: 16 }]);
    expect(L.entries.map((e) => `${e.kind}@${e.pos}+${e.size}${e.kind === 'session' ? `:${e.sessionId}:${e.turns.length}` : ''}`)).toEqual([
      'rows@0+2', 'session@2+1:s1:1', 'rows@3+2', 'turn@5+1', 'rows@6+10', 'rows@16+1', 'session@17+1:s3:0', 'rows@18+1',
      'session@19+1:s2:1', 'turn@20+1', 'rows@21+5', 'rows@26+3',
    ]);
    expect(L.posOf(15)).toBe(18);
    expect(L.posOf(16)).toBe(21);
  });
});
