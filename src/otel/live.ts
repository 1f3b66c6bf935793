/**
 * Live export from the tap's recorder thread: each item the recorder indexes is folded into the
 * span model, and every span that ends goes to the SDK's batching processor, which sends batches
 * from a bounded queue. Nothing here waits on the collector: a down, slow or failing one costs one
 * warning and dropped (counted) spans, never a frame.
 */
import type { Frame, Item } from '../wire/frame.js';
import type { ModelState } from '../check/model.js';
import { TraceFold, type TraceFinding } from '../trace/span-model.js';
import { redactFrame } from '../redact.js';
import { contextFromTraceparent, createPipeline, SpanEmitter, type ExportStats } from './sdk.js';
import type { OtlpTarget } from './endpoint.js';

export interface LiveTraceOptions {
  target: OtlpTarget;
  content: boolean;
  /** ISO time the recording started (its t = 0). */
  startedAt: string;
  name: string | null;
  command: string[];
  /** The live checker's model, when it runs (shared instead of folding a second one). */
  state?: ModelState;
  /** One line on the tap's stderr. */
  warn: (msg: string) => void;
  version?: string;
  /** How long the end of the session may wait for the last batches. */
  finishMs?: number;
}

export interface LiveTrace {
  step(item: Item, findings?: readonly TraceFinding[]): void;
  addFindings(findings: readonly TraceFinding[]): void;
  /** Ends the trace at `t` and sends what waits, for at most `finishMs`. */
  finish(t: number, recordingId: number | null): Promise<ExportStats>;
}

export function startLiveTrace(o: LiveTraceOptions): LiveTrace {
  let warned = false;
  const warnOnce = (msg: string) => {
    if (warned) return;
    warned = true;
    o.warn(msg);
  };
  const pipeline = createPipeline(o.target, {
    version: o.version,
    onFailure: (why) => warnOnce(`acp-inspect: OpenTelemetry: cannot send spans to ${o.target.url} (${why}); spans are dropped and counted, forwarding and recording go on`),
  });
  const epochMs = Date.parse(o.startedAt);
  // A tap started inside a traced job (TRACEPARENT set, as CI and other tools do) joins that trace.
  const emitter = new SpanEmitter(pipeline, Number.isFinite(epochMs) ? epochMs : Date.now(), contextFromTraceparent(process.env.TRACEPARENT));
  const fold = new TraceFold({
    content: o.content,
    // Content leaves the machine: credentials are redacted whatever --redact says for the store.
    redact: o.content ? (f: Frame) => redactFrame(f) : undefined,
    onEnd: (s) => emitter.end(s),
    state: o.state,
    recording: { name: o.name, command: o.command },
  });
  return {
    step: (item, findings) => fold.step(item, findings),
    addFindings: (findings) => { for (const f of findings) fold.addFinding(f); },
    async finish(t, recordingId) {
      if (recordingId !== null) fold.root.attributes['acp.recording.id'] = recordingId;
      fold.finish(t);
      const ok = await pipeline.shutdown(o.finishMs ?? 2000);
      const s = pipeline.stats;
      if (!ok) {
        const lost = s.ended - s.delivered;
        const why = pipeline.firstError() ?? `not taken within ${((o.finishMs ?? 2000) / 1000).toFixed(0)} s: unreachable, refusing or slow`;
        warnOnce(`acp-inspect: OpenTelemetry: ${lost} of ${s.ended} spans not delivered to ${o.target.url} (${why}); the recording is complete`);
      }
      if (process.env.ACP_INSPECT_DEBUG) {
        o.warn(`acp-inspect: debug: OpenTelemetry: ${s.ended} spans, ${s.delivered} delivered, ${s.failed} in batches the collector refused or did not answer, ${s.ended - s.delivered - s.failed} dropped from the full queue or not sent by the end`);
      }
      return s;
    },
  };
}
