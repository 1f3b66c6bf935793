import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';
import { CliError } from '../../errors.js';

/** The check's reading side and its report as bundled files where the build made them (scripts/bundle-check.js), in variables: tsc does not know them. */
const PARALLEL_BUNDLE = '../../check-run/parallel.bundle.js';
const REPORT_BUNDLE = '../../check-run/report.bundle.js';

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('check a recording against the ACP spec; exit 1 when there are errors')
    .argument('[ref]', 'recording id, latest, or a transcript file (.jsonl)')
    .option(...DB_OPTION)
    .option('--json', 'one finding per line: {"seq","severity","rule","message","spec","url"} (url: the protocol\'s page for that spec part)')
    .option('--ignore <rule...>', 'silence rules by id (also: "ignore" in .acp-inspect.json, found from the current folder upward)')
    .option('--rules', 'list every rule with its severity, spec section and the protocol\'s page for it')
    .addHelpText('after', '\nExit status: 1 when there are errors, 0 otherwise, 2 when the check could not run (or the recording\'s agent never started).')
    .action(async (ref: string | undefined, opts: { db?: string; json?: boolean; ignore?: string[]; rules?: boolean }) => {
      // A large transcript file is checked over two threads; the checking thread is started first,
      // before this thread loads the checker, since its start-up is the longest part of the way.
      const started = ref !== undefined && !opts.rules ? (await (import(PARALLEL_BUNDLE) as Promise<typeof import('../../check-run/parallel.js')>).catch(() => import('../../check-run/parallel.js'))).startParallelCheck(ref) : undefined;
      try {
        // The config and the report only: on two threads, this one never loads the checker or the store.
        const run = await (import(REPORT_BUNDLE) as Promise<typeof import('../../check-run/report.js')>).catch(() => import('../../check-run/report.js'));
        if (opts.rules) {
          process.stdout.write(run.formatRules());
          return;
        }
        if (ref === undefined) {
          // `--ignore <rule...>` takes every word after it, the recording too when it comes last.
          const swallowed = opts.ignore?.length ? '; --ignore takes every word after it, so name the recording before it (check FILE --ignore RULE)' : '';
          throw new CliError(`check needs a recording: an id, latest, or a .jsonl file${swallowed}; see acp-inspect check --help`, 2);
        }
        const ignore = opts.ignore ?? [];
        run.validateRuleIds(ignore, '--ignore');
        const config = run.findProjectConfig();
        if (config.file) run.validateRuleIds(config.ignore, config.file);
        const all = [...ignore, ...config.ignore];
        const result = started ? await started.run(all) : await (await import('../../check-run/run.js')).checkRecordingRef(ref, opts.db, all);
        try {
          const label = result.recordingId !== undefined ? `recording ${result.recordingId}` : ref;
          if (result.notStarted !== undefined) {
            // Nothing ran, so nothing passed: not a clean check.
            throw new CliError(`${label}: nothing to check: its agent did not start (${result.notStarted}); fix the agent's command and record it again`, 2);
          }
          // Set before the output is written: a reader that stops early leaves this exit code.
          process.exitCode = result.spool.tally.counts.error > 0 ? 1 : 0;
          if (opts.json) {
            // The findings come back from the spool as stdout takes them: a million of them are never held.
            const { writeLinesToStdout } = await import('../../transcript/write-file.js');
            await writeLinesToStdout(result.spool.lines());
          } else {
            process.stdout.write(run.formatReport(result, label));
          }
        } finally {
          result.spool.close();
        }
      } finally {
        started?.cancel();
      }
    });
}
