/**
 * Fault injection for replays: what the mock side does to the frames it sends, to test how robust
 * the peer is. Pure: the IO edges ask `plan` what to do with each outgoing frame.
 *
 * A method selector is a method name (`session/update`), optionally with a session update kind
 * (`session/update:tool_call`); a response is selected by the method of the request it answers.
 */
import type { Frame } from '../wire/frame.js';
import { updateKind } from './aligner.js';

export interface FaultPlan {
  /** Wait this long before sending frames of these methods. */
  delay?: Array<{ method: string; ms: number }>;
  /** Never send frames of these methods. */
  drop?: string[];
  /** Send frames of these methods twice. */
  duplicate?: string[];
  /** Answer the peer's requests of these methods with a JSON-RPC error instead of the recorded answer. */
  errorFor?: string[];
  /** After this many frames were sent, send a line that is not JSON. */
  malformedAfter?: number;
  /** After this many frames were sent, close the connection. */
  killAfter?: number;
}

/** The line injected by `malformedAfter`. */
export const MALFORMED_LINE = '{"jsonrpc":"2.0","method":"session/update" this line is deliberately not JSON';

export function selects(selector: string, f: Pick<Frame, 'method' | 'json' | 'kind'>): boolean {
  const [method, kind] = selector.split(':', 2);
  if (f.method !== method) return false;
  if (kind === undefined) return true;
  return updateKind(f as Frame) === kind;
}

export type FaultStep = { line: string; delayMs: number } | { close: true };

/** Stateful: counts frames sent. */
export class FaultInjector {
  private sent = 0;
  private killed = false;
  constructor(readonly plan: FaultPlan = {}) {}

  get active(): boolean {
    const p = this.plan;
    return !!(p.delay?.length || p.drop?.length || p.duplicate?.length || p.errorFor?.length || p.malformedAfter !== undefined || p.killAfter !== undefined);
  }

  /** Should the peer's request (of this method) be answered with an injected error? */
  errorFor(method: string | undefined): boolean {
    return method !== undefined && (this.plan.errorFor ?? []).some((s) => s.split(':')[0] === method);
  }

  /** What to write for one outgoing frame (whose recorded form is `f`). */
  apply(f: Pick<Frame, 'method' | 'json' | 'kind'>, line: string, delayMs: number): FaultStep[] {
    if (this.killed) return [];
    const p = this.plan;
    if (p.drop?.some((s) => selects(s, f))) return [];
    let extra = 0;
    for (const d of p.delay ?? []) if (selects(d.method, f)) extra += d.ms;
    const copies = p.duplicate?.some((s) => selects(s, f)) ? 2 : 1;
    const steps: FaultStep[] = [];
    for (let i = 0; i < copies; i++) {
      if (this.killed) break;
      steps.push({ line, delayMs: i === 0 ? delayMs + extra : 0 });
      this.sent++;
      if (p.malformedAfter !== undefined && this.sent === p.malformedAfter) steps.push({ line: MALFORMED_LINE, delayMs: 0 });
      if (p.killAfter !== undefined && this.sent >= p.killAfter) {
        this.killed = true;
        steps.push({ close: true });
      }
    }
    return steps;
  }
}

/** Parses `METHOD=MS` (for --delay). */
export function parseDelay(v: string): { method: string; ms: number } | undefined {
  const m = /^(.+)=(\d+)$/.exec(v);
  return m ? { method: m[1]!, ms: Number(m[2]) } : undefined;
}
