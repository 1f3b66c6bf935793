import type { Command } from 'commander';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DB_OPTION, parseCount } from '../options.js';
import { CliError } from '../../errors.js';

interface ConsoleCliOptions { db?: string; port: number; open: boolean; cwd?: string }

/** `acp-inspect console [--db FILE] [--port N] [--no-open] [--cwd DIR] -- <agent command...>` */
export function registerConsole(program: Command): void {
  program
    .command('console')
    .description('drive an agent by hand from the browser: starts it through the tap (recorded and checked like any session) and serves the console page on 127.0.0.1; prints its URL')
    .argument('[command...]', 'the agent command and its arguments (after --)')
    .option(...DB_OPTION)
    .option('--port <n>', 'port to listen on (0: a free port)', parseCount('--port'), 0)
    .option('--no-open', 'do not open the URL in the default browser')
    .option('--cwd <dir>', 'the folder the agent runs in; its file reads and writes stay inside it (default: the current folder)')
    .addHelpText('after', '\nExample:  acp-inspect console -- node my-agent.js\n' +
      'The agent command comes from this command line only: the page can never name a command to run.')
    .action(async (command: string[], opts: ConsoleCliOptions) => {
      if (command.length === 0 || command[0] === '') throw new CliError('no agent command; put it after --, e.g. acp-inspect console -- node my-agent.js', 2);
      if (opts.port > 65535) throw new CliError(`--port must be at most 65535, got ${opts.port}`);
      const cwd = resolve(opts.cwd ?? process.cwd());
      let isDir = false;
      try { isDir = statSync(cwd).isDirectory(); } catch { /* said below */ }
      if (!isDir) throw new CliError(`--cwd ${cwd} is not a folder; pass an existing folder for the agent to work in`, 2);
      const [{ ConsoleSession }, { startServer }, { defaultDbPath }, registry, { processStartId }] = await Promise.all([
        import('../../console/session.js'), import('../../server/start.js'), import('../../store/paths.js'), import('../../console/registry.js'), import('../../store/process-id.js'),
      ]);
      const dbPath = opts.db ?? defaultDbPath();
      const session = new ConsoleSession({ command, cwd, dbPath });
      const srv = await startServer({ dbPath, port: opts.port, open: opts.open, console: session });
      // Listed by `serve` on the same database while it runs.
      const entry = { pid: process.pid, hostStart: processStartId(process.pid), address: srv.url.replace(/\?token=.*$/, ''), command, cwd, startedAt: new Date().toISOString(), recordingId: null as number | null };
      session.subscribe((ev) => {
        if (ev.type === 'status' && ev.status.recordingId !== entry.recordingId) {
          entry.recordingId = ev.status.recordingId;
          registry.saveConsoleEntry(dbPath, entry);
        }
      });
      registry.saveConsoleEntry(dbPath, entry);
      process.once('exit', () => registry.removeConsoleEntry(dbPath, process.pid));
      await session.start();
      process.stdout.write(`${srv.url}\n`);
      process.stderr.write(`acp-inspect: console for \`${command.join(' ')}\` in ${cwd}; press Ctrl-C to stop\n`);
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        void session.stop().then(() => srv.close()).then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
