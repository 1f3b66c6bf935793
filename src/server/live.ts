/**
 * The live bus: watches the database for writes by other processes (taps run by editors write to the
 * same SQLite file in WAL mode) and tells subscribers what changed. Polls `PRAGMA data_version`, which
 * changes only when another connection commits, every `intervalMs` (250 ms): one cheap pragma per
 * tick while nothing happens. On a change it compares the recordings' counters with the last
 * snapshot and reads only the new rows. Writes made through the server's own connection call
 * `poke()`, since data_version does not see them.
 */
import type { Store } from '../store/store.js';
import type { LiveEvent, StoredFinding } from '../view/contract.js';
import { rowsAfter } from './queries.js';
import type { ModelCache } from './model-cache.js';

interface Snapshot {
  items: number;
  maxSeq: number;
  findingsRowid: number;
  findingCount: number;
  status: string;
  sig: string;
  /** Changes when a note of the recording is added, edited or deleted. */
  notes: string;
}

export interface LiveSubscriber {
  /** Recording whose new rows and findings this subscriber wants (others get only list changes). */
  recordingId: number | null;
  send(ev: LiveEvent): void;
}

export class LiveBus {
  private subs = new Set<LiveSubscriber>();
  private timer: NodeJS.Timeout | null = null;
  private dataVersion = -1;
  private snap = new Map<number, Snapshot>();
  private ticks = 0;

  constructor(private readonly store: Store, private readonly models: ModelCache | null, private readonly intervalMs = 250) {}

  subscribe(s: LiveSubscriber): () => void {
    this.subs.add(s);
    if (!this.timer) {
      this.snapshotAll();
      this.timer = setInterval(() => this.tick(), this.intervalMs);
      this.timer.unref?.();
    }
    return () => {
      this.subs.delete(s);
      if (this.subs.size === 0) this.stop();
    };
  }

  get subscribers(): number {
    return this.subs.size;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Something changed through our own connection: look now. */
  poke(): void {
    if (this.subs.size) this.diff();
  }

  private tick(): void {
    try {
      // Every ~2 s: recordings whose tap died are marked interrupted, so they stop looking live.
      if (++this.ticks % 8 === 0) {
        try { this.store.markInterrupted(); } catch { /* locked: next time */ }
      }
      const v = this.store.db.pragma('data_version', { simple: true }) as number;
      if (v === this.dataVersion) return;
      this.dataVersion = v;
      this.diff();
    } catch {
      // A locked or busy database: try again on the next tick.
    }
  }

  private readAll(): Map<number, Snapshot> {
    const rows = this.store.db.prepare(`SELECT r.id, r.item_count, r.status, r.error_count, r.warning_count, r.info_count, r.ended_at,
        r.name, r.agent_name, r.client_name, r.duration_ms,
        (SELECT MAX(seq) FROM items i WHERE i.recording_id = r.id) AS max_seq,
        (SELECT MAX(rowid) FROM findings f WHERE f.recording_id = r.id) AS f_rowid,
        (SELECT COUNT(*) FROM findings f WHERE f.recording_id = r.id) AS f_count,
        (SELECT COUNT(*) || ':' || COALESCE(MAX(id), 0) || ':' || COALESCE(MAX(updated_at), '') FROM notes n WHERE n.recording_id = r.id) AS n_sig
      FROM recordings r`).all() as Record<string, unknown>[];
    const out = new Map<number, Snapshot>();
    for (const r of rows) {
      out.set(r.id as number, {
        items: r.item_count as number, maxSeq: (r.max_seq as number | null) ?? 0, findingsRowid: (r.f_rowid as number | null) ?? 0,
        findingCount: r.f_count as number, status: r.status as string, notes: r.n_sig as string,
        sig: JSON.stringify([r.item_count, r.status, r.error_count, r.warning_count, r.info_count, r.ended_at, r.name, r.agent_name, r.client_name, r.duration_ms]),
      });
    }
    return out;
  }

  private snapshotAll(): void {
    try {
      this.dataVersion = this.store.db.pragma('data_version', { simple: true }) as number;
      this.snap = this.readAll();
    } catch { /* next tick */ }
  }

  /** Whether a subscriber (a page) follows this recording. */
  watching(recordingId: number): boolean {
    for (const s of this.subs) if (s.recordingId === recordingId) return true;
    return false;
  }

  /** Sends an event to the subscribers of one recording. */
  broadcastTo(recordingId: number, ev: LiveEvent): void {
    this.broadcast(ev, recordingId);
  }

  private broadcast(ev: LiveEvent, recordingId: number | null): void {
    for (const s of this.subs) {
      if (recordingId !== null && s.recordingId !== recordingId) continue;
      try { s.send(ev); } catch { /* a closed stream unsubscribes itself */ }
    }
  }

  private diff(): void {
    const next = this.readAll();
    let listChanged = false;
    for (const [id, prev] of this.snap) {
      if (!next.has(id)) {
        listChanged = true;
        this.models?.drop(id);
        this.broadcast({ type: 'deleted', recordingId: id }, id);
      }
    }
    const watched = new Set([...this.subs].map((s) => s.recordingId).filter((x): x is number => x !== null));
    for (const [id, cur] of next) {
      const prev = this.snap.get(id);
      if (!prev || prev.sig !== cur.sig) listChanged = true;
      if (!prev) continue;
      if (!watched.has(id)) continue;
      if (cur.sig !== prev.sig) {
        const rec = this.store.getRecording(id);
        if (rec) this.broadcast({ type: 'recording', recording: rec }, id);
      }
      if (cur.maxSeq > prev.maxSeq) {
        // Read in bounded batches so one huge burst never blocks the loop for long.
        let after = prev.maxSeq;
        while (after < cur.maxSeq) {
          const rows = rowsAfter(this.store, id, after, 2000);
          if (rows.length === 0) break;
          if (this.models?.ensureSummaries(id, rows[rows.length - 1]!.seq)) {
            for (const r of rows) {
              const s = this.models!.summaryAt(id, r.seq);
              if (s !== undefined) r.state = s;
            }
          }
          after = rows[rows.length - 1]!.seq;
          this.broadcast({ type: 'items', recordingId: id, rows, maxSeq: after }, id);
        }
      }
      if (cur.findingsRowid !== prev.findingsRowid || cur.findingCount !== prev.findingCount) {
        const replaced = cur.findingCount < prev.findingCount + (cur.findingsRowid - prev.findingsRowid) || cur.findingsRowid < prev.findingsRowid;
        const findings = this.store.db.prepare(`SELECT seq, severity, rule, message, spec FROM findings WHERE recording_id = ? AND rowid > ? ORDER BY rowid`)
          .all(id, replaced ? 0 : prev.findingsRowid) as StoredFinding[];
        this.broadcast({ type: 'findings', recordingId: id, findings, ...(replaced ? { replaced: true } : {}) }, id);
      }
      if (cur.notes !== prev.notes) this.broadcast({ type: 'notes', recordingId: id, notes: this.store.readNotes(id) }, id);
    }
    this.snap = next;
    if (listChanged) this.broadcast({ type: 'recordings' }, null);
  }
}
