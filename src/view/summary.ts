/**
 * What the views show of a recording that is not in a store (a transcript file in the report or the
 * viewer): its summary row, and findings with their rule's title and spec sentence. Pure.
 */
import type { Item } from '../wire/frame.js';
import { peerInfoOf } from '../wire/peer-info.js';
import type { Recording } from '../transcript/format.js';
import type { FindingView, RecordingSummary, StoredFinding } from './contract.js';
import type { RuleInfo } from '../check/rule.js';
import { specUrl } from '../spec/doc-links.js';

/**
 * A finding with its rule's title and spec sentence (the rule's spec section when the finding names
 * none), and the protocol's page for that section.
 */
export function withRuleInfo(f: StoredFinding, rules: ReadonlyMap<string, RuleInfo>): FindingView {
  const r = rules.get(f.rule);
  const spec = f.spec ?? r?.spec;
  const url = spec ? { url: specUrl(spec) } : {};
  return r ? { ...f, title: r.title, specText: r.specText, spec: f.spec ?? r.spec, ...url } : { ...f, ...url };
}

const STATUSES = new Set(['complete', 'incomplete', 'interrupted', 'imported']);

/** The summary row of a transcript, as importing it would store it (a running recording reads as interrupted). */
export function summaryOf(rec: Recording, findings: readonly StoredFinding[], id = 1): RecordingSummary {
  const h = rec.header;
  const info = peerInfoOf(rec.items);
  const count = (s: string) => findings.filter((f) => f.severity === s).length;
  const items: Item[] = rec.items;
  const status = typeof h.status === 'string' && STATUSES.has(h.status) ? h.status as RecordingSummary['status'] : h.status === 'running' ? 'interrupted' : 'imported';
  return {
    id, name: h.name ?? null, startedAt: h.startedAt ?? '', endedAt: h.endedAt ?? null, status,
    incomplete: h.incomplete === true || status === 'interrupted', incompleteReason: null, command: h.command ?? null, cwd: h.cwd ?? null, pid: h.pid ?? null,
    exitCode: h.exitCode ?? null, exitSignal: h.exitSignal ?? null,
    client: { name: h.client?.name ?? info.clientName ?? null, version: h.client?.version ?? info.clientVersion ?? null },
    agent: { name: h.agent?.name ?? info.agentName ?? null, version: h.agent?.version ?? info.agentVersion ?? null },
    protocolVersion: h.protocolVersion ?? info.protocolVersion ?? null, items: items.length,
    frames: items.filter((i) => i.dir === 'c2a' || i.dir === 'a2c').length,
    errors: count('error'), warnings: count('warning'), infos: count('info'),
    durationMs: items.length ? items[items.length - 1]!.t : 0,
  };
}
