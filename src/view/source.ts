/**
 * The one interface the UI reads a recording through. Two implementations: the HTTP API of
 * `acp-inspect serve` (ui/src/api.ts) and MemorySource (memory-source.ts), built from a parsed
 * transcript, which the self-contained HTML report and the static viewer use. Views never know
 * which one they read: filters, turn grouping and states come out the same from both
 * (test/view/sources.test.ts feeds one recording through both and compares).
 *
 * A new read model (a waterfall of spans, playback, notes) is one more method here, answered by a
 * query in server/queries.ts for the HTTP side and by MemorySource for the other; everything a
 * read model needs (items, findings, states) is in both.
 */
import type {
  FindingView, ItemDetail, ItemState, MethodStats, RecordingSummary, TimelineGroups, TimelinePage, TurnDetail, TurnInfo,
} from './contract.js';
import type { Waterfall } from './waterfall.js';
import type { Insights } from './insights.js';

export interface Position {
  /** Index of the item in the filtered list (or of the first item after it). */
  index: number;
  matches: boolean;
  total: number;
  /** Set while the filter is still being run over a large recording: `total` is a lower bound. */
  partial?: true;
}

export interface DataSource {
  /**
   * What this source offers beyond reading finished recordings: a list of many recordings, a live
   * stream of growing ones, import and delete, compare. The views leave out what is not offered.
   */
  readonly caps: { list: boolean; live: boolean; manage: boolean; compare: boolean };
  recording(id: number): Promise<RecordingSummary>;
  /** A page of the timeline filtered by `q` (the filter language of view/filter.ts). */
  page(id: number, q: string, offset: number, limit: number, signal?: AbortSignal): Promise<TimelinePage>;
  position(id: number, q: string, seq: number): Promise<Position>;
  /** One item with its pair, findings, the model state after it and the entity it patches. */
  /**
   * `signal` aborts the request (the selection moved on before the detail came). With `withState`
   * false a source may leave `state` out (the served API does: the state can take seconds to fold far
   * down a large recording) and give it through `itemState`; a source without `itemState` always
   * includes it.
   */
  item(id: number, seq: number, signal?: AbortSignal, withState?: boolean): Promise<ItemDetail>;
  /** The model state after item `seq` alone, for a detail asked for without it. */
  itemState?(id: number, seq: number, signal?: AbortSignal): Promise<ItemState>;
  findings(id: number): Promise<FindingView[]>;
  stats(id: number): Promise<MethodStats[]>;
  /** Prompt turns laid over the timeline filtered by `q`. */
  groups(id: number, q: string): Promise<TimelineGroups>;
  turns(id: number): Promise<TurnInfo[]>;
  /** A turn's card; with `upTo`, the turn as it stood after item `upTo` (playback). */
  turn(id: number, seq: number, upTo?: number): Promise<TurnDetail>;
  /** The recording's spans for the waterfall, its idle gaps and every item's time (view/waterfall.ts). */
  waterfall(id: number): Promise<Waterfall>;
  /** Latency, turn, tool, permission, throughput and error statistics with automatic insights (view/insights.ts). */
  insights(id: number): Promise<Insights>;
  /** The recording's notes (and bare marks, with empty text) in seq order. */
  notes(id: number): Promise<NoteView[]>;
  /**
   * One prompt turn (any seq of it) cut as a test fixture: a self-consistent transcript with the
   * set-up it depends on (transcript/slice.ts), named for a download, with what the cut could not do.
   */
  fixture(id: number, turn: number): Promise<FixtureFile>;
}

export interface FixtureFile {
  name: string;
  text: string;
  warnings: string[];
}

/**
 * A note on one item as the views show it. `id` names it for editing where the source can write
 * (serve's store); a source in memory numbers its notes 1.. in order. Times are ISO 8601 or null.
 */
export interface NoteView {
  id: number;
  seq: number;
  text: string;
  createdAt: string | null;
  updatedAt: string | null;
}

/**
 * The calls of a DataSource, by name: a source in a worker (the viewer's) forwards exactly these.
 * A new read model added to DataSource must be added here too (the compiler says so).
 */
export const SOURCE_CALLS = ['recording', 'page', 'position', 'item', 'findings', 'stats', 'groups', 'turns', 'turn', 'waterfall', 'insights', 'notes', 'fixture'] as const satisfies readonly (keyof DataSource)[];
// itemState is optional and left out: a source in memory gives the state with the detail.
type Unlisted = Exclude<keyof DataSource, 'caps' | 'itemState' | (typeof SOURCE_CALLS)[number]>;
const everyCallListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyCallListed;

/** An error a source answers with (a bad filter, an unknown item): `status` as the HTTP API would say it. */
export class SourceError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}
