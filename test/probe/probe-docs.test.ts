/**
 * docs/probe.md lists every agent scenario with its tier, spec section, title and the words its tier
 * rests on: the table is the scenario data's, row for row. `UPDATE_DOCS=1` writes it from the data.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_SCENARIOS } from '../../src/probe/agent/scenarios.js';

const DOC = join(import.meta.dirname, '..', '..', 'docs', 'probe.md');
const HEAD = '| id | tier | spec | what it checks | the words |\n|---|---|---|---|---|\n';
const table = (): string => HEAD + AGENT_SCENARIOS.map((s) => `| ${[s.id, s.tier, s.spec, s.title, s.quote].map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |\n`).join('');

describe('docs/probe.md', () => {
  it('lists every scenario with its tier and the words it rests on, as the scenario data says', () => {
    const doc = readFileSync(DOC, 'utf8');
    const at = doc.indexOf(HEAD);
    expect(at, 'the scenarios table').toBeGreaterThan(0);
    const end = doc.indexOf('\n\n', at);
    const shown = doc.slice(at, end + 1);
    if (process.env.UPDATE_DOCS && shown !== table()) writeFileSync(DOC, doc.slice(0, at) + table() + doc.slice(end + 1));
    else expect(shown).toBe(table());
  });

  it('quotes a "must" or "req", or JSON-RPC 2.0\'s MUST, for every required or capability scenario', () => {
    for (const s of AGENT_SCENARIOS.filter((x) => x.tier === 'required' || x.tier === 'capability')) {
      expect(s.quote, s.id).toMatch(/\bmust\b|\breq\b|MUST/);
    }
  });
});
