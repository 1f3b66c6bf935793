/**
 * The checker's snapshot: a checker made `from` a snapshot (through JSON, as an indexer stores it)
 * goes on exactly as the one that took it. Over every recording in recordings/ and every rule's
 * playbooks, the fold is cut after each item (at 40 places in the largest), the snapshot serialized and a new checker goes on
 * from it: the findings must be those of one uninterrupted fold.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/transcript/format.js';
import { checkItems, createChecker, type CheckerSnapshot, type Finding } from '../../src/check/checker.js';
import type { Item } from '../../src/wire/frame.js';
import { PLAYBOOKS } from './playbooks.js';
import { transcript } from './helpers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'recordings');

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? jsonlFiles(join(dir, e.name)) : e.name.endsWith('.jsonl') ? [join(dir, e.name)] : []);
}

/** The findings of a fold that is taken over by a new checker (from a JSON snapshot) after item `cut`. */
function foldCutAt(items: Item[], cut: number): Finding[] {
  const out: Finding[] = [];
  let c = createChecker();
  items.forEach((item, i) => {
    out.push(...c.step(item));
    if (i === cut) c = createChecker({ from: JSON.parse(JSON.stringify(c.snapshot())) as CheckerSnapshot });
  });
  out.push(...c.end());
  return out.sort((a, b) => a.seq - b.seq);
}

const cases: [string, Item[]][] = [
  ...jsonlFiles(root).map((f): [string, Item[]] => [f.slice(root.length + 1), parseTranscript(readFileSync(f, 'utf8')).items]),
  ...PLAYBOOKS.flatMap((p, k): [string, Item[]][] => [
    [`playbook ${k} ${p.rule} (bad)`, parseTranscript(transcript(p.bad)).items],
    [`playbook ${k} ${p.rule} (good)`, parseTranscript(transcript(p.good)).items],
  ]),
];

describe('a checker that goes on from a snapshot', () => {
  it('has recordings to go over', () => {
    expect(cases.length).toBeGreaterThan(40);
  });
  it('finds what one uninterrupted fold finds, wherever the fold is cut', () => {
    let cuts = 0;
    for (const [name, items] of cases) {
      const whole = checkItems(items);
      // After every item of a small recording; at 40 places spread over a large one (the playbooks
      // that fill the pending requests' bound hold more than 10,000 items).
      const step = Math.max(1, Math.floor(items.length / 40));
      for (let cut = 0; cut < items.length; cut += step) {
        expect(foldCutAt(items, cut), `${name}, cut after item ${cut + 1}`).toEqual(whole);
        cuts++;
      }
    }
    expect(cuts).toBeGreaterThan(1000);
  });
});
