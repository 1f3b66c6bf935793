/** Line diff of two texts (the `diff` package), shown as a unified diff. */
import { diffLines } from 'diff';

export function DiffView({ before, after, label }: { before: string; after: string; label?: string }) {
  const parts = diffLines(before, after);
  let added = 0;
  let removed = 0;
  for (const p of parts) {
    const n = p.count ?? 0;
    if (p.added) added += n;
    else if (p.removed) removed += n;
  }
  return (
    <div class="diff">
      {label && <div class="diff-label">{label} <span class="add">+{added}</span> <span class="del">−{removed}</span></div>}
      <pre class="diff-body">
        {parts.map((p, i) => {
          const cls = p.added ? 'add' : p.removed ? 'del' : 'ctx';
          const sign = p.added ? '+' : p.removed ? '-' : ' ';
          const lines = p.value.replace(/\n$/, '').split('\n');
          return <span key={i} class={`diff-${cls}`}>{lines.map((l) => `${sign} ${l}\n`).join('')}</span>;
        })}
      </pre>
    </div>
  );
}

export function jsonText(v: unknown): string {
  return v === undefined ? '' : `${JSON.stringify(v, null, 2)}\n`;
}
