/**
 * The database schema as a chain of migrations. `PRAGMA user_version` holds how many have run.
 * Append new migrations; never edit one that has shipped (old databases replay the chain).
 */
export const MIGRATIONS: string[] = [
  // 1: recordings, items (frames, stderr lines, events in one seq space), findings.
  `
  CREATE TABLE recordings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL,            -- running | complete | incomplete | interrupted | imported
    incomplete INTEGER NOT NULL DEFAULT 0,
    incomplete_reason TEXT,
    command TEXT,                    -- JSON array: the agent command and its args
    cwd TEXT,
    pid INTEGER,                     -- agent pid
    host_pid INTEGER,                -- pid of the tap writing this recording
    heartbeat_at INTEGER,            -- epoch ms of the writer's last write
    exit_code INTEGER,
    exit_signal TEXT,
    client_name TEXT, client_version TEXT,
    agent_name TEXT, agent_version TEXT,
    protocol_version INTEGER,
    item_count INTEGER NOT NULL DEFAULT 0,
    frame_count INTEGER NOT NULL DEFAULT 0,
    error_count INTEGER NOT NULL DEFAULT 0,
    warning_count INTEGER NOT NULL DEFAULT 0,
    info_count INTEGER NOT NULL DEFAULT 0,
    duration_ms REAL,
    header TEXT                      -- JSON: transcript header fields not held in columns
  );
  CREATE TABLE items (
    recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    dir TEXT NOT NULL,               -- c2a | a2c | stderr | event
    kind TEXT,                       -- frame kind, or the event type
    method TEXT,
    rpc_id TEXT,                     -- the JSON-RPC id, JSON-encoded
    reply_to INTEGER,                -- for responses: seq of the request
    latency REAL,
    session_id TEXT,
    size INTEGER,
    raw TEXT NOT NULL,               -- exact line (event: data as JSON)
    raw_bytes BLOB,                  -- the bytes, only when they were not valid UTF-8
    parse_error TEXT,
    truncated INTEGER
  );
  CREATE UNIQUE INDEX items_rec_seq ON items(recording_id, seq);
  CREATE INDEX items_rec_method ON items(recording_id, method);
  CREATE INDEX items_rec_kind ON items(recording_id, kind);
  CREATE INDEX items_rec_session ON items(recording_id, session_id);
  CREATE INDEX items_rec_reply ON items(recording_id, reply_to);
  CREATE TABLE findings (
    recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    severity TEXT NOT NULL,          -- error | warning | info
    rule TEXT NOT NULL,
    message TEXT NOT NULL,
    spec TEXT
  );
  CREATE INDEX findings_rec_seq ON findings(recording_id, seq);
  CREATE INDEX findings_rec_rule ON findings(recording_id, severity, rule);
  `,
  // 2: notes and marks a user writes on items (a mark is a note with empty text).
  `
  CREATE TABLE notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,            -- the item it is on
    text TEXT NOT NULL,              -- '' for a bare mark
    created_at TEXT NOT NULL,        -- ISO 8601
    updated_at TEXT                  -- ISO 8601, when the text was changed
  );
  CREATE INDEX notes_rec_seq ON notes(recording_id, seq);
`,
  // 3: reply_to is indexed only where it is set (answers). Most frames of a session are
  // notifications (streamed updates), requests or stderr lines, which have none: a burst of them
  // writes one index entry fewer per frame, and every lookup by it (reply_to = ?) implies the
  // condition and still uses the index.
  `
  DROP INDEX items_rec_reply;
  CREATE INDEX items_rec_reply ON items(recording_id, reply_to) WHERE reply_to IS NOT NULL;
`,
  // 4: probe runs (acp-inspect probe agent|client): the JSON report of each run, whose scenarios
  // name their recordings, for the UI's scorecard. A scenario's recording is an ordinary recording.
  `
  CREATE TABLE probe_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    probe TEXT NOT NULL,             -- agent | client
    started_at TEXT NOT NULL,        -- ISO 8601
    ended_at TEXT,                   -- ISO 8601; null while it runs
    target TEXT,                     -- the target's name, for lists
    verdict TEXT,                    -- conformant | not conformant; null while it runs
    report TEXT                      -- the JSON report (see src/probe/report.ts)
  );
`,
  // 5: the capture log a recording is indexed from (see src/tap/capture-log.ts): its file name in the
  // database's "-captures" folder while it is not fully indexed, how many of its bytes are, the
  // indexer's state at that point (to resume), and which process indexes it now (pid and start).
  `
  ALTER TABLE recordings ADD COLUMN capture TEXT;
  ALTER TABLE recordings ADD COLUMN capture_indexed INTEGER;
  ALTER TABLE recordings ADD COLUMN index_state TEXT;
  ALTER TABLE recordings ADD COLUMN indexer TEXT;
  CREATE INDEX recordings_capture ON recordings(capture) WHERE capture IS NOT NULL;
`,
  // 6: probe matrices (acp-inspect probe agents): the matrix of one run over several agents, a column
  // per agent (each its own probe run), kept as its JSON and rewritten as each agent's probe ends, for
  // the UI's matrix view. Its cells name the scenarios' recordings.
  `
  CREATE TABLE probe_matrices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,        -- ISO 8601
    ended_at TEXT,                   -- ISO 8601; null while it runs (or when it was interrupted)
    matrix TEXT NOT NULL             -- the JSON matrix so far (see src/probe/agents.ts)
  );
`,
  // 7: a text chunk frame's text length and update kind (see wire/lazy-chunk.ts's chunkColumnOf:
  // the text's UTF-8 length × 4 + an index into CHUNK_UPDATES; null for any other row), so that a
  // reader of sizes alone (the waterfall, insights) reads no chunk frame's text: on text that is not
  // ASCII, reading it cost them twice their time on ASCII (issue 45). Rows written before have none.
  `
  ALTER TABLE items ADD COLUMN chunk INTEGER;
`,
];
