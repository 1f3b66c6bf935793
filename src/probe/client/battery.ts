/**
 * The client battery: every scenario in the order it runs, and how `--only` and a `/probe ...`
 * prompt pick part of it. Requests run first, so the probe knows early whether the client answers
 * extension requests (its liveness check after each batch of notifications relies on that).
 */
import { FS_SCENARIOS } from './scenarios-fs.js';
import { HANDSHAKE_SCENARIOS, PERMISSION_SCENARIOS, REQUEST_SCENARIOS } from './scenarios-requests.js';
import { TERMINAL_SCENARIOS } from './scenarios-terminal.js';
import { TOOL_SCENARIOS, UPDATE_SCENARIOS } from './scenarios-updates.js';
import { type ClientScenario, GROUPS, type Group } from './scenario.js';

export const CLIENT_BATTERY: readonly ClientScenario[] = [
  ...HANDSHAKE_SCENARIOS, ...REQUEST_SCENARIOS, ...UPDATE_SCENARIOS, ...TOOL_SCENARIOS,
  ...PERMISSION_SCENARIOS, ...FS_SCENARIOS, ...TERMINAL_SCENARIOS,
];

export interface Selection {
  /** The scenarios picked, in battery order. */
  scenarios: ClientScenario[];
  /** Scenario ids named one by one: a scenario that needs a person runs only then (not for its group). */
  asked: Set<string>;
  /** Words that name neither a group nor a scenario. */
  unknown: string[];
}

/**
 * Picks scenarios by group names and scenario ids (`fs`, `terminal-kill`, ...); no words picks the
 * whole battery. A scenario needing a person runs only when named by its own id.
 */
export function selectScenarios(words: readonly string[]): Selection {
  const wanted = new Set<string>();
  const asked = new Set<string>();
  const unknown: string[] = [];
  for (const w of words) {
    const word = w.trim();
    if (!word) continue;
    if (GROUPS.includes(word as Group)) for (const s of CLIENT_BATTERY) { if (s.group === word) wanted.add(s.id); }
    else if (CLIENT_BATTERY.some((s) => s.id === word)) { wanted.add(word); asked.add(word); }
    else unknown.push(word);
  }
  if (words.every((w) => !w.trim())) return { scenarios: [...CLIENT_BATTERY], asked, unknown };
  return { scenarios: CLIENT_BATTERY.filter((s) => wanted.has(s.id)), asked, unknown };
}

/** The words after `/probe` in a prompt ("/probe fs, terminal" → ["fs", "terminal"]; "/probe-help" → ["help"]); null when the prompt is not a /probe command. */
export function probeCommandWords(text: string): string[] | null {
  if (/^\s*\/probe-help\s*$/.test(text)) return ['help']; // the second command the probe advertises
  const m = /^\s*\/probe(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return null;
  return (m[1] ?? '').split(/[\s,]+/).filter(Boolean);
}

/** What the chat says about asking for parts of the battery. */
export function probeHelp(): string {
  const person = CLIENT_BATTERY.filter((s) => s.person).map((s) => `/probe ${s.id} (${s.person})`);
  return `Ask for part of the battery by prompt: /probe ${GROUPS.join(', /probe ')}, or /probe SCENARIO-ID. `
    + `Scenarios that need you: ${person.join('; ')}.`;
}
