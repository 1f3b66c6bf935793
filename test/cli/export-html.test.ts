/**
 * `acp-inspect export --html` through the real binary: what the page holds (decoded as the page
 * decodes it), credentials redacted unless --no-redact, stdout when no file is named, clear errors.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ROOT, cli, tempDir } from '../helpers.js';
import { decodeReport } from '../../src/view/report-data.js';

const WIRE = join(ROOT, 'recordings/golden/wire-problems.jsonl');
const t = tempDir('acp-export-html-');
afterAll(() => t.cleanup());

const SECRET = 'hunter2-very-secret';
const transcript = [
  { acpInspect: 'recording', version: 1, name: 'with a secret' },
  { t: 1, dir: 'c2a', raw: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }) },
  { t: 2, dir: 'a2c', raw: JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }) },
  { t: 3, dir: 'c2a', raw: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [{ name: 'db', command: 'db-mcp', args: [], env: [{ name: 'DB_PASSWORD', value: SECRET }] }] } }) },
  { t: 4, dir: 'a2c', raw: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } }) },
].map((l) => JSON.stringify(l)).join('\n') + '\n';
const src = join(t.dir, 'secret.jsonl');
writeFileSync(src, transcript);

/** What the page decodes from its embedded data. */
function embedded(html: string): ReturnType<typeof decodeReport> & { text: string } {
  const b64 = /<script type="application\/gzip" id="acp-inspect-data">([^<]*)<\/script>/.exec(html)![1]!;
  const text = gunzipSync(Buffer.from(b64, 'base64')).toString('utf8');
  return { ...decodeReport(text), text };
}

describe('export --html', () => {
  it('redacts credentials by default and says so; keeps them with --no-redact', async () => {
    const out = join(t.dir, 'r.html');
    const r = await cli(['export', src, '--html', '-o', out]);
    expect(r.code, r.stderr.toString()).toBe(0);
    expect(r.stderr.toString()).toMatch(/wrote 4 items and \d+ findings \(\d+ KiB, credentials redacted\)/);
    const html = readFileSync(out, 'utf8');
    const d = embedded(html);
    expect(d.text).not.toContain(SECRET);
    expect(html).not.toContain(SECRET);
    expect(d.note).toContain('credentials redacted');
    expect(d.recording.columns!.map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    expect(d.recording.summary.name).toBe('with a secret');
    const kept = await cli(['export', src, '--html', '--no-redact']);
    expect(kept.code).toBe(0);
    const k = embedded(kept.stdout.toString());
    expect(k.text).toContain(SECRET);
    expect(k.note).toContain('NOT redacted');
  });

  it('holds the findings `check` reports, with their rules', async () => {
    const d = embedded((await cli(['export', WIRE, '--html'])).stdout.toString());
    const check = (await cli(['check', WIRE, '--json'])).stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(d.recording.findings.map((f) => ({ seq: f.seq, severity: f.severity, rule: f.rule, message: f.message, spec: f.spec, url: f.url }))).toEqual(check);
    expect(d.recording.findings.every((f) => typeof f.specText === 'string' && f.specText.length > 0)).toBe(true);
  });

  it('fails in one line on a bad transcript or an unknown recording', async () => {
    const bad = join(t.dir, 'bad.jsonl');
    writeFileSync(bad, 'not json\n');
    const r = await cli(['export', bad, '--html', '-o', join(t.dir, 'x.html')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.toString().trim().split('\n')).toHaveLength(1);
    expect(r.stderr.toString()).toMatch(/line 1/);
    const none = await cli(['export', '999', '--html', '--db', join(t.dir, 'empty.sqlite')]);
    expect(none.code).not.toBe(0);
    expect(none.stderr.toString().trim().split('\n')).toHaveLength(1);
  });
});
