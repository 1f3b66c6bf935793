/**
 * The second-pass audit corpus (audit-corpus.json): small transcripts, one per statement of spec.md
 * that can be seen on the wire, each violating exactly that statement (the finding must come at the
 * planted frame, with the rule named), and conformant variations a careful peer author would consider
 * fine (no error, no warning). Written while auditing the checker for a held-out corpus.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check, type Step } from './helpers.js';

interface Corpus {
  violations: Array<{ name: string; seq: number; rule: string; steps: Step[] }>;
  conformant: Array<{ name: string; steps: Step[] }>;
}
const corpus = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'audit-corpus.json'), 'utf8')) as Corpus;

describe('audit corpus', () => {
  it('holds violations and conformant variations', () => {
    expect(corpus.violations.length).toBeGreaterThan(150);
    expect(corpus.conformant.length).toBeGreaterThan(20);
  });
  it('every planted violation is reported at its frame by the named rule, as an error or warning', () => {
    const missed: string[] = [];
    for (const v of corpus.violations) {
      const at = check(v.steps).filter((f) => f.seq === v.seq && f.severity !== 'info');
      if (!at.some((f) => f.rule === v.rule)) missed.push(`${v.name} @${v.seq}: want ${v.rule}, got ${JSON.stringify(at.map((f) => f.rule))}`);
    }
    expect(missed).toEqual([]);
  });
  it('conformant variations raise no error and no warning', () => {
    const noisy: string[] = [];
    for (const c of corpus.conformant) {
      const f = check(c.steps).filter((x) => x.severity !== 'info');
      if (f.length) noisy.push(`${c.name}: ${f.map((x) => `#${x.seq} ${x.rule}`).join(', ')}`);
    }
    expect(noisy).toEqual([]);
  });
});
