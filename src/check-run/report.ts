/**
 * The light half of `acp-inspect check`'s edge: the per-project config file, rule ids, and the
 * readable report (from the findings' tally, finding-spool.ts). It loads the rule table but not the
 * checker, so the thread that only reads a large file for the checking thread (parallel.ts) never
 * loads the schema validator or the store.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CliError } from '../errors.js';
import type { CheckRun } from '../check/fold.js';
import { type FindingTally, groupsOf, newTally, PER_RULE, type SpooledCheck, tallyFinding } from './finding-spool.js';
import { RULES } from '../check/rule-list.js';
import { specUrl } from '../spec/doc-links.js';
import { plural } from '../text/format.js';

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

/** The readable report: grouped by severity, then rule; each finding with its frame and spec section. */
export function formatReport(run: CheckRun | SpooledCheck, label: string): string {
  let tally: FindingTally;
  if ('spool' in run) tally = run.spool.tally;
  else {
    tally = newTally();
    for (const f of run.findings) tallyFinding(tally, f);
  }
  const { error: e, warning: w, info: i } = tally.counts;
  const out: string[] = [`${label}: ${plural(run.frames, 'frame')} checked — ${plural(e, 'error')}, ${plural(w, 'warning')}, ${i} info`];
  const titles = new Map(RULES.map((r) => [r.id, r.title]));
  const urls = new Map(RULES.map((r) => [r.id, r.url]));
  for (const [sev, head] of [['error', 'Errors'], ['warning', 'Warnings'], ['info', 'Info']] as const) {
    const groups = groupsOf(tally, sev);
    if (!groups.length) continue;
    out.push('', `${head}:`);
    for (const g of groups) {
      out.push(`  ${g.rule} — ${titles.get(g.rule) ?? g.rule} (${plural(g.count, 'finding')})`);
      out.push(`    spec: ${urls.get(g.rule) ?? specUrl(g.first[0]?.spec ?? '')}`);
      for (const f of g.first) out.push(`    #${f.seq}  [spec ${f.spec}]  ${f.message}`);
      if (g.count > PER_RULE) out.push(`    … and ${g.count - PER_RULE} more (use --json for all)`);
    }
  }
  if (!tally.came) out.push('', 'No findings.');
  return out.join('\n') + '\n';
}

/** `acp-inspect check --rules`: the rule table, each rule with the protocol's page for its spec part. */
export function formatRules(): string {
  const w = Math.max(...RULES.map((r) => r.id.length));
  return RULES.map((r) => `${r.id.padEnd(w)}  ${r.severity.padEnd(7)}  ${r.spec.padEnd(10)}  ${r.title}  ${r.url}`).join('\n') + '\n';
}

