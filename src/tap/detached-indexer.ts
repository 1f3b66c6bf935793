/**
 * Starts a detached indexer: `acp-inspect index --db FILE` in a process of its own (its own session,
 * no stdio, not waited for), which finishes the capture logs beside the database that no live
 * process indexes (see recover.ts). The tap starts one when it exits before its recording is all
 * indexed, and any command that opens the database starts one when it finds such logs: the editor
 * never waits on the recorder, and nobody has to run anything for a recording to be finished.
 */
import { lazyRequire } from './agent.js';

const started = new Set<string>();

export function startDetachedIndexer(dbPath: string): void {
  if (started.has(dbPath) || process.env.ACP_INSPECT_NO_DETACHED_INDEXER === '1') return;
  started.add(dbPath);
  const cli = process.argv[1];
  if (!cli) return;
  try {
    const { spawn } = lazyRequire('node:child_process') as typeof import('node:child_process');
    const child = spawn(process.execPath, [cli, 'index', '--db', dbPath], { detached: true, stdio: 'ignore' });
    child.on('error', () => { /* the next opener starts one */ });
    child.unref();
  } catch { /* the next opener starts one */ }
}
