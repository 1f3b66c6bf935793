import type { Command } from 'commander';
import { DB_OPTION, parseCount } from '../options.js';
import { CliError } from '../../errors.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the timeline UI on 127.0.0.1; prints the URL (with its per-launch token) on stdout')
    .option(...DB_OPTION)
    .option('--port <n>', 'port to listen on (0: a free port)', parseCount('--port'), 0)
    .option('--open', 'open the URL in the default browser')
    .option('--host <addr>', 'listen on another interface than 127.0.0.1 (exposes your recordings to that network)')
    .action(async (opts: { db?: string; port: number; open?: boolean; host?: string }) => {
      if (opts.port > 65535) throw new CliError(`--port must be at most 65535, got ${opts.port}`);
      const { startServer } = await import('../../server/start.js');
      if (opts.host !== undefined && opts.host !== '127.0.0.1') {
        process.stderr.write(`acp-inspect: warning: listening on ${opts.host}, not only on 127.0.0.1; anyone who can reach it and has the token can read your recordings\n`);
      }
      const srv = await startServer({ dbPath: opts.db, port: opts.port, host: opts.host, open: opts.open });
      process.stdout.write(`${srv.url}\n`);
      process.stderr.write('acp-inspect: serving the timeline UI; press Ctrl-C to stop\n');
      const stop = () => {
        void srv.close().then(() => process.exit(0));
        setTimeout(() => process.exit(0), 2000).unref();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
