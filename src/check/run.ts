/**
 * The IO edge of the checker, used by `acp-inspect check`: streams a recording (a transcript file of
 * any size, or a stored recording), folds it through the checker, finds the per-project config file
 * and formats the report. The checker itself (checker.ts) stays pure.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Item } from '../wire/frame.js';
import { parseTranscript, TranscriptError } from '../transcript/format.js';
import { looksLikeFile } from '../source.js';
import { Store } from '../store/store.js';
import { CliError } from '../cli/errors.js';
import { createChecker, type Finding } from './checker.js';
import { RULES } from './index.js';

/** Name of the per-project config file, looked up from the working directory upward. */
export const CONFIG_FILE = '.acp-inspect.json';

export interface ProjectConfig {
  ignore: string[];
  file?: string;
}

/** Finds `.acp-inspect.json` from `cwd` upward; `{"ignore": ["rule-id", ...]}`. */
export function findProjectConfig(cwd = process.cwd()): ProjectConfig {
  let dir = resolve(cwd);
  for (;;) {
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file) && statSync(file).isFile()) return readProjectConfig(file);
    const up = dirname(dir);
    if (up === dir) return { ignore: [] };
    dir = up;
  }
}

export function readProjectConfig(file: string): ProjectConfig {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`${file}: not valid JSON (${(e as Error).message}); expected {"ignore": ["rule-id", ...]}`, 2);
  }
  const ignore = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>).ignore : undefined;
  if (ignore === undefined) return { ignore: [], file };
  if (!Array.isArray(ignore) || !ignore.every((x) => typeof x === 'string')) {
    throw new CliError(`${file}: "ignore" must be an array of rule ids, e.g. {"ignore": ["missing-client-info"]}`, 2);
  }
  return { ignore, file };
}

/** Refuses rule ids that do not exist (a typo would silently silence nothing). */
export function validateRuleIds(ids: string[], where: string): void {
  const known = new Set(RULES.map((r) => r.id));
  for (const id of ids) {
    if (!known.has(id)) throw new CliError(`unknown rule id "${id}" in ${where}; list the rules with \`acp-inspect check --rules\``, 2);
  }
}

const CHUNK_BYTES = 256 * 1024;
const HEADER_LINE = '{"acpInspect":"recording","version":1}';

/**
 * Reads a transcript file in chunks, so files larger than a JavaScript string can be checked.
 * Each chunk goes through parseTranscript (the one transcript parser); seq numbers continue.
 */
export function* streamTranscriptFile(file: string): Generator<Item> {
  if (!existsSync(file)) throw new TranscriptError(`file ${file} does not exist; check the path`);
  if (statSync(file).isDirectory()) throw new TranscriptError(`${file} is a folder, not a transcript (.jsonl) file`);
  const fd = openSync(file, 'r');
  // One buffer: the unfinished last line of a read stays at its start and the next read goes after it.
  let buf = Buffer.allocUnsafe(CHUNK_BYTES * 2);
  let have = 0;
  let seqOffset = 0;
  let lineOffset = 0;
  let first = true;
  try {
    for (;;) {
      if (buf.length - have < CHUNK_BYTES) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, CHUNK_BYTES, null);
      const end = have + n;
      let upto = end;
      if (n > 0) {
        const cut = buf.lastIndexOf(10, end - 1); // the carried part never holds a newline
        if (cut < 0) {
          have = end; // no complete line yet
          continue;
        }
        upto = cut + 1;
      } else if (end === 0) break;
      const text = buf.toString('utf8', 0, upto);
      buf.copy(buf, 0, upto, end);
      have = end - upto;
      const lines = countLines(text);
      // Later chunks get a header line so that their first line is never taken for a header.
      const chunkText = first ? text : `${HEADER_LINE}\n${text}`;
      let rec;
      try {
        rec = parseTranscript(chunkText);
      } catch (e) {
        if (e instanceof TranscriptError) {
          const line = e.line !== undefined ? e.line + lineOffset - (first ? 0 : 1) : undefined;
          const msg = e.message.replace(/^line \d+: /, '');
          throw new TranscriptError(`${file}: ${line !== undefined ? `line ${line}: ` : ''}${msg}; see the transcript format in the README`);
        }
        throw e;
      }
      for (const item of rec.items) {
        item.seq += seqOffset;
        // replyTo is chunk-local (a response in a later chunk than its request has none); the checker pairs on its own.
        if ('replyTo' in item && typeof item.replyTo === 'number') item.replyTo += seqOffset;
        yield item;
      }
      seqOffset += countItems(text, first);
      lineOffset += lines;
      first = false;
      if (n === 0) break;
    }
  } finally {
    closeSync(fd);
  }
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Items in a chunk: non-blank lines, minus a leading header in the first chunk. */
function countItems(text: string, first: boolean): number {
  let n = 0;
  let sawContent = !first;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    // Transcript lines start with "{"; only other lines need the slower blank test.
    const nonBlank = text.charCodeAt(start) === 123 || text.slice(start, end).trim() !== '';
    if (nonBlank) {
      if (sawContent || !isHeaderLine(text.slice(start, end))) n++;
      sawContent = true;
    }
    start = end + 1;
  }
  return n;
}

