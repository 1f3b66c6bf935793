/** The findings panel, grouped by severity and rule, like Wireshark's expert info. */
import type { FindingView } from './api.js';
import { findings, jumpTo } from './model.js';
import { Markdown } from './markdown.js';
import { SpecLink } from './spec-link.js';

const SEVS = ['error', 'warning', 'info'] as const;

export function FindingsPanel() {
  const all = findings.value;
  if (all === null) return <div class="panel"><p class="muted">Loading findings…</p></div>;
  if (all.length === 0) return <div class="panel"><p class="muted">No findings: the checker saw nothing against the spec in this recording.</p></div>;
  return (
    <div class="panel findings-panel">
      {SEVS.map((sev) => {
        const ofSev = all.filter((f) => f.severity === sev);
        if (!ofSev.length) return null;
        const byRule = new Map<string, FindingView[]>();
        for (const f of ofSev) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
        return (
          <section key={sev} aria-label={`${sev} findings`}>
            <h2 class={`sev-head sev-${sev}`}><span class={`badge sev-${sev}`}>{sev[0]!.toUpperCase()}</span> {sev === 'error' ? 'Errors' : sev === 'warning' ? 'Warnings' : 'Notes'} <span class="muted">({ofSev.length})</span></h2>
            {[...byRule.entries()].map(([rule, list]) => (
              <details key={rule} class="rule-group" open={sev === 'error' || byRule.size <= 6}>
                <summary>
                  <strong>{list[0]!.title ?? rule}</strong> <span class="muted">{rule}{list[0]!.spec ? <> · <SpecLink spec={list[0]!.spec} url={list[0]!.url} label={`spec ${list[0]!.spec}`} /></> : ''} · {list.length}×</span>
                </summary>
                {list[0]!.specText && <blockquote class="spec-text"><Markdown text={list[0]!.specText} /></blockquote>}
                <ul class="finding-list">
                  {list.slice(0, 500).map((f, i) => (
                    <li key={i}>
                      <button type="button" class="link" onClick={() => void jumpTo(f.seq)}>#{f.seq}</button> {f.message}
                    </li>
                  ))}
                  {list.length > 500 && <li class="muted">… {list.length - 500} more (filter rule:{rule} in the timeline)</li>}
                </ul>
              </details>
            ))}
          </section>
        );
      })}
    </div>
  );
}
