import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';
import { CliError } from '../../errors.js';

/** `--listen HOST:PORT` (PORT 0: a free port). */
export function parseListen(v: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(v);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new CliError(`--listen needs HOST:PORT (PORT 0 for a free one), got "${v}"`);
  return { host: (m[1] ?? m[2])!, port };
}

/** `acp-inspect proxy --listen HOST:PORT --to URL`: a recording reverse proxy for remote ACP clients. */
export function registerProxy(program: Command): void {
  program
    .command('proxy')
    .description('serve a remote agent\'s ACP endpoint (Streamable HTTP and WebSocket) to remote clients, forwarding and recording each connection; prints the URL to point clients at')
    .requiredOption('--listen <host:port>', 'where to listen, e.g. 127.0.0.1:8080 (port 0: a free port)')
    .requiredOption('--to <url>', 'the remote agent\'s endpoint: http(s)://host/acp (WebSocket upgrades go to the same URL as ws(s)://)')
    .option(...DB_OPTION)
    .option('--name <label>', 'name the recordings')
    .option('--redact', 'redact credentials in recorded messages too (transport headers always are)')
    .option('--no-check', 'do not check the recordings live')
    .action(async (opts: { listen: string; to: string; db?: string; name?: string; redact?: boolean; check: boolean }) => {
      const listen = parseListen(opts.listen);
      if (!/^(https?|wss?):\/\/[^/]/i.test(opts.to)) throw new CliError(`--to needs the remote agent's http(s):// or ws(s):// URL, got "${opts.to}"`);
      try { new URL(opts.to); } catch { throw new CliError(`--to is not a URL: "${opts.to}"`); }
      const { startProxy } = await import('../../remote/proxy.js');
      if (listen.host !== '127.0.0.1' && listen.host !== 'localhost' && listen.host !== '::1') {
        process.stderr.write(`acp-inspect: warning: listening on ${listen.host}, not only on loopback; anyone who can reach it can talk to the agent through it\n`);
      }
      const say = (msg: string) => process.stderr.write(`${msg}\n`);
      let proxy: Awaited<ReturnType<typeof startProxy>>;
      try {
        proxy = await startProxy({ ...listen, to: opts.to, db: opts.db, name: opts.name, redact: opts.redact ?? false, check: opts.check }, say);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        const why = code === 'EADDRINUSE' ? 'the address is in use; choose another --listen port' : code === 'EACCES' ? 'permission denied; choose a port above 1023' : (e as Error).message;
        throw new CliError(`cannot listen on ${opts.listen}: ${why}`, 1);
      }
      process.stdout.write(`${proxy.url}\n`);
      process.stderr.write(`acp-inspect: proxying ${proxy.url} to ${opts.to.replace(/\/\/[^@/]*@/, '//')}; press Ctrl-C to stop\n`);
      const stop = () => {
        void proxy.close().then(() => process.exit(0));
        setTimeout(() => process.exit(0), 5000).unref();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
