/**
 * Vitest's global setup: a test run leaves nothing behind. Every process the run starts carries
 * ACP_INSPECT_TEST_RUN (a value of this run's own) in its environment, and the run's temp folders go
 * into a TMPDIR of its own. At the end, once what is still exiting had LEFT_WAIT_MS to go (a
 * detached indexer finishing a recording, a browser closing), the run fails if a process of it is
 * still alive (each is named, with its command line, and killed) or its TMPDIR is not empty (each
 * entry is named, then removed), SQLite's temp files of killed processes aside (sqliteTempFiles).
 *
 * Processes are found through /proc (Linux); elsewhere only the folder is checked. A process
 * started with an environment of its own (not the test's) is not seen.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MARK = 'ACP_INSPECT_TEST_RUN';
/** How long processes and folders of the run get to go once the tests are done (ACP_INSPECT_LEAK_WAIT_MS sets it). */
const LEFT_WAIT_MS = Number(process.env.ACP_INSPECT_LEAK_WAIT_MS) || 30_000;

/** The lines a failed check prints start with this, so a soak run can pick them out. */
export const LEAK_PREFIX = 'leak check:';

export default function setup(): () => Promise<void> {
  const run = randomBytes(8).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'acp-inspect-run-'));
  const before = { tmp: process.env.TMPDIR, mark: process.env[MARK] };
  // Workers are started after this, with this process's environment: they and all they start inherit both.
  process.env[MARK] = run;
  process.env.TMPDIR = dir;
  return async () => {
    process.env.TMPDIR = before.tmp;
    if (before.mark === undefined) delete process.env[MARK];
    else process.env[MARK] = before.mark;
    const problems = await leftBehind(run, dir);
    const killed = sqliteTempFiles(dir);
    if (killed.length) process.stderr.write(`\nnot counted as left behind: ${killed.length} SQLite temp file(s) (${killed.join(', ')}) of processes killed between creating and unlinking them (SQLite unlinks its temp files as it creates them; tests kill taps mid-flood on purpose)\n`);
    rmSync(dir, { recursive: true, force: true });
    if (problems.length) {
      // Said plainly, and the run fails (vitest only logs what a teardown throws, and exits 0).
      process.stderr.write(`\n${problems.map((p) => `${LEAK_PREFIX} ${p}`).join('\n')}\nthe run left ${problems.length} thing(s) behind, so it fails: every test must end what it starts and remove what it makes\n\n`);
      process.exitCode = 1;
    }
  };
}

/** What the run left once LEFT_WAIT_MS passed: processes (killed here) and temp entries, one line each. */
async function leftBehind(run: string, dir: string): Promise<string[]> {
  const until = Date.now() + LEFT_WAIT_MS;
  let procs = processesOf(run);
  let entries = entriesOf(dir);
  while ((procs.length || entries.length) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    procs = processesOf(run);
    entries = entriesOf(dir);
  }
  const out: string[] = [];
  for (const p of procs) {
    out.push(`process ${p.pid} still running ${LEFT_WAIT_MS / 1000} s after the tests ended (killed): ${p.cmd}`);
    try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
  }
  for (const e of entries) out.push(`left in the run's temp folder (removed): ${join(dir, e)}`);
  return out;
}

/** The processes alive that carry this run's mark, but this one and its direct children (vitest's workers). */
function processesOf(run: string): { pid: number; cmd: string }[] {
  if (!existsSync('/proc/self/environ')) return [];
  const needle = `${MARK}=${run}\0`;
  const out: { pid: number; cmd: string }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${d}/environ`, 'latin1').includes(needle)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X' || Number(ppid) === process.pid) continue;
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      out.push({ pid: Number(d), cmd: cmd.length > 300 ? `${cmd.slice(0, 300)}…` : cmd });
    } catch { /* gone, or not ours to read */ }
  }
  return out;
}

/**
 * SQLite's temp files (its statement journals and sorters) are named `etilqs_…` and unlinked the
 * moment they are created: one is left only by a process killed between the two calls, which a test
 * that SIGKILLs a tap in the middle of a flood (as editors do) may hit, about once in a dozen full
 * runs. That is the kill's doing, not a test that forgot to clean up, and nothing could remove it
 * but a look at the folder: it is named, and not counted.
 */
const SQLITE_TEMP = /^etilqs_[0-9a-f]+$/;

function sqliteTempFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && SQLITE_TEMP.test(e.name)).map((e) => e.name);
  } catch {
    return [];
  }
}

function entriesOf(dir: string): string[] {
  try {
    const killed = new Set(sqliteTempFiles(dir));
    return readdirSync(dir).filter((e) => !killed.has(e));
  } catch {
    return [];
  }
}
