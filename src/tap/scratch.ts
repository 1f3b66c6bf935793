/**
 * Scratch files for bytes the recorder has not indexed yet: the recorder's spill file (bursts it
 * captures) and the forwarding thread's overflow file (what arrives while the ring is full). They go
 * to shared memory (/dev/shm) where there is one, else the temp folder: a burst is captured at the
 * speed the kernel hands out new pages for the file, and on a disk file system that is slower than
 * a fast agent writes (a few ms per MiB, against ~0.5 in memory). Owner-only, and unlinked as soon
 * as they are opened, so nothing is left behind whatever happens to the tap.
 */
import { openSync, unlinkSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const DIRS = ['/dev/shm', tmpdir()];

/**
 * A name no other file has: the pid, the time and a random part. It need not be unguessable: the
 * file is created exclusively ('wx', owner-only), so a name taken by anyone else fails the open
 * instead of being used. (Not node:crypto: loading it costs the tap's start-up about 3 ms.)
 */
function uniqueName(kind: string): string {
  return `acp-inspect-${kind}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export function openScratchFile(kind: string): number {
  let err: unknown = null;
  for (const dir of DIRS) {
    const path = join(dir, uniqueName(kind));
    try {
      const fd = openSync(path, 'wx+', 0o600);
      try { unlinkSync(path); } catch { /* left for the folder's cleanup */ }
      return fd;
    } catch (e) {
      err = e;
    }
  }
  throw err;
}

/** Writes all of `parts` at `pos` (writev may write less than asked: goes on from there). */
export function writeAllAt(fd: number, parts: Uint8Array[], pos: number): number {
  const len = parts.reduce((a, p) => a + p.length, 0);
  let done = 0;
  while (done < len) {
    let skip = done;
    let i = 0;
    while (skip >= parts[i]!.length) skip -= parts[i++]!.length;
    const rest = [parts[i]!.subarray(skip), ...parts.slice(i + 1)];
    const n = writevSync(fd, rest, pos + done);
    if (n <= 0) throw new Error('scratch write made no progress');
    done += n;
  }
  return len;
}
