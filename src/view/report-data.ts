/**
 * What the HTML report and the viewer hold of one recording: its items, its summary row, its findings with their rules' sentences and the model's states. Built in Node
 * by `acp-inspect export --html` and in the viewer's worker, from the same pure parts. Pure.
 */
import type { Recording, TranscriptNote } from '../transcript/format.js';
import type { FindingView, RecordingSummary, StoredFinding } from './contract.js';
import type { ModelState } from '../check/model.js';
import type { RuleInfo } from '../check/rule.js';
import { foldStates, type StatesData } from './states.js';
import { summaryOf, withRuleInfo } from './summary.js';
import { columnsOf, packColumns, unpackColumns, type PackedColumns } from './columns.js';
import type { MemoryRecording } from './memory-source.js';

export interface RecordingData {
  /** The header line of the page: what it is, whether credentials are redacted. */
  note: string;
  summary: RecordingSummary;
  findings: FindingView[];
  states: StatesData;
}

/** What the HTML report embeds: the items as stored columns, findings as stored with the rules they name, state summaries. */
export interface ReportData {
  note: string;
  summary: RecordingSummary;
  findings: StoredFinding[];
  rules: RuleInfo[];
  /** Summaries only: the page makes checkpoints when a full state is asked for. */
  states: StatesData;
  columns: PackedColumns;
  /** The recording's notes, when it has some. */
  notes?: TranscriptNote[];
}

/** Findings, states and summary of a parsed recording (summary given for a stored recording). */
export function recordingData(rec: Recording, findings: readonly StoredFinding[], rules: readonly RuleInfo[],
  summarize: (s: ModelState) => string, note: string, summary?: RecordingSummary): RecordingData {
  const byId = new Map(rules.map((r) => [r.id, r]));
  return { note, summary: summary ?? summaryOf(rec, findings), findings: findings.map((f) => withRuleInfo(stored(f), byId)), states: foldStates(rec.items, summarize) };
}

const stored = (f: StoredFinding): StoredFinding => ({ seq: f.seq, severity: f.severity, rule: f.rule, message: f.message, ...(f.spec !== undefined ? { spec: f.spec } : {}) });

export function reportData(rec: Recording, findings: readonly StoredFinding[], rules: readonly RuleInfo[],
  summarize: (s: ModelState) => string, note: string, summary?: RecordingSummary): ReportData {
  const named = new Set(findings.map((f) => f.rule));
  const states = foldStates(rec.items, summarize);
  return {
    note, summary: summary ?? summaryOf(rec, findings), findings: findings.map(stored), rules: rules.filter((r) => named.has(r.id)),
    states: { table: states.table, idx: states.idx }, columns: packColumns(rec.items.map(columnsOf)),
    ...(rec.notes?.length ? { notes: rec.notes } : {}),
  };
}

/**
 * The report's data as text: one JSON line, then the raw lines one per line (they hold no newline,
 * and so skip a second level of JSON escaping; when one does, they stay in the JSON).
 */
export function encodeReport(d: ReportData): string {
  const raws = d.columns.raw;
  if (raws.some((r) => r.includes('\n'))) return JSON.stringify(d);
  return `${JSON.stringify({ ...d, columns: { ...d.columns, raw: null } })}\n${raws.join('\n')}`;
}

/** Reads what encodeReport wrote into what a MemorySource is built from. */
export function decodeReport(text: string): { note: string; recording: MemoryRecording } {
  const nl = text.indexOf('\n');
  const d = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as ReportData;
  if (nl >= 0) d.columns.raw = d.columns.seq.length ? text.slice(nl + 1).split('\n') : [];
  const byId = new Map(d.rules.map((r) => [r.id, r]));
  return {
    note: d.note,
    recording: { summary: d.summary, columns: unpackColumns(d.columns), findings: d.findings.map((f) => withRuleInfo(f, byId)), states: d.states, ...(d.notes ? { notes: d.notes } : {}) },
  };
}
