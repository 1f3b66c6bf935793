/**
 * docs/rules.md is generated from the checker's rule list (scripts/gen-rules-doc.js): this fails when
 * a rule was added, removed or changed without the page being written again.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../src/check/rule-list.js';
import { ROOT } from '../helpers.js';
// @ts-expect-error: a plain JavaScript script, without types
import { renderRulesDoc } from '../../scripts/gen-rules-doc.js';

describe('docs/rules.md', () => {
  it('is the page the rule list gives (run `npm run docs:rules` after changing a rule)', () => {
    const page = readFileSync(join(ROOT, 'docs', 'rules.md'), 'utf8');
    expect(page === renderRulesDoc(RULES), 'docs/rules.md is stale: run `npm run docs:rules` and commit it').toBe(true);
  });

  it('lists every rule once with its severity and spec section, in section order', () => {
    const page = renderRulesDoc(RULES) as string;
    for (const r of RULES) expect(page.split(`| \`${r.id}\` | ${r.severity} | ${r.spec} |`), r.id).toHaveLength(2);
    const stale = renderRulesDoc(RULES.slice(1)) as string;
    expect(stale).not.toBe(page);
    const sections = [...page.matchAll(/^\| `[^`]+` \| \w+ \| (\d+)/gm)].map((m) => Number(m[1]));
    expect(sections).toEqual([...sections].sort((a, b) => a - b));
  });
});
