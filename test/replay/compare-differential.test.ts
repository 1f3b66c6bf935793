/**
 * Differential test of comparing two recordings. Two checks on every pair of the repository's
 * recordings and on seeded mutated runs (`compare-fuzz.ts`), with the option sets the UI and the CLI
 * offer:
 * 1. Reading from the store (frames as `readFrames` / `iterateFrames` build them, the first
 *    recording's JSON parsed lazily) gives what the generic path gives (every frame parsed by the
 *    store's `loadRecording`): the Compare view's whole answer, its paged rows, and `diff`'s text and
 *    --json.
 * 2. The alignment itself does not change: a digest of those outputs per pair is pinned in
 *    `fixtures/compare-golden.json`, written by the comparison as it was before its fast paths. A
 *    change of matching (which frame pairs with which, the differences named) fails here. To accept a
 *    deliberate change, run with ACP_INSPECT_WRITE_GOLDEN=1 and say why in the commit.
 * Real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/store.js';
import { iterateFrames, readFrames } from '../../src/store/frames.js';
import { readTranscriptFile } from '../../src/source.js';
import { isFrame, type Frame } from '../../src/wire/frame.js';
import { Comparison, compareFrames, type CompareOptions } from '../../src/server/compare.js';
import { diffFramesReport, differenceJson } from '../../src/replay/diff-report.js';
import { renderDivergences } from '../../src/replay/report.js';
import { parseOrUndefined, recognisedUpdateKind, updateKindOf } from '../../src/replay/lazy-frame.js';
import { mutate, scenario, storeLines } from './compare-fuzz.js';
import { seededRandom } from '../helpers.js';

const GOLDEN = join(import.meta.dirname, 'fixtures', 'compare-golden.json');
const write = process.env.ACP_INSPECT_WRITE_GOLDEN === '1';

let dir: string;
let store: Store;
const recIds: Array<[string, number]> = [];
const fuzzPairs: Array<[string, number, number]> = [];

function transcripts(d: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(d)) {
    const p = join(d, e);
    if (statSync(p).isDirectory()) out.push(...transcripts(p));
    else if (e.endsWith('.jsonl')) out.push(p);
  }
  return out.sort();
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acp-cmp-diff-'));
  store = Store.open(join(dir, 'db.sqlite'));
  const root = join(import.meta.dirname, '..', '..', 'recordings');
  for (const f of transcripts(root)) recIds.push([f.slice(root.length + 1), store.importRecording(readTranscriptFile(f))]);
  for (let seed = 1; seed <= 60; seed++) {
    const turns = 2 + (seed % 5);
    const a = storeLines(store, `a${seed}`, scenario(turns, 'a'));
    const b = storeLines(store, `b${seed}`, mutate(scenario(turns, 'b'), seed, [0.05, 0.2, 0.5][seed % 3]!));
    fuzzPairs.push([`seed ${seed} a-b`, a, b], [`seed ${seed} b-a`, b, a]);
  }
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const OPTION_SETS: CompareOptions[] = [{}, { mergeChunks: true }, { ignore: ['params.update.content.text', 'result.**'] }];

const generic = (id: number): Frame[] => store.loadRecording(id).items.filter(isFrame);

/** `diff`'s output (text and --json) for frames of a and b. */
function diffOutput(a: readonly Frame[], b: Iterable<Frame>, opts: CompareOptions): string {
  const r = diffFramesReport(a, b, opts);
  const d = r.diff;
  return `${renderDivergences(d.divergences, { color: false, map: d.map, ignore: r.ignore, recordedLabel: 'a', liveLabel: 'b' })}\n${r.line}\n${JSON.stringify({ same: d.same, matched: d.matched, differences: d.divergences.map(differenceJson) })}`;
}

const digests: Record<string, string> = {};

