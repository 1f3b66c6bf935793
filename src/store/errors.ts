/** Tool errors with a stable code; the CLI prints `message` on one line, the server maps to a status. */
export class StoreError extends Error {
  constructor(
    readonly code: 'E_DB_OPEN' | 'E_DB_FULL' | 'E_DB_CORRUPT' | 'E_DB_LOCKED' | 'E_DB_NEWER' | 'E_UNKNOWN_RECORDING' | 'E_DB_MISSING' | 'E_DB_WRITE'
      | 'E_NO_ITEM' | 'E_NO_NOTE' | 'E_NOTE_TOO_LONG' | 'E_NO_PROBE_RUN' | 'E_NO_PROBE_MATRIX' | 'E_NOT_INDEXED',
    message: string,
  ) {
    super(message);
  }
}
