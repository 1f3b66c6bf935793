/** The rule table, without the checker (and so without the schema validator it loads). */
import type { RuleInfo } from './rule.js';
import { ALL_RULES } from './rules/index.js';
import { specUrl } from '../spec/doc-links.js';

/** A rule as listed: its info and the protocol's page for the spec part it cites. */
export interface ListedRule extends RuleInfo {
  /** The published documentation of the rule's spec part (src/spec/doc-links.ts). */
  url: string;
}

/** Every rule: id, severity, spec section, title, the spec's sentence and where the protocol documents it. */
export const RULES: ListedRule[] = ALL_RULES.map(({ id, severity, spec, title, specText }) => ({ id, severity, spec, title, specText, url: specUrl(spec) }));
