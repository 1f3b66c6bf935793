/**
 * The most common first mistake with the tap: leaving out `--` before the agent's command
 * (`acp-inspect --name x node agent.js`, `acp-inspect node agent.js`). Without it commander would
 * say "unknown option '--name'" or "unknown command 'node' (Did you mean note?)"; this names the fix
 * and the corrected command line instead. A word that is neither a command nor anything runnable
 * after no tap option (`acp-inspect lsit`) is left to commander, whose "did you mean" is right there.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Tap options that take a value (`--name LABEL` or `--name=LABEL`). */
const TAP_VALUE_OPTIONS = new Set(['--db', '--name', '--max-frame-bytes']);
/** Tap flags; `--ui` takes its port only as `--ui=PORT`. */
const TAP_FLAGS = new Set(['--ui', '--redact', '--no-check', '--otel-content']);

/**
 * The one-line message for `argv` (the words after the program name) when it reads as a tap whose
 * `--` was left out, else undefined. `isCommand`: whether a word names a subcommand; `runnable`:
 * whether a word names a program (on PATH, or a file).
 */
export function missingDashDash(argv: readonly string[], isCommand: (w: string) => boolean, runnable: (w: string) => boolean = isRunnable): string | undefined {
  if (argv.includes('--')) return undefined;
  let i = argv[0] === 'tap' ? 1 : 0;
  // `acp-inspect tap …` and any tap-only option say it is the tap, whatever the word after them.
  let tap = i === 1;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) break;
    const name = a.split('=', 1)[0]!;
    if (name === '--no-color') continue; // every command's, the tap's too
    if (TAP_VALUE_OPTIONS.has(name)) {
      if (name === a) i++;
      if (name !== '--db') tap = true;
    } else if (name === '--otlp') {
      // Its URL is optional: only a word that looks like one is taken as it.
      if (name === a && /^[a-z][a-z0-9+.-]*:\/\//i.test(argv[i + 1] ?? '')) i++;
      tap = true;
    } else if (TAP_FLAGS.has(name)) {
      tap = true;
    } else {
      return undefined; // an option the tap does not have: commander says so
    }
  }
  const word = argv[i];
  if (word === undefined || isCommand(word)) return undefined;
  if (!tap && !runnable(word)) return undefined;
  const fixed = [...argv.slice(0, i), '--', ...argv.slice(i)].map(shellWord).join(' ');
  return `put \`--\` before the agent's command: acp-inspect ${fixed}`;
}

/** Whether `word` names a program: a path to a file, or an executable on PATH. */
export function isRunnable(word: string): boolean {
  const isFile = (p: string) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (word.includes('/')) return isFile(word);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, word);
    try {
      accessSync(p, constants.X_OK);
      if (isFile(p)) return true;
    } catch { /* not here */ }
  }
  return false;
}

/** A word as a POSIX shell would need it typed. */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
