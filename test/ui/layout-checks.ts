/**
 * What "the page holds at this width" means, measured in the page (getBoundingClientRect,
 * scrollWidth): each problem as one line naming the element. Passed to `page.evaluate`, so it is one
 * self-contained function that uses nothing from outside.
 */
export function layoutProblems(): string[] {
  const problems: string[] = [];
  const name = (el: Element): string => {
    const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${el.tagName.toLowerCase()}${cls}${text ? ` "${text}"` : ''}`;
  };
  const shown = (el: Element): boolean => {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  const root = document.documentElement;
  // 1. The page scrolls only down, and nothing that scrolls sideways holds more than it shows
  //    (a table whose last links are off its edge); code and JSON may scroll, they are text.
  if (root.scrollWidth > root.clientWidth + 1) problems.push(`the page is ${root.scrollWidth - root.clientWidth}px wider than the window`);
  for (const el of document.querySelectorAll('body *')) {
    if (!shown(el) || el.closest('pre, code, textarea, .json, .raw, .md-code, .diff, .patch')) continue;
    const ox = getComputedStyle(el).overflowX;
    if ((ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} scrolls sideways: ${el.scrollWidth - el.clientWidth}px hidden`);
  }
  // 2. Column headers: each label whole (not clipped) and clear of its neighbours.
  const heads = [...document.querySelectorAll('.row.head > span, .lane-head > span, th, .wf-ruler-label')].filter(shown);
  for (const el of heads) {
    if (el.children.length === 0 && el.scrollWidth > el.clientWidth + 1) problems.push(`header ${name(el)} is cut: ${el.scrollWidth}px of text in ${el.clientWidth}px`);
  }
  for (const parent of new Set(heads.map((h) => h.parentElement!))) {
    const kids = [...parent.children].filter(shown).map((k) => ({ k, r: k.getBoundingClientRect() }));
    for (let i = 0; i < kids.length; i++) {
      for (let j = i + 1; j < kids.length; j++) {
        const a = kids[i]!.r;
        const b = kids[j]!.r;
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) problems.push(`headers ${name(kids[i]!.k)} and ${name(kids[j]!.k)} overlap`);
      }
    }
  }
  // 3. Severity badges: whole, never cut by the cell or row that holds them.
  for (const badge of [...document.querySelectorAll('.badge, .sev, .pill')].filter(shown)) {
    const r = badge.getBoundingClientRect();
    if (badge.scrollWidth > badge.clientWidth + 1) problems.push(`badge ${name(badge)} is cut inside`);
    for (let p = badge.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const pr = p.getBoundingClientRect();
      if (r.left < pr.left - 0.5 || r.right > pr.right + 0.5) { problems.push(`badge ${name(badge)} is cut by ${name(p)}`); break; }
    }
  }
  // 4. A turn card's summary ends above the row after it.
  for (const card of [...document.querySelectorAll('.turn-card')].filter(shown)) {
    const body = card.querySelector('.turn-body');
    if (body && card.scrollHeight > card.clientHeight + 1 && card.clientHeight < 40 * 24 - 10) problems.push(`${name(card)} is cut: ${card.scrollHeight - card.clientHeight}px of it hidden`);
  }
  return problems;
}
