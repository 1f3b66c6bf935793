/**
 * Why an agent did not start, in words, from its spawn-error event's data ({ code, message }, as
 * Node's spawn error gave them): said by the tap, kept as the recording's incomplete reason, and
 * reported by `check`, which has no session to check in such a recording.
 */
export function spawnFailure(data: unknown): string {
  const d = (data && typeof data === 'object' ? data : {}) as { code?: unknown; message?: unknown };
  if (d.code === 'ENOENT') return 'command not found';
  if (d.code === 'EACCES') return 'permission denied';
  return typeof d.message === 'string' ? d.message : 'it could not be started';
}
