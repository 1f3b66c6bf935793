/**
 * The Compare view's read model: two recordings aligned frame by frame by replay's ACP-aware matcher
 * (`diffRecordings`: volatile ids and paths normalised, reordering within a scope tolerated), laid out
 * as one list in the order of the first recording, with the second's extra frames placed after the
 * frame of the first that their predecessor matched. Divergent rows carry the path-level differences
 * and a unified diff. Pure: recordings in, a CompareResult out.
 */
import type { Recording } from '../transcript/format.js';
import { isFrame, type Frame } from '../wire/frame.js';
import { diffFrames } from '../replay/diff-recordings.js';
import { isTextChunk } from '../replay/merge-chunks.js';
import { describeFrame, type Divergence } from '../replay/aligner.js';
import { describeDiffs, IgnoreSet } from '../replay/json-diff.js';
import { framePatch, summarize } from '../replay/report.js';
import { previewOf } from '../view/preview.js';
import { LazyJsonFrame } from '../replay/lazy-frame.js';
import type { CompareFrame, CompareResult, CompareRow } from '../view/contract.js';

/** Unified diffs are included for at most this many rows (the rest say so). */
export const MAX_PATCHES = 2000;

function side(f: Frame): CompareFrame {
  const out: CompareFrame = { seq: f.seq, t: f.t, dir: f.dir as 'c2a' | 'a2c', label: describeFrame(f), preview: previewOf(f.dir, f.kind, f.method ?? null, f.raw, f.parseError ?? null, f.json) };
  // A row is built once: the frame's JSON need not stay parsed.
  if (f instanceof LazyJsonFrame) f.release();
  return out;
}

export interface CompareOptions {
  /** Paths declared volatile (`--ignore` of `acp-inspect diff`). */
  ignore?: string[];
  /** Compare streamed message chunks as whole messages. */
  mergeChunks?: boolean;
}

export function compareRecordings(a: Recording, b: Recording, opts: CompareOptions = {}): Omit<CompareResult, 'a' | 'b'> {
  return compareFrames(a.items.filter(isFrame), b.items.filter(isFrame), opts);
}

/** Status of each row as one letter (`CompareIndex.statuses`): same, changed, missing, extra, merged. */
export const STATUS_LETTER: Record<CompareRow['status'], string> = { same: 's', changed: 'c', missing: 'm', extra: 'x', merged: 'g' };

const STATUS_CODE = Object.fromEntries(Object.entries(STATUS_LETTER).map(([k, v]) => [k, v.charCodeAt(0)])) as Record<CompareRow['status'], number>;

/** One-byte character codes as a string. */
function latin1(codes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.subarray(i, i + 8192));
  return out;
}

/**
 * Numbers by seq (a positive integer), in an array indexed by seq: seqs of a recording are dense,
 * and 100k lookups in a Map cost several times more.
 */
class SeqIndex {
  private readonly values: number[] = [];
  set(seq: number, v: number): void {
    while (this.values.length < seq) this.values.push(-1);
    this.values[seq] = v;
  }
  /** The number at `seq`, or undefined. */
  get(seq: number): number | undefined {
    const v = seq < this.values.length ? this.values[seq]! : -1;
    return v === -1 ? undefined : v;
  }
}

/** A comparison's totals, as the whole answer and the paged one give them. */
export type CompareSummary = Omit<CompareResult, 'a' | 'b' | 'rows'>;

/**
 * Two recordings aligned, with the rows laid out but not built: `row(i)` builds one row as the
 * whole answer has it (previews, path differences, unified diff), so a view can ask only for the
 * rows on screen. Holds the first recording's frames (their JSON dropped once compared) and the
 * second's that a row shows whole.
 */
export class Comparison {
  readonly summary: CompareSummary;
  /** One letter per row (`STATUS_LETTER`), in row order. */
  readonly statuses: string;
  private readonly rowFrames: Frame[];
  private readonly rowFromB: Uint8Array;
  private readonly patchOrdinal: Int32Array;
  private readonly bByA: SeqIndex;
  private readonly indexB: SeqIndex;
  private readonly tB: number[];
  private readonly dirB: Array<'c2a' | 'a2c'>;
  private readonly keptB: Map<number, Frame>;
  private readonly changedByA: Map<number, Divergence & { kind: 'changed' }>;
  private readonly missingByA: Map<number, Divergence & { kind: 'missing' }>;
  private readonly extraByB: Map<number, Divergence & { kind: 'extra' }>;
  private readonly patchOpts: Parameters<typeof framePatch>[2];

