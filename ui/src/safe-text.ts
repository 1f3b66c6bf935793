/**
 * Every piece of text the views render shows control characters instead of obeying them: bidi
 * overrides and isolates (which can make a frame read backwards, or a file name lie about its
 * extension), ANSI escapes and other C0/C1 controls become visible marks (⟨U+202E⟩, ␛). Done once,
 * for all views, where Preact creates text nodes; tabs and newlines stay as they are.
 */
import { options, type VNode } from 'preact';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

export function visibleControls(s: string): string {
  if (!CONTROL.test(s)) return s;
  return s.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code); // ␛ for ESC, ␍ for CR, ...
    if (code === 0x7f) return '␡';
    return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
}

const previous = options.vnode;
options.vnode = (v: VNode) => {
  if (v.type === null && typeof v.props === 'string') (v as unknown as { props: string }).props = visibleControls(v.props);
  previous?.(v);
};
