/**
 * The viewer's worker: reads a transcript, parses and correlates it, folds the model's states and
 * answers the page's data-source calls from a MemorySource; then runs the protocol checker (in
 * slices, still answering) and hands the page its findings. The page stays responsive while a large
 * recording is checked. It makes no request.
 */
import { parseTranscript } from '../../src/transcript/format.js';
import { captureToTranscript } from '../../src/transcript/foreign.js';
import { CheckFold } from '../../src/check/fold.js';
import type { Finding } from '../../src/check/checker.js';
import { RULES, summarizeState } from '../../src/check/index.js';
import { recordingData } from '../../src/view/report-data.js';
import { MemorySource } from '../../src/view/memory-source.js';
import { withRuleInfo } from '../../src/view/summary.js';
import { SourceError, SOURCE_CALLS } from '../../src/view/source.js';
import type { ToWorker, FromWorker } from './viewer-protocol.js';

let current: MemorySource | null = null;
const post = (m: FromWorker) => (self as unknown as Worker).postMessage(m);

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  if (m.type === 'open') {
    try {
      const t0 = performance.now();
      const text = typeof m.data === 'string' ? m.data : await m.data.text();
      const rec = parseTranscript(captureToTranscript(text)); // or a capture of another tool's format
      post({ type: 'progress', message: `parsed ${rec.items.length.toLocaleString()} items; folding the protocol states…` });
      // Show the recording first; check it in slices, answering the page's calls in between.
      const data = recordingData(rec, [], RULES, summarizeState, '');
      if (!rec.header.name && m.name) data.summary.name = m.name;
      const src = new MemorySource({ summary: data.summary, items: rec.items, findings: [], states: data.states, ...(rec.notes ? { notes: rec.notes } : {}) });
      current = src;
      post({ type: 'ready', id: src.id, items: rec.items.length, ms: Math.round(performance.now() - t0) });
      const found: Finding[] = [];
      const fold = new CheckFold([], (f) => found.push(f));
      for (let i = 0; i < rec.items.length; i++) {
        fold.step(rec.items[i]!);
        if (i % 5000 === 4999) await new Promise((r) => setTimeout(r, 0));
      }
      fold.finish();
      // A frame's findings came at it, the end-of-recording ones last: in seq order, as check gives them.
      const run = { findings: found.sort((a, b) => a.seq - b.seq) };
      const rules = new Map(RULES.map((r) => [r.id, r]));
      const count = (sev: string) => run.findings.filter((f) => f.severity === sev).length;
      src.setFindings(run.findings.map((f) => withRuleInfo(f, rules)), { ...data.summary, errors: count('error'), warnings: count('warning'), infos: count('info') });
      post({ type: 'checked', ms: Math.round(performance.now() - t0), findings: run.findings.map((f) => ({ seq: f.seq, rule: f.rule, severity: f.severity })) });
    } catch (e) {
      post({ type: 'error', message: (e as Error).message });
    }
    return;
  }
  if (m.type === 'call') {
    try {
      if (!current) throw new SourceError(503, 'no transcript is open');
      const fn = (current as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[m.method];
      if (typeof fn !== 'function' || !CALLS.has(m.method)) throw new SourceError(400, `no such call: ${m.method}`);
      post({ type: 'reply', id: m.id, value: await fn.apply(current, m.args) });
    } catch (e) {
      post({ type: 'reply', id: m.id, error: (e as Error).message, status: e instanceof SourceError ? e.status : 500 });
    }
  }
};

const CALLS = new Set<string>(SOURCE_CALLS);
