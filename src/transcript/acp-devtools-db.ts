/**
 * Reads acp-devtools' captures database (`~/.acp-devtools/captures.db`, SQLite; where its proxy saves
 * every session) for `acp-inspect import`: each session becomes a recording, read the way that tool
 * exports it (its messages in `seq` order) and turned into transcript lines by acp-devtools.ts, so a
 * session imported from the database and the same session exported to a file are the same
 * recording. The database is opened read-only and never changed.
 */
import Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';
import { parseTranscript, TranscriptError, type Recording } from './format.js';
import { acpDevtoolsToLines, ACP_DEVTOOLS } from './acp-devtools.js';

const SQLITE_MAGIC = 'SQLite format 3\0';

/** True when `file` starts as every SQLite database does. */
export function isSqliteFile(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(SQLITE_MAGIC.length);
    return readSync(fd, buf, 0, buf.length, 0) === buf.length && buf.toString('latin1') === SQLITE_MAGIC;
  } finally {
    closeSync(fd);
  }
}

interface SessionRow { id: number; name: string | null; agent_command: string | null; client_name: string | null; started_at: number; ended_at: number | null }

/** A session of the database as a recording (its header's `source.sessionId` is the session's id). */
export interface CapturedSession { sessionId: number; recording: Recording }

/**
 * True when the SQLite database `file` has acp-devtools' `sessions` and `messages` tables (with the
 * columns read here). Throws TranscriptError when it cannot be opened.
 */
export function isAcpDevtoolsDb(file: string): boolean {
  const db = open(file);
  try {
    const cols = (t: string) => new Set((db.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name));
    const s = cols('sessions'), m = cols('messages');
    return ['id', 'name', 'agent_command', 'started_at', 'ended_at'].every((c) => s.has(c))
      && ['session_id', 'seq', 'timestamp', 'direction', 'raw'].every((c) => m.has(c));
  } finally {
    db.close();
  }
}

function open(file: string): Database.Database {
  try {
    return new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new TranscriptError(`cannot open the database read-only (${(e as Error).message})`, undefined, file);
  }
}

/** Every session of an acp-devtools captures database, oldest first, one at a time. */
export function* acpDevtoolsSessions(file: string): Generator<CapturedSession> {
  const db = open(file);
  try {
    const hasClient = (db.pragma('table_info(sessions)') as { name: string }[]).some((c) => c.name === 'client_name');
    const sessions = db.prepare(`SELECT id, name, agent_command, ${hasClient ? 'client_name' : 'NULL AS client_name'}, started_at, ended_at FROM sessions ORDER BY id`).all() as SessionRow[];
    const messages = db.prepare('SELECT timestamp, direction, raw FROM messages WHERE session_id = ? ORDER BY seq ASC');
    for (const s of sessions) {
      const doc = {
        version: 1,
        tool: { name: ACP_DEVTOOLS },
        session: { id: s.id, name: s.name, agentCommand: s.agent_command, clientName: s.client_name, startedAt: s.started_at, endedAt: s.ended_at },
        messages: messages.all(s.id),
      };
      let recording: Recording;
      try {
        recording = parseTranscript(acpDevtoolsToLines(doc).join('\n'));
      } catch (e) {
        throw e instanceof TranscriptError ? new TranscriptError(`session ${s.id}: ${e.detail}`, undefined, file) : e;
      }
      const source = recording.header.source as Record<string, unknown>;
      source.format = 'acp-devtools-db';
      delete source.exportVersion;
      yield { sessionId: s.id, recording };
    }
  } finally {
    db.close();
  }
}
