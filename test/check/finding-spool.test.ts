/**
 * The spool `check` keeps its findings in (src/check-run/finding-spool.ts): read back in the order
 * the whole sorted list had, with the findings of the recording's end (at earlier frames) merged in,
 * whether they were held or written to its file; and the readable report made from its tally is the
 * report of the sorted list.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { FindingSpool } from '../../src/check-run/finding-spool.js';
import { formatReport } from '../../src/check-run/report.js';
import type { Finding } from '../../src/check/checker.js';
import { join } from 'node:path';
import { cli, ROOT, seededRandom } from '../helpers.js';

const RULES = [['not-json', 'error'], ['session-unknown', 'error'], ['unknown-field', 'info'], ['unanswered-request', 'warning']] as const;

/** Findings as a check makes them: at each frame in turn, then some at earlier frames (the end's). */
function findings(n: number, late: number, rnd: () => number): Finding[] {
  const out: Finding[] = [];
  let seq = 1;
  for (let i = 0; i < n; i++) {
    seq += Math.floor(rnd() * 3); // several at one frame, or none
    const [rule, severity] = RULES[Math.floor(rnd() * 3)]!;
    out.push({ seq, severity, rule, message: `#${i} héllo ✓ ${'x'.repeat(Math.floor(rnd() * 200))}`, spec: '3' });
  }
  for (let i = 0; i < late; i++) out.push({ seq: 1 + Math.floor(rnd() * seq), severity: 'warning', rule: RULES[3][0], message: `late ${i}`, spec: '5' });
  return out;
}

const spoolsNow = () => readdirSync(tmpdir()).filter((f) => f.startsWith(`acp-inspect-findings-${process.pid}-`));

describe('the findings spool', () => {
  it('reads back every finding in stable seq order, from memory and from its file, with the late ones merged in', () => {
    const rnd = seededRandom(7);
    for (const [n, late, hold] of [[0, 0, 3], [5, 0, 3], [1000, 40, 3], [1000, 40, 4096], [20_000, 300, 1000]] as const) {
      const all = findings(n, late, rnd);
      const spool = new FindingSpool(undefined, { hold });
      for (const f of all) spool.add(f);
      expect(spoolsNow(), 'the file is removed from its folder once open').toEqual([]);
      const sorted = [...all].sort((a, b) => a.seq - b.seq);
      expect([...spool.read()]).toEqual(sorted);
      expect([...spool.read()], 'read twice').toEqual(sorted);
      const frames = 12_345;
      expect(formatReport({ frames, items: frames, spool }, 'x.jsonl')).toBe(formatReport({ frames, items: frames, findings: sorted }, 'x.jsonl'));
      spool.close();
      expect([...spool.read()]).toEqual([]);
    }
  });

  it('is read on another thread from the state it hands on', () => {
    const all = findings(500, 10, seededRandom(3));
    const spool = new FindingSpool(undefined, { hold: 7 });
    for (const f of all) spool.add(f);
    const there = new FindingSpool(structuredClone(spool.state()));
    expect([...there.read()]).toEqual([...all].sort((a, b) => a.seq - b.seq));
    expect(there.tally.counts).toEqual(spool.tally.counts);
    there.close();
  });

  it('stops check in one line, naming the fix, when it cannot make its file', async () => {
    const file = join(ROOT, 'recordings', 'golden', 'cancel-and-turns.jsonl');
    const r = await cli(['check', file, '--json'], { env: { TMPDIR: join(tmpdir(), 'no-such-folder-for-acp-inspect'), ACP_INSPECT_CHECK_THREADS: '2' } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^acp-inspect: cannot make a temporary file for the findings in .*no-such-folder-for-acp-inspect \(ENOENT\); set TMPDIR to a folder you can write\n$/);
  });
});
