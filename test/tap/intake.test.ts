/**
 * When the recorder takes records off the capture log (src/tap/recorder/intake.ts), on a clock of
 * the test's own (fake timers): ordinary traffic is indexed once it pauses, a burst is left in the
 * log until it has been over for a while, not at the first look that saw no growth (a reader slower
 * than the agent still reads what the sockets hold then), and a stream its reader has not drained
 * (Guard.flowing) is a burst as long as it lasts.
 */
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeRecord } from '../../src/tap/capture-log.js';
import { Intake } from '../../src/tap/recorder/intake.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'acp-inspect-intake-'));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** A live log the test appends to, and an intake on it whose hooks say what it indexed. */
function liveLog() {
  const path = join(dir, 'capture.log');
  const fd = openSync(path, 'w+');
  let end = 0;
  let flowing = false;
  let finished = false;
  const indexed: number[] = [];
  const intake = new Intake(path, 0, () => end, {
    receive: () => {},
    recordDone: (offset) => indexed.push(offset),
    finishing: () => finished,
    ready: () => true,
    startChecker: () => {},
    writerBlocked: () => false,
    flowing: () => flowing,
    warnOnce: () => {},
  });
  const running = intake.run();
  return {
    intake,
    /** Appends `n` records of `size` bytes (one agent line each). */
    append(n: number, size = 1024) {
      const line = Buffer.alloc(size, 0x61);
      line[size - 1] = 0x0a;
      for (let i = 0; i < n; i++) end += writeRecord(fd, end, 1, 0, line);
    },
    /** `looks` looks of the intake, `n` records appended before each. */
    async trickle(looks: number, n: number) {
      for (let i = 0; i < looks; i++) {
        this.append(n);
        await vi.advanceTimersByTimeAsync(20);
      }
    },
    set flowing(on: boolean) { flowing = on; },
    /** How far the log is indexed. */
    get indexedTo() { return indexed.at(-1) ?? 0; },
    get end() { return end; },
    async stop() {
      finished = true;
      intake.stop();
      await vi.advanceTimersByTimeAsync(200);
      await running;
      closeSync(fd);
    },
  };
}

describe('the recorder\'s intake', () => {
  it('indexes ordinary traffic once it pauses for a look', async () => {
    const log = liveLog();
    await vi.advanceTimersByTimeAsync(50);
    log.append(3);
    await vi.advanceTimersByTimeAsync(100);
    expect(log.indexedTo).toBe(log.end);
    await log.stop();
  });

  it('leaves a burst in the log until it has been over for a while, not just for a look', async () => {
    const log = liveLog();
    await vi.advanceTimersByTimeAsync(50);
    // A burst: more than 512 KiB between two looks, for a few looks.
    await log.trickle(5, 700);
    // Its reader still reads what the sockets hold: the log does not grow for 100 ms.
    await vi.advanceTimersByTimeAsync(100);
    expect(log.indexedTo).toBe(0);
    // More of it, then quiet for good: indexed then, all of it.
    log.append(700);
    await vi.advanceTimersByTimeAsync(20);
    expect(log.indexedTo).toBe(0);
    await vi.advanceTimersByTimeAsync(400);
    expect(log.indexedTo).toBe(log.end);
    await log.stop();
  });

  it('counts a stream not yet drained to its reader as a burst, however slowly the log grows', async () => {
    const log = liveLog();
    await vi.advanceTimersByTimeAsync(50);
    log.flowing = true;
    await log.trickle(30, 2);
    // Past the 250 ms that ordinary traffic waits at most.
    expect(log.indexedTo).toBe(0);
    log.flowing = false;
    await vi.advanceTimersByTimeAsync(400);
    expect(log.indexedTo).toBe(log.end);
    await log.stop();
  });
});
