/**
 * The grouped timeline's layout: the filtered list of items cut into sessions and prompt turns. Each
 * turn gets a header row; an expanded turn shows its item rows, a collapsed one a summary card of a
 * fixed height. Everything is measured in rows of the fixed row height, so the virtualized list maps
 * a scroll position to entries (and a list index to a position) by binary search. Pure: no DOM.
 */
import type { TimelineGroups } from '../../src/view/contract.js';

export type GroupTurn = TimelineGroups['turns'][number];

export type Entry =
  /** Item rows: list indices [from, from + size); `inTurn` when they are an expanded turn's. */
  | { kind: 'rows'; pos: number; size: number; from: number; inTurn?: boolean }
  | { kind: 'session'; pos: number; size: number; sessionId: string | null; turns: GroupTurn[] }
  | { kind: 'turn'; pos: number; size: number; turn: GroupTurn; expanded: boolean }
  | { kind: 'card'; pos: number; size: number; turn: GroupTurn };

type RowsEntry = Extract<Entry, { kind: 'rows' }>;

export class GroupLayout {
  readonly entries: Entry[] = [];
  private readonly rows: RowsEntry[] = [];
  private readonly headerPos = new Map<number, number>();
  /** Height of the whole list, in rows. */
  readonly height: number;
  private readonly turns: GroupTurn[];
  private readonly expanded: (seq: number) => boolean;

  /**
   * @param total items in the filtered list
   * @param turns turns in list order, with non-overlapping [from, to) ranges
   * @param cardRows height of a collapsed turn's summary card, in rows (one for all, or by turn seq)
   */
  constructor(total: number, turns: readonly GroupTurn[], expanded: (seq: number) => boolean, cardRows: number | ((seq: number) => number),
    sessions: readonly { sessionId: string; from: number }[] = []) {
    this.expanded = expanded;
    this.turns = turns.filter((t) => t.from < t.to && t.from < Math.max(total, t.to));
    let pos = 0;
    let idx = 0;
    let session: { sessionId: string | null; turns: GroupTurn[] } | null = null;
    const push = (e: Entry) => {
      this.entries.push(e);
      if (e.kind === 'rows') this.rows.push(e);
      else if (e.kind === 'turn') this.headerPos.set(e.turn.seq, e.pos);
      pos += e.size;
    };
    const rowsUpTo = (i: number) => { if (i > idx) { push({ kind: 'rows', pos, size: i - idx, from: idx }); idx = i; } };
    const startSession = (sessionId: string | null): { sessionId: string | null; turns: GroupTurn[] } => {
      const run = { sessionId, turns: [] as GroupTurn[] };
      push({ kind: 'session', pos, size: 1, ...run });
      return run;
    };
    // A session's header goes before its first item, or before the first of a run of its turns.
    let k = 0;
    const firsts = sessions.filter((x) => x.from < total);
    for (const t of this.turns) {
      for (; k < firsts.length && firsts[k]!.from <= t.from; k++) {
        const x = firsts[k]!;
        if (x.from < idx || (x.from === t.from && x.sessionId === t.sessionId)) continue;
        rowsUpTo(x.from);
        session = startSession(x.sessionId);
      }
      rowsUpTo(t.from);
      if (!session || session.sessionId !== t.sessionId) session = startSession(t.sessionId);
      session.turns.push(t);
      const open = expanded(t.seq);
      push({ kind: 'turn', pos, size: 1, turn: t, expanded: open });
      if (open) push({ kind: 'rows', pos, size: t.to - t.from, from: t.from, inTurn: true });
      else push({ kind: 'card', pos, size: typeof cardRows === 'number' ? cardRows : cardRows(t.seq), turn: t });
      idx = t.to;
    }
    for (; k < firsts.length; k++) {
      const x = firsts[k]!;
      if (x.from < idx) continue;
      rowsUpTo(x.from);
      session = startSession(x.sessionId);
    }
    rowsUpTo(total);
    this.height = pos;
  }

  /** Index in `entries` of the entry at display row `pos` (the last one when past the end). */
  entryAt(pos: number): number {
    let lo = 0;
    let hi = this.entries.length - 1;
    let best = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.pos <= pos) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return best;
  }

  /** The turn whose range holds list index i. */
  turnOf(i: number): GroupTurn | undefined {
    let lo = 0;
    let hi = this.turns.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = this.turns[mid]!;
      if (i < t.from) hi = mid - 1;
      else if (i >= t.to) lo = mid + 1;
      else return t;
    }
    return undefined;
  }

  /** True when list index i is hidden in a collapsed turn (its first item stands for the turn's header). */
  hidden(i: number): boolean {
    const t = this.turnOf(i);
    return t !== undefined && i !== t.from && !this.expanded(t.seq);
  }

  /** Display row of list index i; a hidden item is shown by its turn's header. */
  posOf(i: number): number {
    const t = this.turnOf(i);
    if (t && !this.expanded(t.seq)) return this.headerPos.get(t.seq) ?? 0;
    let lo = 0;
    let hi = this.rows.length - 1;
    let best: RowsEntry | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.rows[mid]!.from <= i) { best = this.rows[mid]; lo = mid + 1; } else hi = mid - 1;
    }
    if (!best) return 0;
    return best.pos + Math.min(i - best.from, best.size - 1);
  }

  /** The next visible list index from i in direction dir (skipping the inside of collapsed turns), clamped to [0, total). */
  step(i: number, dir: 1 | -1, total: number): number {
    let n = Math.max(0, Math.min(total - 1, i + dir));
    const t = this.turnOf(n);
    if (t && n !== t.from && !this.expanded(t.seq)) n = dir === 1 ? (t.to < total ? t.to : t.from) : t.from;
    return n;
  }
}
