/**
 * What to call a peer where a name is shown: its name and version from `initialize` (clientInfo,
 * agentInfo), or, when it gave none, the command that started it (as `list` does), shortened to the
 * last part of each path. Pure: the served UI, the HTML report and the probe's report all use it.
 */

/** A command line, each path cut to its last part: `/usr/bin/node /x/agent.js --fast` → `node agent.js --fast`. */
export function commandLabel(command: readonly string[] | null | undefined): string | null {
  if (!command?.length) return null;
  // A path is one word with a slash; a flag, a scoped package (`@scope/agent`) and a script given
  // to a shell (`sh -c "…"`) stay as they were.
  const isPath = (a: string) => !a.startsWith('-') && !a.startsWith('@') && !/\s/.test(a) && /[/\\]/.test(a);
  return command.map((a) => (isPath(a) ? a.replace(/[/\\]+$/, '').split(/[/\\]/).pop() || a : a)).join(' ');
}

/** `name version`, or null when the peer gave no name. */
export function nameLabel(info: { name: string | null; version: string | null } | null | undefined): string | null {
  if (!info?.name) return null;
  return [info.name, info.version].filter(Boolean).join(' ');
}

/**
 * The label of one side of a recording: its name, else the command when that side is the process
 * the command started (the agent of a tap or an agent probe; the client of a client probe), else null.
 */
export function peerLabel(r: { name: string | null; command: string[] | null; agent: { name: string | null; version: string | null }; client: { name: string | null; version: string | null } }, side: 'agent' | 'client'): string | null {
  const named = nameLabel(r[side]);
  if (named) return named;
  const spawned = /^probe client #\d+: /.test(r.name ?? '') ? 'client' : 'agent';
  return side === spawned ? commandLabel(r.command) : null;
}

/** The title of a probe's target: its name, else its command, else "(no name given)". */
export function targetLabel(t: { name: string | null; version: string | null; command: readonly string[] | null }): string {
  return nameLabel(t) ?? commandLabel(t.command) ?? '(no name given)';
}
