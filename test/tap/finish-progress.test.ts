/**
 * A session that ends with 20,000 unanswered requests (a finding each, all written at the end): the
 * tap exits with its agent without waiting for them (the default exit wait), and the recording is
 * finished, complete, by the indexer that takes over from it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cli, run, tempDir, waitForIndexers } from '../helpers.js';
import { MAX_PENDING_REQUESTS } from '../../src/check/model.js';

const t = tempDir('acp-inspect-finish-');
afterAll(() => t.cleanup());

const N = MAX_PENDING_REQUESTS; // per side: the most the checker tracks, so every one is a finding at the end
const agent = join(t.dir, 'deaf-agent.mjs');
writeFileSync(agent, `
// Answers nothing; asks the client ${N} things it never hears back about.
let out = '';
for (let i = 0; i < ${N}; i++) out += JSON.stringify({ jsonrpc: '2.0', id: i, method: '_x/ask', params: {} }) + '\\n';
process.stdout.write(out);
process.stdin.resume();
process.stdin.on('end', () => process.stdout.end(() => process.exit(0)));
`);

describe('the tap finishing a recording', () => {
  it(`leaves ${2 * N} findings written at the end to the indexer that takes over; the recording ends complete with all of them`, async () => {
    const db = join(t.dir, 'f.sqlite');
    let input = '';
    for (let i = 0; i < N; i++) input += JSON.stringify({ jsonrpc: '2.0', id: i, method: '_x/ping', params: {} }) + '\n';
    const r = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, agent], { input, env: { ACP_INSPECT_FINISH_WAIT_MS: undefined }, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    // Whatever is left, `index` finishes (or waits for the detached indexer the tap started to finish).
    const ix = await cli(['index', '--db', db]);
    expect(ix.code, ix.stderr).toBe(0);
    // `index` leaves a log that the tap's detached indexer is still indexing to it (on a loaded
    // machine it can still be at work): wait for that indexer too.
    waitForIndexers(t.dir);
    const list = await cli(['list', '--json', '--db', db]);
    const [rec] = JSON.parse(list.stdout.toString()) as { status: string; errors: number; warnings: number }[];
    expect(rec!.status).toBe('complete');
    // Unanswered: errors, or warnings for those sent before the connection closed.
    expect(rec!.errors + rec!.warnings).toBeGreaterThanOrEqual(2 * N);
  });
});