/** Checks one pair both ways (store against generic) and returns the digest of its outputs. */
function checkPair(name: string, a: number, b: number, opts: CompareOptions): void {
  const want = JSON.stringify(compareFrames(generic(a), generic(b), opts));
  expect(JSON.stringify(compareFrames(readFrames(store, a), iterateFrames(store, b), opts))).toBe(want);
  const c = new Comparison(readFrames(store, a), iterateFrames(store, b), opts);
  const whole = JSON.parse(want) as { rows: unknown[] };
  expect(JSON.stringify(c.rows(0, 7).concat(c.rows(7)))).toBe(JSON.stringify(whole.rows));
  const diffText = diffOutput(generic(a), generic(b), opts);
  expect(diffOutput(readFrames(store, a), iterateFrames(store, b), opts)).toBe(diffText);
  digests[`${name} ${JSON.stringify(opts)}`] = createHash('sha256').update(want).update('\0').update(diffText).digest('hex').slice(0, 20);
}

describe('comparing two recordings', () => {
  it('from the store is the generic comparison, on the repository recordings, each with itself and its neighbours, with each option set', () => {
    expect(recIds.length).toBeGreaterThan(10);
    recIds.forEach(([na, a], i) => {
      for (const [nb, b] of [recIds[i]!, recIds[(i + 1) % recIds.length]!, recIds[(i + 2) % recIds.length]!]) {
        for (const o of OPTION_SETS) {
          checkPair(`${na} ${nb}`, a, b, o);
          if (a !== b) checkPair(`${nb} ${na}`, b, a, o);
        }
      }
    });
  });

  it('from the store is the generic comparison, on seeded runs of one scenario with mutated lines, both ways, with each option set', () => {
    for (const [name, a, b] of fuzzPairs) for (const o of OPTION_SETS) checkPair(name, a, b, o);
  });

  it('aligns as pinned: the same outputs, pair by pair, as the comparison before its fast paths', () => {
    expect(Object.keys(digests).length).toBeGreaterThan(500);
    if (write) writeFileSync(GOLDEN, `${JSON.stringify(digests, null, 1)}\n`);
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string>;
    const changed = Object.keys(golden).filter((k) => k in digests && digests[k] !== golden[k]);
    expect(changed, `outputs changed for ${changed.length} pairs; first: ${changed[0]}`).toEqual([]);
    // Every fuzzed pair is pinned; a recording added to the repository is compared above but has no digest yet.
    const fuzzKeys = Object.keys(digests).filter((k) => k.startsWith('seed '));
    expect(fuzzKeys.filter((k) => !(k in golden))).toEqual([]);
    expect(Object.keys(golden).filter((k) => k in digests).length).toBeGreaterThan(500);
  });
});

describe('the update kind read off the text', () => {
  it('is what JSON.parse reads, or it declines, on seeded mutations of every kind of line', () => {
    const r = seededRandom(7);
    const lines = scenario(3, 'a').map(([, raw]) => raw);
    let recognised = 0;
    let declined = 0;
    for (let i = 0; i < 5000; i++) {
      const base = lines[Math.floor(r() * lines.length)]!;
      const raw = mutate([['a2c', base]], i, 1)[0]?.[1] ?? base;
      const json = parseOrUndefined(raw);
      if (json === undefined) continue; // only well-formed lines are asked (see LazyJsonFrame)
      const k = recognisedUpdateKind(raw);
      if (k === null) declined++;
      else {
        recognised++;
        expect(k).toBe(updateKindOf(json));
      }
    }
    expect(recognised).toBeGreaterThan(500);
    expect(declined).toBeGreaterThan(500);
  });

  it('declines escapes and keys that could replace the kind', () => {
    const line = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}';
    expect(recognisedUpdateKind(line)).toBe('plan');
    expect(recognisedUpdateKind(line.replace('"entries"', '"sessionUpdate":"tool_call","entries"'))).toBeNull();
    expect(updateKindOf(JSON.parse(line.replace('"entries"', '"sessionUpdate":"tool_call","entries"')))).toBe('tool_call');
    expect(recognisedUpdateKind(line.replace('}}}', '},"update":{"sessionUpdate":"x"}}}'))).toBeNull();
    expect(recognisedUpdateKind(line.replace('}}}', '}},"params":{}}'))).toBeNull();
    expect(recognisedUpdateKind(line.replace('"entries"', '"sessionUpd\\u0061te":"x","entries"'))).toBeNull();
    expect(recognisedUpdateKind(line.replace('"plan"', '"pl\\u0061n"'))).toBeNull();
    expect(recognisedUpdateKind(line.replace('{"jsonrpc":"2.0",', '{'))).toBeNull();
  });
});
