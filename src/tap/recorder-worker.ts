/**
 * The recorder on a worker thread (see recorder/index.ts): beside the JavaScript forwarder, which
 * forwards on the main thread, SQLite (synchronous, and possibly locked by another process for
 * seconds) must never block the thread that forwards bytes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WORKER_BUSY_MS, type FromRecorder, type RecorderConfig } from './messages.js';
import { lowerPriority, startRecorder } from './recorder/index.js';
import { onOrphanedCaptures } from '../store/orphans.js';
import { startDetachedIndexer } from './detached-indexer.js';

lowerPriority();
// The database may hold capture logs that dead taps left: the recorder's first open finds them.
onOrphanedCaptures(startDetachedIndexer);

const port = parentPort!;
const recorder = startRecorder(workerData as RecorderConfig, (m: FromRecorder) => port.postMessage(m), {
  busyTimeoutMs: WORKER_BUSY_MS,
  // A failure the recorder did not expect ends this thread; the tap sees it ('error') and forwards on.
  onFatal: (e) => { throw e; },
});
port.on('message', (m: 'poke' | { handOff: [number | null, string | null] }) => {
  if (m === 'poke') recorder.poke();
  else {
    recorder.handOff(...m.handOff);
    port.postMessage({ handedOff: true } satisfies FromRecorder);
  }
});