  /** The first recording's side of matched rows, built while its JSON was parsed (when every row is wanted). */
  private readonly sidesA: Map<number, CompareFrame> | undefined;

  /**
   * `allRows`: every row will be built (the whole answer): the first recording's side of a matched
   * row is built while the frame's JSON is parsed for matching, instead of parsing it again.
   */
  constructor(framesA: readonly Frame[], framesB: Iterable<Frame>, opts: CompareOptions = {}, allRows = false) {
    const ignore = new IgnoreSet(opts.ignore ?? []);
    const sidesA = allRows ? new Map<number, CompareFrame>() : undefined;
    // Of b: every frame's seq, t and dir, in order; whole only the frames unmatched or matched with
    // differences, and with mergeChunks the text chunks (a merged message may differ where its chunks did not).
    const seqB: number[] = [];
    const tB: number[] = [];
    const dirB: Array<'c2a' | 'a2c'> = [];
    const keptB = new Map<number, Frame>();
    const d = diffFrames(framesA, framesB, {
      ignore,
      mergeChunks: opts.mergeChunks,
      onLive: (f, obs) => {
        seqB.push(f.seq);
        tB.push(f.t);
        dirB.push(f.dir as 'c2a' | 'a2c');
        if (!obs.matched || obs.diffs.length > 0 || (opts.mergeChunks && isTextChunk(f))) keptB.set(f.seq, f);
        if (sidesA && obs.matched) sidesA.set(obs.recorded.seq, side(obs.recorded));
      },
    });
    const bByA = new SeqIndex();
    const aByB = new SeqIndex();
    for (const [sa, sb] of d.pairs) { bByA.set(sa, sb); aByB.set(sb, sa); }
    const indexB = new SeqIndex();
    for (let i = 0; i < seqB.length; i++) indexB.set(seqB[i]!, i);

    const changedByA = new Map<number, Divergence & { kind: 'changed' }>();
    const missingByA = new Map<number, Divergence & { kind: 'missing' }>();
    const extraByB = new Map<number, Divergence & { kind: 'extra' }>();
    for (const x of d.divergences) {
      if (x.kind === 'changed') changedByA.set(x.recorded.seq, x);
      else if (x.kind === 'missing') missingByA.set(x.recorded.seq, x);
      else extraByB.set(x.live.seq, x);
    }

    // Extra frames of b, grouped by the a-frame after which they go (0: before everything).
    const extrasAfter = new Map<number, Frame[]>();
    let lastA = 0;
    let extras = 0;
    for (const seq of seqB) {
      const sa = aByB.get(seq);
      if (sa !== undefined) { lastA = Math.max(lastA, sa); continue; }
      const f = keptB.get(seq)!;
      const list = extrasAfter.get(lastA);
      if (list) list.push(f); else extrasAfter.set(lastA, [f]);
      extras++;
    }

    // The rows in order: each the frame it shows first, from a or from b, its status, and the how
    // many-th unified diff it would be (the whole answer includes the first MAX_PATCHES).
    const n = framesA.length + extras;
    const rowFrames: Frame[] = new Array<Frame>(n);
    const rowFromB = new Uint8Array(n);
    const patchOrdinal = new Int32Array(n).fill(-1);
    const status = new Uint8Array(n);
    let patches = 0;
    let divergent = 0;
    let i = 0;
    const put = (f: Frame, fromB: boolean, st: CompareRow['status'], patch: boolean): void => {
      rowFrames[i] = f;
      rowFromB[i] = fromB ? 1 : 0;
      if (patch) patchOrdinal[i] = patches++;
      if (st !== 'same' && st !== 'merged') divergent++;
      status[i] = STATUS_CODE[st];
      i++;
    };
    const putExtras = (after: number) => {
      for (const f of extrasAfter.get(after) ?? []) {
        if (extraByB.has(f.seq)) put(f, true, 'extra', true);
        else put(f, true, 'merged', false);
      }
    };
    putExtras(0);
    for (const f of framesA) {
      const sb = bByA.get(f.seq);
      if (sb !== undefined) {
        if (changedByA.has(f.seq)) put(f, false, 'changed', true);
        else put(f, false, 'same', false);
      } else if (missingByA.has(f.seq)) put(f, false, 'missing', true);
      else if (changedByA.has(f.seq)) put(f, false, 'changed', true);
      else put(f, false, 'merged', false);
      putExtras(f.seq);
    }

    const s = summarize(d.divergences);
    this.summary = {
      same: d.same, matched: d.matched, framesA: d.framesA, framesB: d.framesB,
      changed: s.changed, missing: s.missing, extra: s.extra,
      patchesCut: patches >= MAX_PATCHES && divergent > MAX_PATCHES,
      ignore: opts.ignore ?? [], mergeChunks: opts.mergeChunks === true,
    };
    this.statuses = latin1(status);
    this.rowFrames = rowFrames;
    this.rowFromB = rowFromB;
    this.patchOrdinal = patchOrdinal;
    this.bByA = bByA;
    this.indexB = indexB;
    this.tB = tB;
    this.dirB = dirB;
    this.keptB = keptB;
    this.changedByA = changedByA;
    this.missingByA = missingByA;
    this.extraByB = extraByB;
    this.patchOpts = { map: d.map, ignore, recordedLabel: 'a', liveLabel: 'b' };
    this.sidesA = sidesA;
  }

