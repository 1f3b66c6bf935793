/**
 * Headers for a remote agent: the `--header 'Name: value'` flags of the tap (with `${VAR}` taken from
 * the environment, so a token need not sit in an editor's settings file), and what of a header may
 * be recorded. Credentials are redacted at record time: the database never holds them.
 */
import { CliError } from '../errors.js';

/** What stands in for a credential in a recorded header (the same word as in redacted frames). */
export const REDACTED_HEADER = '<redacted>';

/** Header names whose values are credentials: Authorization, Cookie, Set-Cookie, and anything named like a key, token or secret. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|key|token|secret|passw|credential|auth|signature/i;

/** Whether a header's value is a credential and is recorded as `<redacted>`. */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/** A copy of `headers` (names lower-cased, in order) with credentials redacted. */
export function redactHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of headers) {
    const name = k.toLowerCase();
    const value = isSecretHeader(name) ? REDACTED_HEADER : v;
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

/** `${NAME}` or `$NAME` in a header value. */
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Parses the `--header` flags (`Name: value`, repeatable) into a header record, expanding `${VAR}`
 * and `$VAR` from `env`. A flag without a colon, an invalid name, or a variable that is not set is a
 * one-line error naming the flag.
 */
export function parseHeaderFlags(flags: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const colon = flag.indexOf(':');
    const name = colon === -1 ? '' : flag.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new CliError(`--header needs "Name: value", got "${flag}"`);
    }
    const value = flag.slice(colon + 1).trim().replace(ENV_REF, (_m, braced: string | undefined, bare: string | undefined) => {
      const v = env[(braced ?? bare)!];
      if (v === undefined) throw new CliError(`--header ${name}: environment variable ${braced ?? bare} is not set`);
      return v;
    });
    if (/[\r\n\0]/.test(value)) throw new CliError(`--header ${name}: the value may not hold a line break`);
    out[name] = value;
  }
  return out;
}

/** The URL with any password in it replaced, for the recording's command and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'redacted';
    return u.toString();
  } catch {
    return url;
  }
}

/** Whether the tap's target is a remote agent (an http(s):// or ws(s):// URL) rather than a command. */
export function isRemoteTarget(command: string): boolean {
  return /^(https?|wss?):\/\//i.test(command);
}
