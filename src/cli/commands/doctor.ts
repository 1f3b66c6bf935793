import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';

/** One finding of `doctor`: ok, a warning (works, but should be fixed) or a failure. */
interface Check {
  level: 'ok' | 'warn' | 'fail';
  what: string;
  fix?: string;
}

/** `acp-inspect doctor [--db FILE]`: checks the environment and the database; exits 1 when something fails. */
export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check Node, the native SQLite module, the native forwarder, the UI build (served UI, HTML report, viewer), the database (integrity) and its permissions')
    .option(...DB_OPTION)
    .option('--json', 'print the checks as JSON')
    .action(async (opts: { db?: string; json?: boolean }) => {
      const checks = await runDoctor(opts.db);
      if (opts.json) {
        process.stdout.write(JSON.stringify(checks, null, 2) + '\n');
      } else {
        const tag = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;
        for (const c of checks) process.stdout.write(`${tag[c.level]}  ${c.what}${c.fix ? `\n      fix: ${c.fix}` : ''}\n`);
        const bad = checks.filter((c) => c.level === 'fail').length;
        const warn = checks.filter((c) => c.level === 'warn').length;
        process.stdout.write(bad ? `${bad} problem${bad > 1 ? 's' : ''} found\n` : warn ? `no problems, ${warn} warning${warn > 1 ? 's' : ''}\n` : 'all good\n');
      }
      if (checks.some((c) => c.level === 'fail')) process.exitCode = 1;
    });
}

