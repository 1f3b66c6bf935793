/**
 * The fold `acp-inspect check` runs over a recording: every item through one checker, findings
 * collected in order, then the end-of-recording findings, all sorted by seq. Shared by the
 * one-thread path (run.ts) and the checking worker (check-worker.ts), so both report the same.
 */
import type { Item } from '../wire/frame.js';
import { createChecker, type Checker, type Finding } from './checker.js';

export interface CheckRun {
  findings: Finding[];
  items: number;
  frames: number;
}

export class CheckFold {
  private readonly c: Checker;
  private readonly findings: Finding[] = [];
  private n = 0;

  constructor(ignore: string[]) {
    this.c = createChecker({ ignore });
  }

  /** `chunk`: as Checker.step's. */
  step(item: Item, chunk?: number): void {
    this.n++;
    const f = this.c.step(item, chunk);
    for (let i = 0; i < f.length; i++) this.findings.push(f[i]!);
  }

  finish(): CheckRun {
    for (const f of this.c.end()) this.findings.push(f);
    this.findings.sort((a, b) => a.seq - b.seq);
    return { findings: this.findings, items: this.n, frames: this.c.state.frames };
  }
}
