/** Messages between the viewer page and its worker. */
export type ToWorker =
  | { type: 'open'; data: Blob | string; name: string }
  | { type: 'call'; id: number; method: string; args: unknown[] };

export type FromWorker =
  | { type: 'progress'; message: string }
  /** The recording can be read; its findings follow when the checker is done. */
  | { type: 'ready'; id: number; items: number; ms: number }
  | { type: 'checked'; ms: number; findings: { seq: number; rule: string; severity: string }[] }
  | { type: 'error'; message: string }
  | { type: 'reply'; id: number; value?: unknown; error?: string; status?: number };
