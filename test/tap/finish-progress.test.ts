/**
 * At its exit the tap waits for the recorder while it makes progress, and says so when it made none
 * for a while (ACP_INSPECT_FINISH_WAIT_MS, 6 s by default; 1 s here, several times the longest step
 * measured between two progress marks on this machine). Writing findings is progress: a session
 * that ends with 20,000 unanswered requests (a finding each, all written at the end) is finished and
 * stored without the "made no progress" warning.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cli, run, tempDir } from '../helpers.js';
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
  it(`stores ${2 * N} findings written at the end without saying the recorder made no progress`, async () => {
    const db = join(t.dir, 'f.sqlite');
    let input = '';
    for (let i = 0; i < N; i++) input += JSON.stringify({ jsonrpc: '2.0', id: i, method: '_x/ping', params: {} }) + '\n';
    const r = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, agent], { input, env: { ACP_INSPECT_FINISH_WAIT_MS: '1000' }, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/made no progress/);
    const list = await cli(['list', '--json', '--db', db]);
    const [rec] = JSON.parse(list.stdout.toString()) as { status: string; errors: number; warnings: number }[];
    expect(rec!.status).toBe('complete');
    // Unanswered: errors, or warnings for those sent before the connection closed.
    expect(rec!.errors + rec!.warnings).toBeGreaterThanOrEqual(2 * N);
  });
});
