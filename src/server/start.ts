/**
 * Starts the HTTP server: binds 127.0.0.1 (another host only when asked explicitly), picks a random
 * token per launch, and answers with the URL to open. Used by `acp-inspect serve` and the tap's `--ui`.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { spawn } from 'node:child_process';
import { getRequestListener } from '@hono/node-server';
import { defaultDbPath } from '../store/paths.js';
import { createApp, type InspectorApp } from './app.js';
import type { ConsoleSession } from '../console/session.js';

export interface StartOptions {
  dbPath?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. Anything else is the caller's explicit choice (warn the user). */
  host?: string;
  /** Open the URL in the default browser. */
  open?: boolean;
  /** Poll interval of the live stream in ms (default 250). */
  pollMs?: number;
  /** Largest accepted import upload in bytes (default 256 MiB). */
  maxUploadBytes?: number;
  /** Serve this console's page and routes too (`acp-inspect console`); the URL then opens it. */
  console?: ConsoleSession;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

/** Host header values that name this server. */
function hostNames(host: string, port: number): string[] {
  const names = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  if (host !== '127.0.0.1') {
    const wildcard = host === '0.0.0.0' || host === '::';
    if (!wildcard) names.add(`${host.includes(':') ? `[${host}]` : host}:${port}`.toLowerCase());
    else {
      for (const list of Object.values(networkInterfaces())) {
        for (const a of list ?? []) names.add(`${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${port}`.toLowerCase());
      }
    }
  }
  return [...names];
}

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  let said = false;
  const cannot = () => {
    if (!said) process.stderr.write(`acp-inspect: could not open a browser (${cmd}); open ${url} yourself\n`);
    said = true;
  };
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', cannot);
    // xdg-open with no browser to run says so only by its exit status.
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) cannot();
    });
    child.unref();
  } catch {
    process.stderr.write(`acp-inspect: could not open a browser; open ${url} yourself\n`);
  }
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const token = randomBytes(24).toString('base64url');
  const allowedHosts: string[] = [];
  let app: InspectorApp | null = null;
  const listener = getRequestListener((req, env) => (app ? app.fetch(req, env) : new Response('starting\n', { status: 503 })));
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      reject(Object.assign(new Error(e.code === 'EADDRINUSE'
        ? `port ${opts.port} is in use; pass another --port, or --port 0 for a free one`
        : `cannot listen on ${host}:${opts.port ?? 0}: ${e.message}`), { exitCode: 2 }));
    });
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port ?? 0;
  allowedHosts.push(...hostNames(host, port));
  try {
    app = createApp({ dbPath: opts.dbPath ?? defaultDbPath(), token, allowedHosts, cookieName: `acp_inspect_${port}`, pollMs: opts.pollMs, maxUploadBytes: opts.maxUploadBytes, console: opts.console });
  } catch (e) {
    server.close();
    throw e;
  }
  const shownHost = host === '127.0.0.1' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}/${opts.console ? 'console' : ''}?token=${token}`;
  if (opts.open) openBrowser(url);
  let closing: Promise<void> | null = null;
  return {
    url, port, token,
    close() {
      closing ??= new Promise<void>((resolve) => {
        app?.close();
        server.close(() => resolve());
        // SSE streams stay open: end them so close() does not wait for the browser.
        server.closeAllConnections?.();
      });
      return closing;
    },
  };
}
