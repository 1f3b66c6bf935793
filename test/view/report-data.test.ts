import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/transcript/format.js';
import { RULES, summarizeState } from '../../src/check/index.js';
import { checkStream } from '../../src/check-run/run.js';
import { decodeReport, encodeReport, reportData } from '../../src/view/report-data.js';
import { MemorySource } from '../../src/view/memory-source.js';

const roundTrip = (text: string) => {
  const rec = parseTranscript(text);
  const d = reportData(rec, checkStream(rec.items, []).findings, RULES, summarizeState, 'note');
  const enc = encodeReport(d);
  return { enc, dec: decodeReport(enc), rec };
};

describe("the report's embedded data", () => {
  it('keeps raw lines out of the JSON, and keeps them in it when one holds a newline', async () => {
    const plain = roundTrip('{"t":0,"dir":"c2a","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"x\\"}"}\n{"t":1,"dir":"stderr","raw":"a \\"quoted\\" log"}\n');
    expect(plain.enc.split('\n')).toHaveLength(3);
    expect(plain.enc.split('\n')[2]).toBe('a "quoted" log');
    expect(plain.dec.recording.columns!.map((c) => c.raw)).toEqual(['{"jsonrpc":"2.0","id":1,"method":"x"}', 'a "quoted" log']);
    const odd = roundTrip('{"t":0,"dir":"stderr","raw":"two\\nlines"}\n{"t":1,"dir":"stderr","raw":"one"}\n');
    expect(odd.enc).not.toContain('\n');
    expect(odd.dec.recording.columns!.map((c) => c.raw)).toEqual(['two\nlines', 'one']);
    expect((await new MemorySource(odd.dec.recording).page(1, '', 0, 10)).rows.map((r) => r.preview)).toEqual(['two lines', 'one']);
  });

  it('holds an empty recording, and findings with their rules', async () => {
    const empty = roundTrip('{"acpInspect":"recording","version":1,"name":"nothing"}\n');
    expect(empty.dec.recording.columns).toEqual([]);
    expect((await new MemorySource(empty.dec.recording).page(1, '', 0, 10)).total).toBe(0);
    const bad = roundTrip('{"t":0,"dir":"a2c","raw":"not json"}\n');
    const f = await new MemorySource(bad.dec.recording).findings(1);
    expect(f[0]).toMatchObject({ rule: 'not-json', severity: 'error' });
    expect(f[0]!.specText).toBeTruthy();
  });
});
