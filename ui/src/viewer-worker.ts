/**
 * The viewer's worker: reads a transcript, parses and correlates it, runs the protocol checker and
 * folds the model's states, then answers the page's data-source calls from a MemorySource, so the
 * page stays responsive while a large recording is checked. It makes no request.
 */
import { parseTranscript } from '../../src/transcript/format.js';
import { CheckFold } from '../../src/check/fold.js';
import { RULES, summarizeState } from '../../src/check/index.js';
import { recordingData } from '../../src/view/report-data.js';
import { MemorySource } from '../../src/view/memory-source.js';
import { SourceError } from '../../src/view/source.js';
import type { ToWorker, FromWorker } from './viewer-protocol.js';

let src: MemorySource | null = null;
const post = (m: FromWorker) => (self as unknown as Worker).postMessage(m);

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  if (m.type === 'open') {
    try {
      const t0 = performance.now();
      const text = typeof m.data === 'string' ? m.data : await m.data.text();
      const rec = parseTranscript(text);
      post({ type: 'progress', message: `parsed ${rec.items.length.toLocaleString()} items; checking…` });
      const fold = new CheckFold([]);
      for (const item of rec.items) fold.step(item);
      const run = fold.finish();
      const data = recordingData(rec, run.findings, RULES, summarizeState, '');
      if (!rec.header.name && m.name) data.summary.name = m.name;
      src = new MemorySource({ summary: data.summary, items: rec.items, findings: data.findings, states: data.states });
      post({
        type: 'ready', id: src.id, items: rec.items.length, ms: Math.round(performance.now() - t0),
        findings: run.findings.map((f) => ({ seq: f.seq, rule: f.rule, severity: f.severity })),
      });
    } catch (e) {
      post({ type: 'error', message: (e as Error).message });
    }
    return;
  }
  if (m.type === 'call') {
    try {
      if (!src) throw new SourceError(503, 'no transcript is open');
      const fn = (src as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[m.method];
      if (typeof fn !== 'function' || !CALLS.has(m.method)) throw new SourceError(400, `no such call: ${m.method}`);
      post({ type: 'reply', id: m.id, value: await fn.apply(src, m.args) });
    } catch (e) {
      post({ type: 'reply', id: m.id, error: (e as Error).message, status: e instanceof SourceError ? e.status : 500 });
    }
  }
};

const CALLS = new Set(['recording', 'page', 'position', 'item', 'findings', 'stats', 'groups', 'turns', 'turn', 'waterfall', 'insights']);