function isHeaderLine(line: string): boolean {
  if (!line.includes('"acpInspect"')) return false;
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    return !!v && typeof v === 'object' && v.acpInspect === 'recording';
  } catch {
    return false;
  }
}

/** Items of `<id|latest|FILE.jsonl>`, streamed. */
export function* streamRecordingRef(ref: string, dbPath?: string): Generator<Item> {
  if (looksLikeFile(ref)) {
    yield* streamTranscriptFile(ref);
    return;
  }
  const store = Store.open(dbPath, { mustExist: true });
  try {
    try {
      store.markInterrupted();
    } catch { /* read-only or locked */ }
    const id = store.resolveRef(ref);
    yield* store.iterateItems(id);
  } finally {
    store.close();
  }
}

export interface CheckRun {
  findings: Finding[];
  items: number;
  frames: number;
}

/** Checks every item of a recording; findings sorted by seq. */
export function checkStream(items: Iterable<Item>, ignore: string[]): CheckRun {
  const c = createChecker({ ignore });
  const findings: Finding[] = [];
  let n = 0;
  for (const item of items) {
    n++;
    const f = c.step(item);
    for (let i = 0; i < f.length; i++) findings.push(f[i]!);
  }
  for (const f of c.end()) findings.push(f);
  findings.sort((a, b) => a.seq - b.seq);
  return { findings, items: n, frames: c.state.frames };
}

const PER_RULE = 20;

/** The readable report: grouped by severity, then rule; each finding with its frame and spec section. */
export function formatReport(run: CheckRun, label: string): string {
  const count = (s: string) => run.findings.filter((f) => f.severity === s).length;
  const e = count('error');
  const w = count('warning');
  const i = count('info');
  const plural = (n: number, w1: string) => `${n} ${w1}${n === 1 ? '' : 's'}`;
  const out: string[] = [`${label}: ${plural(run.frames, 'frame')} checked — ${plural(e, 'error')}, ${plural(w, 'warning')}, ${i} info`];
  const titles = new Map(RULES.map((r) => [r.id, r.title]));
  for (const [sev, head] of [['error', 'Errors'], ['warning', 'Warnings'], ['info', 'Info']] as const) {
    const list = run.findings.filter((f) => f.severity === sev);
    if (!list.length) continue;
    out.push('', `${head}:`);
    const byRule = new Map<string, Finding[]>();
    for (const f of list) {
      const l = byRule.get(f.rule) ?? [];
      l.push(f);
      byRule.set(f.rule, l);
    }
    for (const [rule, fs] of byRule) {
      out.push(`  ${rule} — ${titles.get(rule) ?? rule} (${plural(fs.length, 'finding')})`);
      for (const f of fs.slice(0, PER_RULE)) out.push(`    #${f.seq}  [spec ${f.spec}]  ${f.message}`);
      if (fs.length > PER_RULE) out.push(`    … and ${fs.length - PER_RULE} more (use --json for all)`);
    }
  }
  if (!run.findings.length) out.push('', 'No findings.');
  return out.join('\n') + '\n';
}

/** `acp-inspect check --rules`: the rule table. */
export function formatRules(): string {
  const w = Math.max(...RULES.map((r) => r.id.length));
  return RULES.map((r) => `${r.id.padEnd(w)}  ${r.severity.padEnd(7)}  ${r.spec.padEnd(10)}  ${r.title}`).join('\n') + '\n';
}
