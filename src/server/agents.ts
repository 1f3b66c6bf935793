/**
 * Recordings compared per agent name and version: latency percentiles per method and prompt turn
 * durations over every recording of each agent version, so a slower release shows (`GET /api/agents`).
 */
import type { Store } from '../store/store.js';
import type { AgentRow } from '../view/contract.js';
import { quantile } from '../view/insights.js';

export function agentComparison(store: Store): AgentRow[] {
  const recs = store.db.prepare('SELECT id, agent_name AS name, agent_version AS version FROM recordings ORDER BY id')
    .all() as { id: number; name: string | null; version: string | null }[];
  const rows = new Map<string, AgentRow & { lat: Map<string, number[]> }>();
  const byRec = new Map<number, AgentRow & { lat: Map<string, number[]> }>();
  for (const r of recs) {
    const key = JSON.stringify([r.name, r.version]);
    let row = rows.get(key);
    if (!row) {
      row = { name: r.name, version: r.version, recordings: [], turns: 0, turnP50: null, turnP90: null, errors: 0, methods: [], lat: new Map() };
      rows.set(key, row);
    }
    row.recordings.push(r.id);
    byRec.set(r.id, row);
  }
  const lat = store.db.prepare(`SELECT recording_id AS id, method, kind, latency FROM items
      WHERE latency IS NOT NULL AND method IS NOT NULL AND kind IN ('result', 'error')`).raw().iterate() as Iterable<[number, string, string, number]>;
  for (const [id, method, kind, latency] of lat) {
    const row = byRec.get(id);
    if (!row) continue;
    if (kind === 'error') row.errors++;
    const list = row.lat.get(method);
    if (list) list.push(latency); else row.lat.set(method, [latency]);
  }
  const out: AgentRow[] = [];
  for (const { lat: byMethod, ...row } of rows.values()) {
    for (const [method, v] of byMethod) {
      v.sort((a, b) => a - b);
      row.methods.push({ method, answered: v.length, p50: quantile(v, 0.5), p90: quantile(v, 0.9), p99: quantile(v, 0.99), max: v[v.length - 1] ?? null });
      if (method === 'session/prompt') {
        row.turns = v.length;
        row.turnP50 = quantile(v, 0.5);
        row.turnP90 = quantile(v, 0.9);
      }
    }
    row.methods.sort((a, b) => b.answered - a.answered || a.method.localeCompare(b.method));
    out.push(row);
  }
  return out.sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || (a.version ?? '').localeCompare(b.version ?? '', undefined, { numeric: true }));
}
