/** Each spec part the rules and the probe cite links to the protocol's page for it. */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_DOCS, TRANSPORT_RFD, specUrl } from '../../src/spec/doc-links.js';
import { RULES } from '../../src/check/rule-list.js';
import { ROOT } from '../helpers.js';

/** The pages the protocol's site has (its navigation: Protocol). */
const PAGES = ['overview', 'initialization', 'session-setup', 'prompt-turn', 'content', 'tool-calls', 'file-system', 'terminals',
  'agent-plan', 'session-modes', 'session-config-options', 'slash-commands', 'extensibility', 'transports', 'schema', 'cancellation'];

describe('specUrl', () => {
  it('maps the most specific part it knows, down to the part number', () => {
    expect(specUrl('4.4 rule 8')).toBe(`${PROTOCOL_DOCS}session-modes`);
    expect(specUrl('4.4 rule 3')).toBe(`${PROTOCOL_DOCS}initialization#prompt-capabilities`);
    expect(specUrl('9 rule 2')).toBe(`${PROTOCOL_DOCS}initialization#protocol-version`);
    expect(specUrl('2.6')).toBe(`${PROTOCOL_DOCS}content`);
    expect(specUrl('2.13')).toBe(`${PROTOCOL_DOCS}schema`); // → 2
    expect(specUrl('6 rule 3')).toBe(`${PROTOCOL_DOCS}prompt-turn#3-agent-reports-output`); // → 6
    expect(specUrl('nonsense')).toBe(`${PROTOCOL_DOCS}overview`);
    expect(specUrl('RFD streamable-http-websocket-transport: Identity Model')).toBe(TRANSPORT_RFD);
  });

  it('gives every rule and every probe scenario a page of the protocol\'s site', () => {
    const probeSpecs = readdirSync(join(ROOT, 'src', 'probe'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(ROOT, 'src', 'probe', f), 'utf8').matchAll(/spec: '([0-9. a-z]+)'/g)].map((m) => m[1]!));
    expect(probeSpecs.length).toBeGreaterThan(10);
    for (const spec of [...RULES.map((r) => r.spec), ...probeSpecs]) {
      const url = specUrl(spec);
      // The transport rules cite the remote transport's RFD, which the spec leaves out.
      if (spec.startsWith('RFD ')) { expect(url, spec).toBe(TRANSPORT_RFD); continue; }
      const page = url.slice(PROTOCOL_DOCS.length).split('#')[0]!;
      expect(PAGES, `${spec} → ${url}`).toContain(page);
    }
    for (const r of RULES) expect(r.url).toBe(specUrl(r.spec));
  });
});
