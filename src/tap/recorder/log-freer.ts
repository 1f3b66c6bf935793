/**
 * Gives back the disk blocks of the part of a capture log that is indexed: a hole is punched in it
 * (native.ts: fallocate's PUNCH_HOLE, the file's size kept, so every offset stays valid), below where
 * the database says indexing got, once that is on the database's disk. Without it a flood's log stayed
 * whole on disk while its database was built beside it, and the store peaked at about 2.5 times the
 * traffic. The log's header record stays (the claim and the orphan check read it).
 *
 * Nothing reads a log below where indexing got: an indexer reads forward from there (intake.ts), and
 * the state saved with it holds the lines in progress (lines.ts), not where they began. So the freed
 * part is never read, by this indexer or by the next one that resumes the log.
 *
 * Only where the native module is built and the filesystem can punch holes; elsewhere (and with
 * ACP_INSPECT_NATIVE=0) the log keeps its blocks until it is removed, as before.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { RECORD_HEADER, pad8 } from '../capture-log.js';
import { loadNativeForwarder } from '../native.js';

/** Blocks are given back in steps of at least this much (a punch per batch would be a syscall per batch for a few KiB). */
export const FREE_STEP_BYTES = 8 * 1024 * 1024;

export class LogFreer {
  /** The log, open for writing (punching needs it); null: not yet, -1: cannot be (no native module, refused). */
  private fd: number | null = null;
  /** Freed up to here (a multiple of the filesystem's block); starts past the header record. */
  private freedTo = 0;
  private block = 4096;
  /** Bytes given back so far. */
  freed = 0;

  constructor(private readonly path: string) {}

  /** The log is indexed up to `to`, and the database says so on its disk: frees what lies before it. */
  freeTo(to: number): void {
    if (this.fd === -1 || (this.fd === null && !this.open())) return;
    const end = to - (to % this.block);
    if (end - this.freedTo < FREE_STEP_BYTES) return;
    const err = loadNativeForwarder()!.punchHole!(this.fd!, this.freedTo, end - this.freedTo);
    if (err !== 0) {
      // EOPNOTSUPP (a filesystem without holes), or anything else: the log keeps its blocks.
      this.close();
      return;
    }
    this.freed += end - this.freedTo;
    this.freedTo = end;
  }

  close(): void {
    if (this.fd !== null && this.fd >= 0) {
      try { closeSync(this.fd); } catch { /* already closed */ }
    }
    this.fd = -1;
  }

  private open(): boolean {
    this.fd = -1;
    if (!loadNativeForwarder()?.punchHole) return false;
    let fd = -1;
    try {
      fd = openSync(this.path, 'r+');
      const head = Buffer.alloc(RECORD_HEADER);
      if (readSync(fd, head, 0, RECORD_HEADER, 0) !== RECORD_HEADER) throw new Error('no header');
      const headerEnd = RECORD_HEADER + pad8(head.readUInt32LE(0));
      this.block = fstatSync(fd).blksize || 4096;
      this.freedTo = Math.ceil(headerEnd / this.block) * this.block;
    } catch {
      if (fd >= 0) closeSync(fd);
      return false;
    }
    this.fd = fd;
    return true;
  }
}
