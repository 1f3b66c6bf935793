/**
 * Golden recordings: every recordings/golden/*.jsonl is checked and its findings compared with the
 * `*.expected.json` beside it (seq, severity, rule, spec). Regenerate after a deliberate change with
 * UPDATE_GOLDEN=1 npx vitest run test/check/golden.test.ts, then review the diff.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/transcript/format.js';
import { checkRecording } from '../../src/check/index.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'recordings', 'golden');
const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();

describe('golden recordings', () => {
  it('there are golden recordings, each with its expected findings', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) expect(existsSync(join(dir, f.replace(/\.jsonl$/, '.expected.json'))), f).toBe(true);
  });
  for (const f of files) {
    it(`${f} gives the expected findings`, () => {
      const got = checkRecording(parseTranscript(readFileSync(join(dir, f), 'utf8'))).map(({ seq, severity, rule, spec }) => ({ seq, severity, rule, spec }));
      const expectedFile = join(dir, f.replace(/\.jsonl$/, '.expected.json'));
      if (process.env.UPDATE_GOLDEN) writeFileSync(expectedFile, JSON.stringify(got, null, 1) + '\n');
      expect(got).toEqual(JSON.parse(readFileSync(expectedFile, 'utf8')));
    });
  }
});