/** Why the native forwarder is missing: its build failed (build-native.js left the reason), it does not load, or npm skipped the script. */
async function nativeForwarderMissing(): Promise<Check> {
  const { existsSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const hint = await import('../../install-hint.js');
  const root = hint.packageRoot();
  const slower = 'the tap forwards with JavaScript, which costs more CPU per byte than a `cat` relay';
  const fix = `run \`${hint.nativeFixCommand('forwarder')}\``;
  if (!root) return { level: 'warn', what: `native forwarder not found; ${slower}` };
  const failed = join(root, 'native', 'build-failed.txt');
  if (existsSync(failed)) {
    const why = readFileSync(failed, 'utf8').trim().split('\n')[0];
    return { level: 'warn', what: `native forwarder could not be built (${why}); ${slower}`, fix: `install a C compiler, make and python3, then ${fix}` };
  }
  if (existsSync(join(root, 'native', 'build', 'Release', 'acp_forward.node'))) {
    return { level: 'warn', what: `native forwarder is built but does not load on this machine; ${slower}`, fix };
  }
  return { level: 'warn', what: `native forwarder not built: npm skipped acp-inspect's install script (allowScripts, --ignore-scripts); ${slower}`, fix };
}

export async function runDoctor(dbOption?: string): Promise<Check[]> {
  const { existsSync, statSync, accessSync, constants } = await import('node:fs');
  const { dirname } = await import('node:path');
  const checks: Check[] = [];

  const major = Number(process.versions.node.split('.')[0]);
  checks.push(major >= 20
    ? { level: 'ok', what: `Node ${process.versions.node}` }
    : { level: 'fail', what: `Node ${process.versions.node} is too old`, fix: 'install Node 20 or newer' });

  let Store: typeof import('../../store/store.js').Store | undefined;
  try {
    // better-sqlite3 itself, so a module npm did not build is told apart from a database problem.
    const { default: Database } = await import('better-sqlite3');
    new Database(':memory:').close();
    ({ Store } = await import('../../store/store.js'));
    checks.push({ level: 'ok', what: 'native SQLite module (better-sqlite3) loads' });
  } catch (e) {
    const hint = await import('../../install-hint.js');
    checks.push(hint.isSqliteBuildError(e)
      ? { level: 'fail', what: `native SQLite module (better-sqlite3) does not load: ${hint.sqliteBuildReason(e)}; nothing can be recorded or read`, fix: `run \`${hint.nativeFixCommand('all')}\`` }
      : { level: 'fail', what: `native SQLite module does not load: ${firstLine(e)}`, fix: 'run `npm rebuild better-sqlite3` (it must be built for this Node version)' });
  }

  {
    const { loadNativeForwarder } = await import('../../tap/native.js');
    checks.push(loadNativeForwarder()
      ? { level: 'ok', what: process.env.ACP_INSPECT_ZERO_COPY === '0'
        ? 'native forwarder loads (the tap forwards with read() and write() in two threads, as a `cat` relay does; ACP_INSPECT_ZERO_COPY=0)'
        : "native forwarder loads (the tap forwards in two threads; the agent's output with tee() and splice(), without copies on the way through)" }
      : process.env.ACP_INSPECT_NATIVE === '0'
        ? { level: 'ok', what: 'native forwarder off (ACP_INSPECT_NATIVE=0): the tap forwards with JavaScript' }
        : await nativeForwarderMissing());
  }

  try {
    const { findUiDir } = (await import('../../server/static.js')) as { findUiDir: () => string | undefined };
    const dir = findUiDir();
    checks.push(dir
      ? { level: 'ok', what: `UI build present (${dir})` }
      : { level: 'warn', what: 'UI build missing (dist/ui); `serve` and --ui show no pages', fix: 'run `npm run build`' });
    const { findViewerDir } = await import('../../server/static.js');
    const { findReportAssets } = await import('../../report/html.js');
    checks.push(findReportAssets() && findViewerDir()
      ? { level: 'ok', what: 'HTML report and static viewer built (dist/report, dist/viewer)' }
      : { level: 'warn', what: 'HTML report or static viewer missing (dist/report, dist/viewer); `export --html` and /viewer do not work', fix: 'run `npm run build`' });
  } catch {
    checks.push({ level: 'warn', what: 'UI server not available in this build', fix: 'run `npm run build`' });
  }

  const { defaultDbPath } = await import('../../store/paths.js');
  const path = dbOption ?? defaultDbPath();
  const source = dbOption ? '--db' : process.env.ACP_INSPECT_DB ? '$ACP_INSPECT_DB' : 'default';
  const dir = dirname(path);
  checks.push({ level: 'ok', what: `database path (${source}): ${path}` });

  if (!existsSync(dir)) {
    checks.push({ level: 'ok', what: `folder ${dir} does not exist yet; the first recording creates it (mode 0700)` });
    return checks;
  }
  const dst = statSync(dir);
  if (!dst.isDirectory()) {
    checks.push({ level: 'fail', what: `${dir} is not a folder`, fix: 'move it aside or pass --db FILE' });
    return checks;
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    checks.push({ level: 'fail', what: `folder ${dir} is not writable; the tap cannot record`, fix: `chmod u+rwx ${dir}, or pass --db FILE` });
  }
  if (!dbOption && (dst.mode & 0o077) !== 0) {
    checks.push({ level: 'fail', what: `folder ${dir} is open to others (mode ${octal(dst.mode)}); recordings hold credentials`, fix: `chmod 700 ${dir}` });
  }

  if (!existsSync(path)) {
    checks.push({ level: 'ok', what: `database ${path} does not exist yet; the first recording creates it (mode 0600)` });
    return checks;
  }
  const fst = statSync(path);
  if (!fst.isFile()) {
    checks.push({ level: 'fail', what: `${path} is not a file`, fix: 'move it aside or pass --db FILE' });
    return checks;
  }
  if ((fst.mode & 0o077) !== 0) {
    checks.push({ level: 'fail', what: `database ${path} is open to others (mode ${octal(fst.mode)}); recordings hold credentials`, fix: `chmod 600 ${path}` });
  } else {
    checks.push({ level: 'ok', what: `database permissions ${octal(fst.mode)} (owner only)` });
  }
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch {
    checks.push({ level: 'fail', what: `database ${path} is not readable and writable by you`, fix: `chmod 600 ${path} (as its owner)` });
  }
  if (!Store) return checks;
  let store: import('../../store/store.js').Store | undefined;
  try {
    store = Store.open(path, { readonly: true, busyTimeout: 2000 });
    const result = store.db.pragma('integrity_check', { simple: true });
    checks.push(result === 'ok'
      ? { level: 'ok', what: 'database integrity_check: ok' }
      : { level: 'fail', what: `database integrity_check: ${String(result).split('\n')[0]}`, fix: `move ${path} aside (keep it for recovery) and record into a fresh one` });
    const version = store.db.pragma('user_version', { simple: true });
    const recs = store.listRecordings();
    const opened = store;
    const stale = opened.runningRecordings().filter((r) => opened.diedRunning(r));
    const { MIGRATIONS } = await import('../../store/schema.js');
    const older = Number(version) < MIGRATIONS.length ? ` (older than this acp-inspect's ${MIGRATIONS.length}; the next command that writes upgrades it)` : '';
    checks.push({ level: 'ok', what: `schema version ${String(version)}${older}; ${recs.length} recording${recs.length === 1 ? '' : 's'}` });
    if (stale.length) {
      checks.push({ level: 'warn', what: `${stale.length} recording(s) marked running whose tap is gone (${stale.map((r) => r.id).join(', ')})`, fix: 'run `acp-inspect list`; it marks them interrupted' });
    }
    checks.push(...await retentionChecks(store));
  } catch (e) {
    const msg = firstLine(e);
    checks.push({ level: 'fail', what: `database cannot be read: ${msg}`, fix: /locked/.test(msg) ? 'retry when other acp-inspect processes are idle' : `move ${path} aside and record into a fresh one, or pass --db FILE` });
  } finally {
    store?.close();
  }
  return checks;
}

/** The store's size and its disk's free space against the retention settings, and the settings themselves. */
async function retentionChecks(store: import('../../store/store.js').Store): Promise<Check[]> {
  const { retentionSettings, retentionWarnings, sizeText, storeUsage, storeUsageText } = await import('../../store/retention.js');
  let settings;
  try {
    settings = retentionSettings(store.path);
  } catch (e) {
    return [{ level: 'fail', what: `retention settings: ${firstLine(e)}`, fix: 'the tap applies none until they are fixed' }];
  }
  const usage = storeUsage(store);
  const gib = (n: number | null) => (n === null ? 'off' : sizeText(n));
  const age = (ms: number | null) => (ms === null ? 'off' : `${Math.round(ms / 3_600_000)}h`);
  const from = (k: string) => settings.sources[k] ?? 'default';
  const out: Check[] = [
    { level: 'ok', what: storeUsageText(usage, settings) },
    { level: 'ok', what: `retention (applied at each tap's start, oldest recordings first): maxStoreSize ${gib(settings.maxStoreBytes)} (${from('maxStoreSize')}), keepFree ${gib(settings.keepFreeBytes)} (${from('keepFree')}), maxAge ${age(settings.maxAgeMs)} (${from('maxAge')}); kept: recordings younger than ${age(settings.minAgeMs)} (${from('minAge')})${settings.protectNotes ? ', and with a note' : ''} (${from('protectNotes')})` },
  ];
  for (const w of retentionWarnings(usage, settings)) out.push({ level: 'warn', what: w, fix: 'raise the limit (config file or environment: see docs/retention.md), or delete recordings with `acp-inspect prune`' });
  return out;
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0]!;
}
