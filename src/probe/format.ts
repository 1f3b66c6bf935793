/** The terminal table of a probe report, by tier: status, scenario, spec section, why, recording id. Pure. */
import { TIERS, type ProbeReport, type ScenarioResult, type Tier } from './report.js';

const TIER_TITLE: Record<Tier, string> = {
  required: 'Required (a failure makes the target not conformant)',
  capability: 'Capability (run when advertised; a failure makes the target not conformant)',
  advisory: 'Advisory (reported, does not change the verdict)',
  info: 'Info (what the target does where the spec says "not shown" or binds the other peer; not graded)',
  unstable: 'Unstable (methods and fields the spec marks UNSTABLE, "not part of the specification"; never decide the verdict)',
};

const MARK: Record<ScenarioResult['status'], string> = { pass: 'pass', fail: 'FAIL', skip: 'skip', info: 'info' };

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** The report as text: one section per tier, one line per scenario, then the verdict. */
export function formatProbeReport(report: ProbeReport, opts: { width?: number } = {}): string {
  const width = Math.max(80, opts.width ?? 120);
  const idW = Math.max(8, ...report.scenarios.map((s) => s.id.length));
  const specW = Math.max(4, ...report.scenarios.map((s) => s.spec.length));
  const lines: string[] = [];
  const t = report.target;
  // Named by its name (and its command beside it); without agentInfo/clientInfo, by its command.
  const who = t.name ? `${[t.name, t.version].filter(Boolean).join(' ')}${t.command ? `  (${t.command.join(' ')})` : ''}` : t.command?.join(' ') ?? '(no name given)';
  lines.push(`probe ${report.probe}: ${who}`);
  for (const tier of TIERS) {
    const rows = report.scenarios.filter((s) => s.tier === tier);
    if (!rows.length) continue;
    lines.push('', TIER_TITLE[tier]);
    for (const s of rows) {
      const rec = `${s.durationMs !== undefined ? `${(s.durationMs / 1000).toFixed(1)} s  ` : ''}${s.recording === null ? '' : `#${s.recording}`}`;
      const head = `  ${MARK[s.status]}  ${s.id.padEnd(idW)}  ${s.spec.padEnd(specW)}  `;
      const whyW = Math.max(20, width - head.length - rec.length - 2);
      const why = clip(s.why, whyW);
      lines.push(`${head}${why.padEnd(whyW)}  ${rec}`.trimEnd());
      for (const f of s.findings.filter((f) => f.severity === 'error').slice(0, 3)) {
        lines.push(`        ${clip(`checker #${f.seq} ${f.rule} (${f.spec}): ${f.message}`, width - 8)}`);
      }
      if (s.status === 'fail' && s.quote) lines.push(`        ${clip(`spec: ${s.quote}`, width - 8)}`);
      if (s.reproduce) lines.push(`        as a fixture: ${s.reproduce}`);
    }
  }
  const ambient = report.ambient ?? [];
  if (ambient.length) {
    lines.push('', 'Ambient (findings outside what any scenario was about, once for the run; a required one counts as one required failure)');
    for (const a of ambient) {
      const rec = `#${a.recording}`;
      const head = `  ${(a.tier === 'required' ? 'FAIL' : a.severity).padEnd(7)} ${a.tier.padEnd(10)} `;
      lines.push(`${head}${clip(`${a.rule} (spec ${a.spec}): ${a.message} — in ${a.scenarios.length} scenario${a.scenarios.length === 1 ? '' : 's'}`, Math.max(20, width - head.length - rec.length - 2))}  ${rec}`);
    }
  }
  const c = report.counts;
  const b = report.baseline;
  if (b) {
    lines.push('', `Baseline ${b.file}: ${b.known.length} known failure${b.known.length === 1 ? '' : 's'}${b.known.length ? ` (${b.known.join(', ')})` : ''}; ` +
      `${b.unexpected.length ? `NEW: ${b.unexpected.join(', ')}` : 'no new failure'}${b.stale.length ? `; stale (now passing, drop them): ${b.stale.join(', ')}` : ''}`);
  }
  const shared = report.scenarios.filter((s) => s.sharedProcess).length;
  if (report.durationMs !== undefined) {
    lines.push('', `Time: ${(report.durationMs / 1000).toFixed(1)} s in all; the agent's start-up and handshake ${report.handshakeMs !== undefined ? `${(report.handshakeMs / 1000).toFixed(1)} s` : 'not timed'}` +
      `${shared ? `; ${shared} scenario${shared === 1 ? '' : 's'} ran on shared processes` : ''}.`);
  }
  lines.push('', `${report.verdict.toUpperCase()}: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped, ${c.info} info` +
    (report.run !== undefined ? `; probe run ${report.run} (open it with: acp-inspect serve, or show a scenario with: acp-inspect show ID)` : ''));
  return `${lines.join('\n')}\n`;
}
