/**
 * The tables of the README and of every docs page hold together: a run of `| … |` lines outside a
 * code block starts with a header row and its `|---|` line, so a sentence dropped into the middle of
 * a table (which cuts it in two and leaves the second half as plain text) fails here by page and line.
 */
import { describe, expect, it } from 'vitest';
import { docPages } from '../helpers.js';

/** "file:line" of each table run that has no header separator as its second line. */
function brokenTables(file: string, text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n');
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i]!)) { fenced = !fenced; continue; }
    if (fenced || !lines[i]!.startsWith('|') || lines[i - 1]?.startsWith('|')) continue;
    if (!/^\|(\s*:?-{3,}:?\s*\|)+\s*$/.test(lines[i + 1] ?? '')) problems.push(`${file}:${i + 1}`);
  }
  return problems;
}

describe('the tables of the README and docs/', () => {
  it('each start with a header row and its separator (no table cut in two by a sentence)', () => {
    const pages = docPages();
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.flatMap(({ file, text }) => brokenTables(file, text))).toEqual([]);
  });

  it('a table cut by a sentence is named by its page and line (the check can fail)', () => {
    const cut = '| key | does |\n|---|---|\n| `j` | next |\n\nA sentence.\n| `n` | note |\n\n```\n| not | a table |\n```\n';
    expect(brokenTables('docs/x.md', cut)).toEqual(['docs/x.md:6']);
  });
});
