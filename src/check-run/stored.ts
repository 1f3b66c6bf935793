/**
 * Runs the protocol checker over a stored recording and stores its findings (import, re-check).
 */
import type { Store } from '../store/store.js';
import { createChecker, type Finding } from '../check/checker.js';

export function checkStoredRecording(store: Store, id: number): Finding[] {
  const c = createChecker();
  const findings: Finding[] = [];
  for (const item of store.iterateItems(id)) {
    const f = c.step(item);
    for (let i = 0; i < f.length; i++) findings.push(f[i]!);
  }
  for (const f of c.end()) findings.push(f);
  findings.sort((a, b) => a.seq - b.seq);
  store.replaceFindings(id, findings);
  return findings;
}
