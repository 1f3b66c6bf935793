// Marks a text chunk frame that a recogniser made (chunk-line.ts's textChunkFrame, for every frame
// recognised in the SDK's form: its raw text is exactly F_HEAD, session id, F_KIND, update kind,
// F_TEXT, text body, F_TAIL) with its update kind, as a private field (see Stamp): a spread copy, as
// redaction makes, is not marked. The store reads it to fill its `chunk` column (see lazy-chunk.ts's
// chunkColumnOf). No imports: chunk-line.ts and lazy-chunk.ts both use it. Pure.

/**
 * Puts a private field on an existing object (a base constructor that returns its argument makes
 * the derived one's `this` that object): hidden state, which no reader sees (not a key, not a
 * symbol, not cloned, not copied by a spread) and which costs no property definition at run time.
 */
export class Stamp {
  constructor(o: object) {
    return o;
  }
}
class Chunk extends Stamp {
  #update: number;
  constructor(o: object, update: number) {
    super(o);
    this.#update = update;
  }

  static of(o: object): number {
    return #update in o ? (o as Chunk).#update : -1;
  }
}

/** Marks the new frame `f` (never marked before) as a recognised text chunk frame of update kind `update`. */
export function stampChunk(f: object, update: number): void {
  new Chunk(f, update);
}

/** The update kind a frame was marked with by stampChunk, else -1. */
export function chunkStampOf(f: object): number {
  return Chunk.of(f);
}
