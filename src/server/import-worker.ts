/**
 * An upload's import (POST /api/import) on a worker thread, from its own connection to the database:
 * reading, checking and storing a transcript of hundreds of MiB is seconds of synchronous work (2.6 s
 * for 207 MiB), during which the server's thread answered nothing. The upload is already a file
 * (upload.ts); the worker reads it as `acp-inspect import FILE` does, and says what it made, or why
 * not. Where the compiled module is not there to start (the server run from its TypeScript sources,
 * as the tests' in-process server is), the import runs on the server's thread.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { Store } from '../store/store.js';
import { transcriptFileStream } from '../source.js';
import { importChecked } from '../check-run/stored.js';
import { TranscriptError } from '../transcript/format.js';
import { StoreError } from '../store/errors.js';

/** What the route asks: the upload's file, the database, and the name a query gave (or none). */
export interface ImportJob { dbPath: string; file: string; name: string | null }

/** What the worker answers: the new recording, or the error as the route would have thrown it. */
export type ImportResult =
  | { id: number; items: number }
  | { error: { kind: 'transcript' | 'store' | 'other'; code?: string; message: string } };

/** Imports `job`'s file into its database: the work itself, on whichever thread runs it. */
export function runImport(job: ImportJob): ImportResult {
  try {
    const store = Store.open(job.dbPath);
    try {
      const src = transcriptFileStream(job.file, undefined, true);
      return importChecked(store, src, job.name || src.header.name || 'imported');
    } finally {
      store.close();
    }
  } catch (e) {
    const message = (e as Error)?.message ?? String(e);
    if (e instanceof TranscriptError) return { error: { kind: 'transcript', message } };
    if (e instanceof StoreError) return { error: { kind: 'store', code: e.code, message } };
    return { error: { kind: 'other', message } };
  }
}

const WORKER = new URL('./import-worker.js', import.meta.url);

/** Imports an upload on a worker thread (see above); resolves with what it made, or why not. */
export function importUpload(job: ImportJob): Promise<ImportResult> {
  if (!existsSync(fileURLToPath(WORKER))) return Promise.resolve(runImport(job));
  return new Promise((resolve) => {
    const w = new Worker(WORKER, { workerData: { importJob: job } });
    let result: ImportResult | null = null;
    w.once('message', (m: ImportResult) => { result = m; });
    w.once('error', (e) => { result ??= { error: { kind: 'other', message: e.message } }; });
    w.once('exit', () => resolve(result ?? { error: { kind: 'other', message: 'the import\'s worker stopped' } }));
  });
}

if (parentPort && (workerData as { importJob?: ImportJob } | null)?.importJob) {
  parentPort.postMessage(runImport((workerData as { importJob: ImportJob }).importJob));
}
