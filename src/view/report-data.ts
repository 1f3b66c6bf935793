/**
 * What the HTML report and the viewer hold of one recording: the transcript text (the one format),
 * its summary row, its findings with their rules' sentences and the model's states. Built in Node
 * by `acp-inspect export --html` and in the viewer's worker, from the same pure parts. Pure.
 */
import type { Recording } from '../transcript/format.js';
import type { FindingView, RecordingSummary, StoredFinding } from '../server/types.js';
import type { ModelState } from '../check/model.js';
import type { RuleInfo } from '../check/rule.js';
import { foldStates, type StatesData } from './states.js';
import { summaryOf, withRuleInfo } from './summary.js';

export interface ReportData {
  /** The header line of the page: what it is, whether credentials are redacted. */
  note: string;
  summary: RecordingSummary;
  /** The recording as a transcript (.jsonl text). */
  transcript: string;
  findings: FindingView[];
  states: StatesData;
}

/** Findings, states and summary of a parsed recording (summary given for a stored recording). */
export function reportData(rec: Recording, transcript: string, findings: readonly StoredFinding[], rules: readonly RuleInfo[],
  summarize: (s: ModelState) => string, note: string, summary?: RecordingSummary): ReportData {
  const byId = new Map(rules.map((r) => [r.id, r]));
  const views = findings.map((f) => withRuleInfo({ seq: f.seq, severity: f.severity, rule: f.rule, message: f.message, ...(f.spec !== undefined ? { spec: f.spec } : {}) }, byId));
  return { note, summary: summary ?? summaryOf(rec, findings), transcript, findings: views, states: foldStates(rec.items, summarize) };
}
