/**
 * What the console's server and its page say to each other (types only: the page imports them with
 * `import type`). The browser sends JSON-RPC through the server (POST) and hears everything on the
 * agent's stdio and every change of the console's state on one event stream (SSE).
 */
import type { Direction, FrameKind, RpcId } from '../wire/frame.js';

/** One line the console wrote to the tap (c2a) or read from it (a2c), as it went. */
export interface ConsoleFrame {
  type: 'frame';
  /** The console's own count of its lines, from 1 (per agent process: see `run`). */
  n: number;
  /** Which agent process (1 for the first; a reconnect starts the next). */
  run: number;
  dir: Direction;
  /** Wall-clock ms. */
  at: number;
  /** The line (cut to CONSOLE_RAW_LIMIT characters for the page; the recording keeps it whole). */
  raw: string;
  kind: FrameKind;
  method?: string;
  id?: RpcId;
  /** The parsed message, when the line is JSON and not cut. */
  json?: unknown;
  parseError?: string;
}

/** A request of the agent that waits on the user. */
export interface PendingRequest {
  /** JSON of the request's id: what an answer names. */
  key: string;
  id: RpcId;
  method: string;
  params: unknown;
  /** Wall-clock ms when it arrived (the page shows how long the agent has waited). */
  receivedAt: number;
  /** fs/write_text_file: the file as it is (null: it does not exist) and as the agent would have it. */
  write?: { path: string; oldText: string | null; newText: string };
}

export interface ConsoleStatus {
  /** The agent command (from the command line, never from the page). */
  command: string[];
  /** The folder reads and writes are served from and kept inside. */
  cwd: string;
  /** Which agent process: 1, then one more per reconnect. */
  run: number;
  state: 'running' | 'exited';
  exitCode: number | null;
  signal: string | null;
  /** The recording of this run, once the tap has made it. */
  recordingId: number | null;
  /** Terminal commands the agent asks for run only when this is on (switched on in the page). */
  terminals: boolean;
  /**
   * How permission requests are answered: `ask` (they wait for the user), or at once with the first
   * option of the kind `allow` or `reject` names (for repeated runs). Kept across reconnects.
   */
  permissions: PermissionPolicy;
  /**
   * A fork: this run began by replaying a recording's client side up to a frame (with the replay's
   * matching: ids, sessions and paths mapped), then the console took over.
   */
  fork: { recordingId: number; seq: number; state: 'replaying' | 'done'; sent: number; divergences: number | null; ended: string | null } | null;
  /** What the last `initialize` the console sent advertised for the duties the server performs. */
  advertised: { readTextFile: boolean; writeTextFile: boolean; terminal: boolean; authTerminal: boolean };
  /**
   * The terminal auth methods of the agent's answer to that `initialize`, each with exactly what
   * running it would run: the console's own agent command with the method's `args` appended, and
   * its `env` overrides. The page shows this to confirm; it never names a command itself.
   */
  terminalAuth: TerminalAuthMethod[];
  /** The terminal auth method run last (or running now). */
  authRun: { methodId: string; state: 'running' | 'done'; exitCode: number | null; signal: string | null; /** Ended by the page's Cancel. */ cancelled: boolean } | null;
  /** Whether the console runs in a terminal (a terminal auth method then runs there, interactively). */
  tty: boolean;
}

export interface TerminalAuthMethod {
  id: string;
  name: string;
  description: string | null;
  command: string[];
  env: Record<string, string>;
}

export type PermissionPolicy = 'ask' | 'allow' | 'reject';

/**
 * A command the agent ran through the console's terminals (terminal/create), as the page shows it
 * in the tool call that names it: its output so far (the last CONSOLE_TERMINAL_KEPT characters) and
 * its exit once it ended. Kept after the agent releases it (a client keeps showing a released
 * terminal's output), for the last CONSOLE_TERMINALS_KEPT terminals of the run.
 */
export interface TerminalView {
  terminalId: string;
  output: string;
  /** Output was cut from the front. */
  truncated: boolean;
  exit: { exitCode: number | null; signal: string | null } | null;
}

export type ConsoleEvent =
  | ConsoleFrame
  | { type: 'status'; status: ConsoleStatus }
  | { type: 'pending'; pending: PendingRequest[] }
  /** A terminal's new output (`append`, to add to what the page has) and, once it ended, its exit; of agent process `run`. */
  | { type: 'terminal'; run: number; terminalId: string; append: string; truncated: boolean; exit: TerminalView['exit'] }
  /** Something the console did on its own (served a read, refused a write outside the folder). */
  | { type: 'notice'; level: 'info' | 'error'; text: string; at: number }
  /**
   * The state as the stream began: always its first event, taken as the page was subscribed, so that
   * nothing between a page's state and its first change is lost (and again on every reconnect).
   */
  | { type: 'snapshot'; snapshot: ConsoleSnapshot };

/** The state a page starts from (GET /api/console); the event stream then carries every change. */
export interface ConsoleSnapshot {
  status: ConsoleStatus;
  pending: PendingRequest[];
  /** The last frames of this run (at most CONSOLE_KEPT_FRAMES), oldest first. */
  frames: ConsoleFrame[];
  notices: Extract<ConsoleEvent, { type: 'notice' }>[];
  /** The terminals of this run, oldest first. */
  terminals: TerminalView[];
}

/** How much of a line the page is sent (a longer line comes cut, without its parsed message). */
export const CONSOLE_RAW_LIMIT = 64 * 1024;
/** How many recent frames the server keeps for a page that (re)connects, and at most how many bytes of them. */
export const CONSOLE_KEPT_FRAMES = 2000;
export const CONSOLE_KEPT_BYTES = 16 * 1024 * 1024;
/** How much of a terminal's output the page is shown (its last characters), and of how many terminals. */
export const CONSOLE_TERMINAL_KEPT = 1024 * 1024;
export const CONSOLE_TERMINALS_KEPT = 16;

/**
 * A running console as `serve` lists it (from a file the console keeps beside the database while
 * it runs). No token: the console's page opens only from the URL the console printed.
 */
export interface RunningConsoleInfo {
  pid: number;
  /** processStartId(pid): tells the console apart from a later process given the same pid. */
  hostStart: string | null;
  /** The console's address (without its token). */
  address: string;
  command: string[];
  cwd: string;
  startedAt: string;
  /** The recording it is making now (a reconnect starts another). */
  recordingId: number | null;
}
