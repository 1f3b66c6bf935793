/**
 * The states of a recording held in memory: checkpoints shipped or made on demand, the state after
 * any item equals refolding the model from the start, in whatever order items are asked for.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseTranscript } from '../../src/transcript/format.js';
import { stateAt, summarizeState } from '../../src/check/index.js';
import { foldStates, StateIndex } from '../../src/view/states.js';
import type { Item } from '../../src/wire/frame.js';

/** A long recording: a real one's items repeated with fresh seqs (prompt turns, tool calls, sessions). */
function longItems(): Item[] {
  const base = parseTranscript(readFileSync('recordings/real/claude-agent-acp-tools-cancel.jsonl', 'utf8')).items;
  const out: Item[] = [];
  for (let k = 0; out.length < 6000; k++) for (const it of base) out.push({ ...it, seq: out.length + 1 } as Item);
  return out;
}

describe('states in memory', () => {
  const items = longItems();
  const between = (after: number, to: number) => items.filter((i) => i.seq > after && i.seq <= to);
  const full = foldStates(items, summarizeState);

  it('keep checkpoints as the server does, and summaries for every item', () => {
    expect(full.checkpoints!.length).toBeGreaterThan(2);
    expect(full.idx.length).toBe(items.length + 1);
    expect(full.table.length).toBeLessThan(items.length / 10);
  });

  it('give the state a refold from the start gives, with checkpoints shipped or made on demand, in any order', () => {
    const shipped = new StateIndex(full, between);
    const onDemand = new StateIndex({ table: full.table, idx: full.idx }, between);
    const seqs = [5999, 1, 2500, 1000, 1001, 4321, 3000, 17, 6000, 999];
    for (const seq of seqs) {
      const want = JSON.parse(JSON.stringify(stateAt(items, seq))) as unknown;
      expect(JSON.parse(JSON.stringify(shipped.stateAt(seq))), `shipped ${seq}`).toEqual(want);
      expect(JSON.parse(JSON.stringify(onDemand.stateAt(seq))), `on demand ${seq}`).toEqual(want);
      expect(onDemand.summaryAt(seq)).toBe(summarizeState(stateAt(items, seq)));
    }
  });
});
