/** The rule table, without the checker (and so without the schema validator it loads). */
import type { RuleInfo } from './rule.js';
import { ALL_RULES } from './rules/index.js';

/** Every rule: id, severity, spec section, title and the spec's sentence. */
export const RULES: RuleInfo[] = ALL_RULES.map(({ id, severity, spec, title, specText }) => ({ id, severity, spec, title, specText }));