  /** The first recording's side of a row. */
  private sideA(f: Frame): CompareFrame {
    return this.sidesA?.get(f.seq) ?? side(f);
  }

  get length(): number {
    return this.statuses.length;
  }

  /** Row `i` as the whole answer has it. */
  row(i: number): CompareRow {
    const f = this.rowFrames[i]!;
    const ord = this.patchOrdinal[i]!;
    const patchOf = (rec: Frame | undefined, live: Frame | undefined): string | undefined =>
      (ord >= 0 && ord < MAX_PATCHES ? framePatch(rec, live, this.patchOpts) : undefined);
    if (this.rowFromB[i]) {
      const x = this.extraByB.get(f.seq);
      if (!x) return { status: 'merged', b: side(f) };
      const row: CompareRow = { status: 'extra', b: side(f), reason: x.reason };
      if (x.nearest) {
        row.nearest = x.nearest.seq;
        row.diffs = describeDiffs(x.diffs, { recorded: 'a', live: 'b' });
      }
      const p = patchOf(x.nearest, x.live);
      if (p !== undefined) row.patch = p;
      return row;
    }
    const sb = this.bByA.get(f.seq);
    const changed = this.changedByA.get(f.seq);
    if (sb !== undefined) {
      if (changed) {
        const row: CompareRow = { status: 'changed', a: this.sideA(f), b: side(this.keptB.get(sb)!), diffs: describeDiffs(changed.diffs, { recorded: 'a', live: 'b' }) };
        const p = patchOf(changed.recorded, changed.live);
        if (p !== undefined) row.patch = p;
        return row;
      }
      // Equal once normalised: the b side needs only its position (keeps big comparisons small).
      const k = this.indexB.get(sb)!;
      return { status: 'same', a: this.sideA(f), b: { seq: sb, t: this.tB[k]!, dir: this.dirB[k]! } };
    }
    const m = this.missingByA.get(f.seq);
    if (m) {
      const row: CompareRow = { status: 'missing', a: this.sideA(f), ...(m.reason ? { reason: m.reason } : {}) };
      const p = patchOf(m.recorded, undefined);
      if (p !== undefined) row.patch = p;
      return row;
    }
    if (changed) {
      // Merged chunks that differ: the change is reported on the first chunk of the message.
      const row: CompareRow = { status: 'changed', a: this.sideA(f), diffs: describeDiffs(changed.diffs, { recorded: 'a', live: 'b' }), reason: 'streamed chunks merged into one message' };
      const p = patchOf(changed.recorded, changed.live);
      if (p !== undefined) row.patch = p;
      return row;
    }
    return { status: 'merged', a: this.sideA(f) };
  }

  /** Rows `from` to `to` (exclusive). */
  rows(from = 0, to = this.length): CompareRow[] {
    const out: CompareRow[] = [];
    for (let i = Math.max(0, from); i < Math.min(to, this.length); i++) out.push(this.row(i));
    return out;
  }
}

/**
 * `compareRecordings` on frames; `framesB` is read once, in order, so it may come from a cursor: of
 * the second recording only the position of each frame is kept, and the frames its rows show whole.
 */
export function compareFrames(framesA: readonly Frame[], framesB: Iterable<Frame>, opts: CompareOptions = {}): Omit<CompareResult, 'a' | 'b'> {
  const c = new Comparison(framesA, framesB, opts, true);
  const { same, matched, framesA: nA, framesB: nB, changed, missing, extra, ...rest } = c.summary;
  return { same, matched, framesA: nA, framesB: nB, changed, missing, extra, rows: c.rows(), ...rest };
}
