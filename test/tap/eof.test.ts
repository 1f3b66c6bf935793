/**
 * When the agent's output ends, the client sees the end at once, as through a direct pipe, even
 * while the recorder is still indexing a backlog (here: a flood of 64k frames) and the tap has not
 * exited yet.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, ROOT, tempDir } from '../helpers.js';
import { Store } from '../../src/store/store.js';
import { expectedFlood, initializeRequest, initializeResult, newSessionRequest, newSessionResult, promptRequest } from '../../bench/frames.js';

const t = tempDir();
afterAll(() => t.cleanup());

describe('end of the agent output', () => {
  it('reaches the client before the recording is finished', async () => {
    const db = join(t.dir, 'eof.sqlite');
    const p = spawn(process.execPath, [BIN, '--db', db, '--', process.execPath, join(ROOT, 'bench', 'agent.js')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let got = 0;
    const waiters: (() => void)[] = [];
    p.stdout!.on('data', (b: Buffer) => { got += b.length; for (const w of waiters.splice(0)) w(); });
    const until = (n: number) => new Promise<void>((res) => { const check = () => (got >= n ? res() : waiters.push(check)); check(); });
    const exited = new Promise<number | null>((res) => p.on('exit', (code) => res(code)));

    let want = 0;
    p.stdin!.write(initializeRequest(1));
    await until((want += initializeResult(1).length));
    p.stdin!.write(newSessionRequest(2));
    await until((want += newSessionResult(2).length));
    const count = 65536;
    p.stdin!.write(promptRequest(3, `flood 1024 ${count}`));
    await until((want += (expectedFlood(3, 1024, count) as { len: number }).len));

    // The agent exits when its stdin ends; its output's end must reach us while the recording runs.
    // On a loaded machine the recorder may not even have set up the database yet: that too is
    // "not finished". Either way the handler must answer (a throw here would hang the test).
    const statusAtEof = new Promise<string>((res) => p.stdout!.on('end', () => {
      try {
        const s = Store.open(db, { readonly: true });
        try { res(s.listRecordings()[0]?.status ?? 'not created yet'); } finally { s.close(); }
      } catch (e) {
        res(`not created yet (${(e as Error).message})`);
      }
    }));
    p.stdin!.end();
    expect(await statusAtEof).toMatch(/^(running|not created yet)/);
    expect(await exited).toBe(0);
    const s = Store.open(db, { readonly: true });
    try {
      const rec = s.listRecordings()[0]!;
      expect(rec.status).toBe('complete');
      expect(rec.frames).toBe(count + 6);
    } finally {
      s.close();
    }
  });
});
