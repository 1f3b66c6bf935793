/**
 * A small Markdown renderer that builds Preact elements, never HTML strings: whatever the agent
 * streamed (including `<script>`), it ends up as text. Covers what agents write: paragraphs,
 * headings, lists, fenced code, block quotes, inline code, bold, italic and http(s) links.
 */
import type { ComponentChildren } from 'preact';

function inline(text: string, key = 0): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  const re = /(`+)([^`]+?)\1|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  let m: RegExpExecArray | null;
  let k = key;
  while ((m = re.exec(text)) !== null) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[2] !== undefined) out.push(<code key={k++}>{m[2]}</code>);
    else if (m[3] !== undefined || m[4] !== undefined) out.push(<strong key={k++}>{inline(m[3] ?? m[4]!, k * 100)}</strong>);
    else if (m[5] !== undefined || m[6] !== undefined) out.push(<em key={k++}>{inline(m[5] ?? m[6]!, k * 100)}</em>);
    else if (m[7] !== undefined) {
      const href = m[8]!;
      out.push(/^https?:\/\//i.test(href)
        ? <a key={k++} href={href} target="_blank" rel="noopener noreferrer">{m[7]}</a>
        : <span key={k++} class="md-link">{m[7]} ({href})</span>);
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A line of plain text whose `backticked` parts show as code (and nothing else is read as Markdown). */
export function InlineCode({ text }: { text: string }) {
  const parts = text.split(/`([^`]+)`/);
  return <>{parts.map((p, i) => (i % 2 ? <code key={i}>{p}</code> : p))}</>;
}

export function Markdown({ text }: { text: string }) {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const blocks: ComponentChildren[] = [];
  let i = 0;
  let key = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^\s*(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      blocks.push(<pre key={key++} class="md-code" data-lang={fence[2] || undefined}><code>{body.join('\n')}</code></pre>);
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      const level = Math.min(6, h[1]!.length + 2);
      const Tag = `h${level}` as 'h3';
      blocks.push(<Tag key={key++} class="md-h">{inline(h[2]!)}</Tag>);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d+[.)]/.test(line);
      const items: ComponentChildren[] = [];
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]!)) {
        items.push(<li key={items.length}>{inline(lines[i]!.replace(/^\s*([-*+]|\d+[.)])\s+/, ''))}</li>);
        i++;
      }
      blocks.push(ordered ? <ol key={key++}>{items}</ol> : <ul key={key++}>{items}</ul>);
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^\s*>\s?/, ''));
      blocks.push(<blockquote key={key++}>{inline(body.join(' '))}</blockquote>);
      continue;
    }
    if (line.trim() === '') { i++; continue; }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !/^\s*(```|~~~|#{1,6}\s|[-*+]\s|\d+[.)]\s|>)/.test(lines[i]!)) para.push(lines[i++]!);
    if (para.length === 0) { para.push(line); i++; }
    blocks.push(<p key={key++}>{inline(para.join('\n'))}</p>);
  }
  return <div class="md">{blocks}</div>;
}
