/** The client battery as data, and how a prompt or --only picks part of it. Pure, in-process. */
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/check/index.js';
import { CLIENT_BATTERY, probeCommandWords, selectScenarios } from '../../src/probe/client/battery.js';
import { GROUPS } from '../../src/probe/client/scenario.js';

describe('the client battery', () => {
  it('has unique kebab-case ids, each citing a spec section, in a known group and tier', () => {
    expect(new Set(CLIENT_BATTERY.map((s) => s.id)).size).toBe(CLIENT_BATTERY.length);
    for (const s of CLIENT_BATTERY) {
      expect(s.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(s.spec, s.id).toMatch(/^\d+(\.\d+)?( rule \d+)?$/);
      expect(GROUPS).toContain(s.group);
      expect(['required', 'capability', 'advisory', 'info']).toContain(s.tier);
      // Ids never shadow a group name, so a /probe word means one thing.
      expect(GROUPS).not.toContain(s.id);
    }
  });

  it('names only real checker rules as the ones its provocations trigger', () => {
    const ids = new Set(RULES.map((r) => r.id));
    for (const s of CLIENT_BATTERY) for (const r of s.provokes ?? []) expect(ids.has(r), `${s.id}: ${r}`).toBe(true);
  });

  it('gates fs and terminal scenarios on the capability; the spec says what they do with no "must", so they are advisory (info for which error a missing file gets)', () => {
    const none = { caps: { readTextFile: false, writeTextFile: false, terminal: false, plan: false } };
    for (const s of CLIENT_BATTERY.filter((x) => x.group === 'fs' || x.group === 'terminal')) {
      expect(s.tier, s.id).toBe(s.id === 'fs-read-missing' ? 'info' : 'advisory');
      expect(s.gate?.(none), s.id).toMatch(/did not advertise .*: the probe sent no/);
    }
  });

  it('quotes a "must", a `req` field or JSON-RPC 2.0\'s MUST for every required scenario, and words for every other', () => {
    for (const s of CLIENT_BATTERY) {
      expect(s.quote, s.id).toEqual(expect.any(String));
      if (s.tier === 'required' || s.tier === 'capability') expect(s.quote, s.id).toMatch(/\bmust\b|\breq\b|MUST/);
    }
  });
});

describe('picking scenarios', () => {
  it('reads the words after /probe, and nothing from other prompts', () => {
    expect(probeCommandWords('/probe fs, terminal-kill')).toEqual(['fs', 'terminal-kill']);
    expect(probeCommandWords('  /probe')).toEqual([]);
    expect(probeCommandWords('please /probe fs')).toBeNull();
    expect(probeCommandWords('/prober')).toBeNull();
    expect(probeCommandWords('/probe-help')).toEqual(['help']);
  });

  it('takes groups and ids in battery order, lists unknown words, and the whole battery for none', () => {
    const sel = selectScenarios(['terminal-kill', 'fs', 'nope']);
    expect(sel.scenarios.map((s) => s.id)).toEqual(['fs-write', 'fs-read', 'fs-read-line-limit', 'fs-read-missing', 'terminal-kill']);
    expect(sel.unknown).toEqual(['nope']);
    expect(selectScenarios([]).scenarios).toHaveLength(CLIENT_BATTERY.length);
    expect(selectScenarios([]).asked.size).toBe(0);
    // A scenario that needs a person runs when named, not as part of its group.
    expect(selectScenarios(['permission']).asked.has('permission-cancel-turn')).toBe(false);
    expect(selectScenarios(['permission-cancel-turn']).asked.has('permission-cancel-turn')).toBe(true);
  });
});
