/**
 * Retention, journald-style: a store past a limit (maximum age, maximum size, free space to keep) is
 * trimmed when the next tap starts, by a process of its own once the agent runs: oldest first, never a
 * recording with a note, one younger than a day, or one still recorded. `doctor` shows the settings,
 * `doctor` and `list` the store's size and its disk's free space. Real binaries, a real SQLite file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../src/store/store.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { selectRetention, storeUsage, retentionSettings } from '../../src/store/retention.js';
import { ROOT } from '../helpers.js';
import { makeTmp, run, start, until, writeAgent } from './helpers.js';

const tmp = makeTmp('acp-retention-');
afterAll(() => tmp.cleanup());
const DAY = 86_400_000;
const golden = readFileSync(join(ROOT, 'recordings', 'golden', 'cancel-and-turns.jsonl'), 'utf8');
const sample = parseTranscript(golden);
/**
 * The same session with 2,000 updates of 1 KB after it: about 2 MiB, so a tap's own recording and
 * write-ahead log (tens of KiB, more when a loaded machine commits in smaller batches) are small
 * beside one recording's share.
 */
const bulky = parseTranscript(golden + Array.from({ length: 2000 }, (_, i) => `${JSON.stringify({ t: 1000 + i, dir: 'a2c', raw: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i} ${'x'.repeat(1000)}` } } } }) })}\n`).join(''));
/** An agent whose first frame goes out at once, then answers nothing until stdin ends. */
const agent = writeAgent(tmp.dir, 'hello', `process.stdout.write('{"jsonrpc":"2.0","method":"hello","params":{}}\\n'); process.stdin.resume();`);

/** A store with recordings started `ages` ago (ms), the noted ones with a note; returns their ids by age. */
function makeStore(name: string, ages: number[], noted: number[] = [], transcript = sample): { db: string; ids: Map<number, number> } {
  const db = join(tmp.dir, `${name}.db`);
  const s = Store.open(db);
  const ids = new Map<number, number>();
  try {
    for (const age of ages) {
      const id = s.importRecording(transcript, age >= DAY ? `${age / DAY}d` : 'young');
      s.updateRecording(id, { started_at: new Date(Date.now() - age).toISOString() });
      if (noted.includes(age)) s.addNote(id, 1, 'keep this one');
      ids.set(age, id);
    }
  } finally {
    s.close();
  }
  return { db, ids };
}

const names = (db: string) => { const s = Store.open(db); try { return s.listRecordings().map((r) => r.name).filter((n) => n !== null).sort(); } finally { s.close(); } };

/** Runs a tap with `env`; resolves once its agent's first frame reached the client, and the tap has exited. */
async function tap(db: string, env: NodeJS.ProcessEnv, events: string[]): Promise<void> {
  const r = start(['--db', db, '--', process.execPath, agent], { env });
  await r.waitStdout((b) => b.includes('"method":"hello"'));
  events.push('first frame');
  r.child.stdin!.end();
  expect((await r.done).code).toBe(0);
}

const AGES = [30 * DAY, 20 * DAY, 10 * DAY, 2 * DAY, 3_600_000];

describe('retention at a tap\'s start', () => {
  it('past the maximum age: the old go, those with a note stay; once the tap\'s own recording is made', async () => {
    const { db } = makeStore('age', AGES, [20 * DAY]);
    const events: string[] = [];
    // What docs/retention.md promises: trimming starts once the tap's recording is made (its agent runs
    // by then). Not "after the agent's first frame": on a loaded machine the agent's start-up can
    // outlast the recorder's and the trimming process's (seen in CI), and this test's poll can see
    // the trim before it reads a frame already sent.
    let ownMade = false;
    const gone = until('the old recordings deleted', () => {
      const s = Store.open(db, { readonly: true });
      let left: string[];
      try {
        const recs = s.listRecordings();
        left = recs.map((r) => r.name).filter((n) => n !== null) as string[];
        ownMade = recs.some((r) => r.command?.includes(agent) ?? false);
      } finally {
        s.close();
      }
      return !left.includes('30d') && !left.includes('10d');
    }, 120_000, 50).then(() => events.push(ownMade ? 'trimmed, the tap\'s recording made' : 'trimmed before the tap\'s recording'));
    await tap(db, { ACP_INSPECT_MAX_AGE: '7d' }, events);
    await gone;
    expect(events.sort()).toEqual(['first frame', 'trimmed, the tap\'s recording made']);
    expect(names(db)).toEqual(['20d', '2d', 'young']);
  });

  it('past the maximum size: the oldest goes first, and only as many as it takes', async () => {
    const { db } = makeStore('size', AGES, [], bulky);
    const used = (() => { const s = Store.open(db); try { return storeUsage(s).usedBytes; } finally { s.close(); } })();
    // Over by half of one recording's share: deleting the oldest is enough, even counting what the tap
    // itself adds to the store while it runs.
    await tap(db, { ACP_INSPECT_MAX_STORE_SIZE: String(Math.round(used - used / AGES.length / 2)) }, []);
    await until('the oldest deleted', () => !names(db).includes('30d'), 120_000, 50);
    // Given time to delete more, it did not.
    await new Promise((r) => setTimeout(r, 1000));
    expect(names(db)).toEqual(['10d', '20d', '2d', 'young']);
  });

  it('short of the free space to keep: every recording that may go goes, those younger than a day and with a note stay', async () => {
    const { db } = makeStore('free', AGES, [10 * DAY]);
    await tap(db, { ACP_INSPECT_KEEP_FREE: '1000T' }, []);
    await until('the old recordings deleted', () => names(db).length === 2, 120_000, 50);
    expect(names(db)).toEqual(['10d', 'young']);
    const s = Store.open(db);
    try {
      // The tap's own recording (young) stays too.
      expect(s.listRecordings().map((r) => r.status)).toContain('complete');
      expect(s.listRecordings()).toHaveLength(3);
    } finally {
      s.close();
    }
  });

  it('doctor shows the settings, and doctor and list the store\'s size and free space; bad settings are said and nothing deleted', async () => {
    const { db } = makeStore('doctor', AGES);
    const config = join(tmp.dir, 'config.json');
    writeFileSync(config, JSON.stringify({ retention: { maxStoreSize: '2G', maxAge: '90d' } }));
    const doc = await run(['doctor', '--db', db], { env: { ACP_INSPECT_CONFIG: config, ACP_INSPECT_KEEP_FREE: '1G' } });
    expect(doc.stdout.toString()).toMatch(/ok {4}store \d+\.\d MiB \(at most 2\.0 GiB\); disk \d+\.\d [MG]iB free \(1\.0 GiB kept free\)/);
    expect(doc.stdout.toString()).toContain(`maxStoreSize 2.0 GiB (${config}), keepFree 1.0 GiB (ACP_INSPECT_KEEP_FREE), maxAge 2160h (${config})`);
    const list = await run(['list', '--db', db], { env: { ACP_INSPECT_CONFIG: config } });
    expect(list.stdout.toString().trim().split('\n').pop()).toMatch(/^store \d+\.\d MiB \(at most 2\.0 GiB\); disk \d+\.\d [MG]iB free/);
    // Near the limit: a warning, before anything is deleted.
    const near = await run(['list', '--db', db], { env: { ACP_INSPECT_MAX_STORE_SIZE: '64K' } });
    expect(near.stdout.toString()).toMatch(/warning: the store takes .* \(maxStoreSize\)/);

    writeFileSync(config, JSON.stringify({ retention: { maxAge: 'a week' } }));
    const bad = await run(['doctor', '--db', db], { env: { ACP_INSPECT_CONFIG: config } });
    expect(bad.code).toBe(1);
    expect(bad.stdout.toString()).toMatch(/FAIL {2}retention settings: retention setting maxAge \(.*config\.json\): "a week" is not an age/);
    const r = await run(['--db', db, '--', process.execPath, agent], { env: { ACP_INSPECT_CONFIG: config } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/retention not applied: .*"a week" is not an age/);
    expect(names(db)).toHaveLength(5);
  });

  it('selects oldest first, and never a running one', () => {
    const s = retentionSettings(join(tmp.dir, 'x.db'), { ACP_INSPECT_MAX_STORE_SIZE: '0' });
    const rec = (id: number, age: number, status = 'complete') => ({ id, startedAt: new Date(Date.now() - age).toISOString(), status, items: 10 }) as never;
    const picked = selectRetention([rec(1, 5 * DAY), rec(2, 9 * DAY), rec(3, 8 * DAY, 'running'), rec(4, 3 * DAY)], { usedBytes: 1000, freeBytes: null }, s, new Set([4]));
    expect(picked.map((r: { id: number }) => r.id)).toEqual([2, 1]);
  });
});
