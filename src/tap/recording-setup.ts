/**
 * What a tap's recording starts from, for both kinds of tap (a spawned agent's, and a remote agent's
 * bridge): its capture log, opened beside the database before the first byte flows, and the
 * recorder's configuration.
 */
import { join } from 'node:path';
import type { TapOptions } from './args.js';
import type { RecorderConfig } from './messages.js';
import type { OpenCaptureLog } from './recorder-client.js';

/** What of the tap's options a recording is made with (the proxy has them too). */
export type RecordingOptions = Pick<TapOptions, 'name' | 'redact' | 'maxFrameBytes' | 'check' | 'ui' | 'otlp'>;
import { createCaptureLog } from './capture-log.js';
import { capturesDir } from '../store/paths.js';
import { diskFullMessage, refusedForSpace } from '../store/disk.js';
import { processStartId } from '../store/process-id.js';

/**
 * Opens the recording's capture log beside the database. Null (and the reason in `why`) when it
 * cannot be made: the session goes on unrecorded, and the tap says so once. `command` is what the
 * recording names as its agent (the command and its args, or the remote agent's URL).
 */
export function openCaptureLog(opts: RecordingOptions, command: string[], dbPath: string, startedMs: number, why: { message: string }): OpenCaptureLog | null {
  try {
    const header = {
      name: opts.name ?? null, command, cwd: process.cwd(), startedAt: new Date(startedMs).toISOString(),
      hostPid: process.pid, hostStart: processStartId(process.pid), redact: opts.redact, maxFrameBytes: opts.maxFrameBytes ?? null, check: opts.check,
    };
    const { fd, name, pos, pendingHeader } = createCaptureLog(dbPath, header);
    return { fd, name, pos, path: join(capturesDir(dbPath), name), pendingHeader };
  } catch (e) {
    why.message = refusedForSpace(e, dbPath) ? diskFullMessage(dbPath) : `cannot write beside database ${dbPath} (${(e as Error).message})`;
    return null;
  }
}

/** What a tap says when it has no capture log (openCaptureLog's `why`): the session goes on unrecorded. */
export function notRecording(why: { message: string }): string {
  return `acp-inspect: not recording: ${why.message}; the session is forwarded unrecorded`;
}

/** The recorder's configuration for a tap (see RecorderClient.start). */
export function recorderConfig(opts: RecordingOptions, command: string[], dbPath: string, startedMs: number): Omit<RecorderConfig, 'capture'> {
  return {
    dbPath,
    name: opts.name ?? null,
    command,
    cwd: process.cwd(),
    hostPid: process.pid,
    startedAt: new Date(startedMs).toISOString(),
    redact: opts.redact,
    maxFrameBytes: opts.maxFrameBytes ?? null,
    check: opts.check,
    ui: opts.ui ?? null,
    otlp: opts.otlp ?? null,
  };
}
