/**
 * Tap options, parsed by hand (no commander) to keep the tap's start-up lean:
 *   acp-inspect [--db FILE] [--name LABEL] [--ui[=PORT]] [--redact] [--max-frame-bytes N]
 *               [--no-check] [--otlp [URL]] [--otel-content] -- <agent command> [args...]
 *   acp-inspect [same options] [--header 'Name: value']... -- <http(s):// or ws(s):// URL>
 */
import { CliError } from '../errors.js';
import { isRemoteTarget, parseHeaderFlags } from '../remote/headers.js';
import { OtlpConfigError, resolveOtlpTarget, type OtlpTarget } from '../otel/endpoint.js';

export interface TapOptions {
  db?: string;
  name?: string;
  /** Serve the UI from the tap: undefined = no, 0 = a free port, N = that port. */
  ui?: number;
  redact: boolean;
  maxFrameBytes?: number;
  check: boolean;
  /** Send spans live to an OpenTelemetry collector (--otlp). */
  otlp?: { target: OtlpTarget; content: boolean };
  /** Headers for a remote agent (`--header 'Name: value'`, environment variables expanded). */
  headers: Record<string, string>;
  command: string;
  args: string[];
}

export const TAP_USAGE =
  'usage: acp-inspect [--db FILE] [--name LABEL] [--ui[=PORT]] [--redact] [--max-frame-bytes N] [--no-check] [--otlp [URL]] [--otel-content] [--header "Name: value"]... -- <agent command> [args...] | <http(s):// or ws(s):// URL>';

function count(flag: string, v: string | undefined): number {
  if (v === undefined || !/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new CliError(`${flag} needs a whole number ≥ 0, got ${v === undefined ? 'nothing' : `"${v}"`}; ${TAP_USAGE}`);
  }
  return Number(v);
}

export function parseTapArgs(argv: string[]): TapOptions {
  const dd = argv.indexOf('--');
  if (dd === -1) throw new CliError(`no agent command; put it after --. ${TAP_USAGE}`);
  const opts: TapOptions = { redact: false, check: true, headers: {}, command: '', args: [] };
  const headerFlags: string[] = [];
  const before = argv.slice(0, dd);
  let otlp: string | undefined | null = null;
  let otelContent = false;
  for (let i = 0; i < before.length; i++) {
    const a = before[i]!;
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') && eq !== -1 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq !== -1 ? a.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = before[++i];
      if (v === undefined) throw new CliError(`${flag} needs a value; ${TAP_USAGE}`);
      return v;
    };
    switch (flag) {
      case 'tap': break; // `acp-inspect tap [options] -- cmd`
      case '--db': opts.db = value(); break;
      case '--name': opts.name = value(); break;
      case '--ui': opts.ui = inline === undefined ? 0 : count('--ui', inline); break;
      case '--redact': opts.redact = true; break;
      case '--max-frame-bytes': opts.maxFrameBytes = count('--max-frame-bytes', value()); break;
      case '--no-check': opts.check = false; break;
      case '--otlp':
        // The URL is optional: --otlp=URL, or --otlp URL when the next word is not an option.
        otlp = inline ?? (before[i + 1] !== undefined && !before[i + 1]!.startsWith('-') && before[i + 1] !== 'tap' ? before[++i] : undefined);
        break;
      case '--otel-content': otelContent = true; break;
      case '--no-color': break; // the tap prints no colour; every command takes it (docs/cli.md)
      case '--header': headerFlags.push(value()); break;
      default:
        throw new CliError(`unknown tap option "${a}"; ${TAP_USAGE}`);
    }
  }
  if (otlp !== null) {
    try {
      opts.otlp = { target: resolveOtlpTarget(otlp, process.env), content: otelContent };
    } catch (e) {
      if (e instanceof OtlpConfigError) throw new CliError(e.message);
      throw e;
    }
  } else if (otelContent) throw new CliError(`--otel-content needs --otlp; ${TAP_USAGE}`);
  const cmd = argv.slice(dd + 1);
  if (cmd.length === 0 || cmd[0] === '') throw new CliError(`no agent command after --; ${TAP_USAGE}`);
  opts.command = cmd[0]!;
  opts.args = cmd.slice(1);
  if (headerFlags.length > 0) {
    if (!isRemoteTarget(opts.command)) throw new CliError(`--header is for a remote agent: put an http(s):// or ws(s):// URL after --; ${TAP_USAGE}`);
    opts.headers = parseHeaderFlags(headerFlags, process.env);
  }
  if (isRemoteTarget(opts.command) && opts.args.length > 0) throw new CliError(`a remote agent is one URL after --, got "${opts.args[0]}" after it; ${TAP_USAGE}`);
  return opts;
}
