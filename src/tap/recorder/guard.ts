/**
 * The flags the recorder shares with the forwarding thread (see RecorderConfig.guard):
 * [0] inside SQLite, [1] stop, [2] progress counter, [3] finish record handed on, [4] still handing on
 * what it recorded (see flowing).
 */

/** Thrown by `sql()` once the tap is exiting: no new SQLite call may start. */
export class Stopping extends Error {}

export class Guard {
  private readonly flags: Int32Array | null;

  constructor(sab: SharedArrayBuffer | undefined) {
    this.flags = sab ? new Int32Array(sab) : null;
  }

  /**
   * Runs a SQLite call, marking it in slot 0. Before the tap exits, the forwarding thread raises
   * "stop" and waits for the mark to clear: a thread terminated while inside better-sqlite3 (a call
   * waiting on a locked database) aborts the whole process, taking the agent's exit code with it.
   * Order matters: mark first, then check stop (the other side sets stop, then reads the mark), so
   * one of the two always sees the other.
   */
  sql<T>(fn: () => T): T {
    const g = this.flags;
    if (!g) return fn();
    Atomics.store(g, 0, 1);
    try {
      if (Atomics.load(g, 1) === 1) throw new Stopping('the tap is exiting');
      const r = fn();
      this.progressed(); // a write done is progress: the tap's exit waits while we advance
      return r;
    } finally {
      Atomics.store(g, 0, 0);
      Atomics.notify(g, 0);
    }
  }

  /** Shared progress counter (slot 2): the forwarding thread waits for a recorder that advances. */
  progressed(): void {
    const g = this.flags;
    if (g && g.length > 2) Atomics.add(g, 2, 1);
  }

  /**
   * Whether the tap is still handing on what it recorded (slot 4): the remote bridge records a
   * message before the editor has it, and writes to the editor do not wait, so a stream the editor
   * reads more slowly than it arrives is recorded ahead of it. Until it is handed on, it is traffic
   * still arriving: indexing it then would compete with the editor reading it (see intake.ts).
   */
  flowing(): boolean {
    const g = this.flags;
    return g !== null && g.length > 4 && Atomics.load(g, 4) === 1;
  }

  /** Whether the forwarding thread has handed on the finish record (slot 3; true without a guard). */
  finishSent(): boolean {
    const g = this.flags;
    return !g || g.length <= 3 || Atomics.load(g, 3) === 1;
  }
}
