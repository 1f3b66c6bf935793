/**
 * What the editor sees of its agent through the tap, signal-wise, is what it sees without it: the
 * agent starts with the signal dispositions and mask a direct spawn gives it, and an agent ended by
 * a signal ends the tap by the same signal (not by an exit code 128+n). On both forwarders.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { makeTmp, start, withStore } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());

/** A non-Node agent (Node ignores SIGPIPE itself) that reports its ignored and blocked signals, then waits. */
const AGENT = ['sh', '-c', 'grep -E "^Sig(Ign|Blk)" /proc/self/status | tr "\\n" " " >&2; echo >&2; exec sleep 30'];

function masksOf(stderr: string): string {
  const m = /SigBlk:\s*([0-9a-f]+)\s+SigIgn:\s*([0-9a-f]+)/.exec(stderr);
  if (!m) throw new Error(`no signal masks in: ${stderr}`);
  return `blocked ${m[1]} ignored ${m[2]}`;
}

async function direct(): Promise<{ masks: string; signal: NodeJS.Signals | null; code: number | null }> {
  const c = spawn(AGENT[0]!, AGENT.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  const masks = new Promise<string>((res) => c.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.includes('\n')) res(masksOf(err));
  }));
  const m = await masks;
  c.kill('SIGTERM');
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res) => c.on('exit', (a, b) => res([a, b])));
  return { masks: m, signal, code };
}

describe.each([['native', '1'], ['JavaScript', '0']])('through the tap on the %s forwarder', (_name, native) => {
  it('the agent has the ignored and blocked signals of a direct spawn, and SIGTERM to the tap ends the tap by SIGTERM', async () => {
    const want = await direct();
    expect(want).toMatchObject({ code: null, signal: 'SIGTERM' });
    const db = join(tmp.dir, `sig-${native}.db`);
    const r = start(['--db', db, '--', ...AGENT], { env: { ACP_INSPECT_NATIVE: native } });
    const err = await r.waitStderr(/SigIgn[^\n]*\n/);
    expect(masksOf(err)).toBe(want.masks);
    r.child.kill('SIGTERM');
    const res = await r.done;
    expect({ code: res.code, signal: res.signal }).toEqual({ code: null, signal: 'SIGTERM' });
    const rec = withStore(db, (s) => s.listRecordings()[0]!);
    expect(rec.exitSignal).toBe('SIGTERM');
  });
});
