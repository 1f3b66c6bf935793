/**
 * `show ID` without --raw prints each frame from its columns and never reads its text (issue 45: a
 * long recording of non-ASCII, escape-heavy text cost twice ASCII's time to decode and parse for
 * lines that show none of it). Through the real binary on a real database: every line is what
 * formatItem makes of the item read whole, for frames of every kind, text of every kind, stderr, and
 * a frame whose size column is empty (its size then comes from its text); `--raw` still prints the text.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, tempDir } from '../helpers.js';
import { Store } from '../../src/store/store.js';
import { formatItem } from '../../src/text/item-line.js';

const t = tempDir('acp-show-text-');
afterAll(() => t.cleanup());

const chunk = (text: string) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'sess-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
const RAWS: [string, string][] = [
  ['c2a', '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}'],
  ['a2c', '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}'],
  ['c2a', '{"jsonrpc":"2.0","id":"n-1","method":"session/new","params":{"cwd":"/","mcpServers":[]}}'],
  ['a2c', '{"jsonrpc":"2.0","id":"n-1","result":{"sessionId":"sess-1"}}'],
  ['c2a', '{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"go ✓"}]}}'],
  ['a2c', chunk('plain ASCII')],
  ['a2c', chunk('café ✓ — 日本語 🚀 \ud83d\ude00')],
  ['a2c', chunk('line\n"quoted" back\\slash \u00e9\t\u0001 lone \ud800')],
  ['a2c', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"bare " quote"}}}}'],
  ['a2c', '{"jsonrpc":"2.0","method":"session/update" not json ✓'],
  ['c2a', '{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"sessionId":"sess-1","path":"/é.txt"}}'],
  ['a2c', '{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"fehlgeschlagen — ✗"}}'],
  ['a2c', '{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}'],
];

describe('show ID', () => {
  it('prints every line as formatItem does of the whole item, without reading the text, and the text with --raw', async () => {
    const file = join(t.dir, 'r.jsonl');
    const db = join(t.dir, 'r.db');
    const lines = ['{"acpInspect":"recording","version":1,"name":"text"}'];
    RAWS.forEach(([dir, raw], i) => {
      lines.push(JSON.stringify({ t: i * 10.5, dir, raw }));
      if (i === 6) lines.push(JSON.stringify({ t: i * 10.5 + 1, dir: 'stderr', raw: 'warn: ✓ done' }));
    });
    writeFileSync(file, lines.join('\n') + '\n');
    const imp = await cli(['import', file, '--db', db]);
    expect(imp.code, imp.stderr).toBe(0);
    // One frame as if stored without its size (its line's size then comes from its text).
    const d = new Database(db);
    expect(d.prepare("UPDATE items SET size = NULL WHERE seq = (SELECT seq FROM items WHERE raw LIKE '%日本語%')").run().changes).toBe(1);
    d.close();

    const store = Store.open(db, { mustExist: true });
    const whole = [...store.pagedItems(1)];
    store.close();
    expect(whole.length).toBe(RAWS.length + 1);
    const show = await cli(['show', '1', '--db', db], { env: { NO_COLOR: '1' } });
    expect(show.code, show.stderr).toBe(0);
    const got = show.stdout.toString().split('\n').filter(Boolean);
    expect(got.slice(1)).toEqual(whole.map((it) => formatItem(it, { color: false })));
    // The size read from the text where the column is empty, not 0B.
    expect(got.filter((l) => / 0B$/.test(l))).toEqual([]);

    const raw = await cli(['show', '1', '--db', db, '--raw'], { env: { NO_COLOR: '1' } });
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout.toString().split('\n').filter(Boolean).slice(1)).toEqual(whole.map((it) => formatItem(it, { color: false, raw: true })).join('\n').split('\n'));
    expect(raw.stdout.toString()).toContain('日本語 🚀');
  });
});
