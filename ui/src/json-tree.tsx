/** A collapsible JSON tree (keyboard-accessible through native <details>). */
import { useState } from 'preact/hooks';

const MAX_STR = 400;

function Str({ s }: { s: string }) {
  const [full, setFull] = useState(false);
  if (s.length <= MAX_STR || full) return <span class="j-str">{JSON.stringify(s)}</span>;
  return (
    <span class="j-str">
      {JSON.stringify(s.slice(0, MAX_STR))}…{' '}
      <button type="button" class="link" onClick={() => setFull(true)}>show all {s.length} chars</button>
    </span>
  );
}

function Leaf({ v }: { v: unknown }) {
  if (v === null) return <span class="j-null">null</span>;
  if (typeof v === 'string') return <Str s={v} />;
  if (typeof v === 'number') return <span class="j-num">{String(v)}</span>;
  if (typeof v === 'boolean') return <span class="j-bool">{String(v)}</span>;
  return <span>{String(v)}</span>;
}

function Node({ name, v, depth, open }: { name: string | null; v: unknown; depth: number; open: number }) {
  const label = name === null ? null : <span class="j-key">{name}</span>;
  if (v === null || typeof v !== 'object') {
    return <div class="j-row">{label}{label && <span class="j-colon">: </span>}<Leaf v={v} /></div>;
  }
  const arr = Array.isArray(v);
  const entries = arr ? (v as unknown[]).map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, unknown>);
  const brief = arr ? `[${entries.length}]` : `{${entries.length}}`;
  if (entries.length === 0) return <div class="j-row">{label}{label && <span class="j-colon">: </span>}<span class="j-punct">{arr ? '[]' : '{}'}</span></div>;
  return (
    <details class="j-node" open={depth < open}>
      <summary>{label}{label && <span class="j-colon">: </span>}<span class="j-punct">{brief}</span></summary>
      <div class="j-children">
        {entries.slice(0, 2000).map(([k, x]) => <Node key={k} name={k} v={x} depth={depth + 1} open={open} />)}
        {entries.length > 2000 && <div class="muted">… {entries.length - 2000} more</div>}
      </div>
    </details>
  );
}

export function JsonTree({ value, open = 3 }: { value: unknown; open?: number }) {
  return <div class="json-tree"><Node name={null} v={value} depth={0} open={open} /></div>;
}
