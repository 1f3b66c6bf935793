/**
 * Readable reports of divergences: one line per frame saying what happened, the path-level
 * differences, and a unified diff (the `diff` package) of the two frames with volatile values
 * normalised. Colour only when asked (the CLI asks when stderr/stdout is a TTY). Pure.
 */
import { createTwoFilesPatch } from 'diff';
import type { Frame } from '../wire/frame.js';
import { arrow } from '../wire/frame.js';
import { describeFrame, type Divergence } from './aligner.js';
import { describeDiffs, type IgnoreSet } from './json-diff.js';
import type { VolatileMap } from './volatile.js';

export interface RenderOptions {
  color?: boolean;
  map?: VolatileMap;
  ignore?: IgnoreSet;
  /** Include the unified diff of whole frames (default true). */
  patch?: boolean;
  /** Label of the live side (default "live"). */
  liveLabel?: string;
  recordedLabel?: string;
}

const C = { red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m', dim: '\x1b[2m', reset: '\x1b[0m' };

function paint(on: boolean | undefined, c: keyof typeof C, s: string): string {
  return on ? `${C[c]}${s}${C.reset}` : s;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

function blankIgnored(v: unknown, ignore: IgnoreSet | undefined, path: string[] = []): unknown {
  if (!ignore || ignore.size === 0) return v;
  if (path.length > 0 && ignore.matches(path)) return '<ignored>';
  if (Array.isArray(v)) return v.map((x, i) => blankIgnored(x, ignore, [...path, String(i)]));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = blankIgnored(x, ignore, [...path, k]);
    return out;
  }
  return v;
}

/**
 * A frame as pretty JSON for diffing: keys sorted, JSON-RPC id dropped (ids are mapped), ignored
 * paths blanked, and for a live frame ids and paths mapped back to the recording's.
 */
export function canonicalText(f: Frame, opts: { map?: VolatileMap; ignore?: IgnoreSet; live?: boolean } = {}): string {
  if (f.json === undefined || f.kind === 'invalid') return `${f.raw}\n`;
  let v: unknown = f.json;
  if (opts.live && opts.map) v = opts.map.toRecorded(v);
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const { id: _id, ...rest } = v as Record<string, unknown>;
    v = rest;
  }
  v = blankIgnored(v, opts.ignore);
  return `${JSON.stringify(sortKeys(v), null, 2)}\n`;
}

function colorPatch(patch: string, color: boolean | undefined): string {
  if (!color) return patch;
  return patch.split('\n').map((l) =>
    l.startsWith('+++') || l.startsWith('---') ? paint(true, 'dim', l)
      : l.startsWith('+') ? paint(true, 'green', l)
        : l.startsWith('-') ? paint(true, 'red', l)
          : l.startsWith('@@') ? paint(true, 'cyan', l) : l).join('\n');
}

/** A unified diff of a recorded and a live frame. */
export function framePatch(recorded: Frame | undefined, live: Frame | undefined, opts: RenderOptions = {}): string {
  const a = recorded ? canonicalText(recorded, { ignore: opts.ignore }) : '';
  const b = live ? canonicalText(live, { map: opts.map, ignore: opts.ignore, live: true }) : '';
  const ra = opts.recordedLabel ?? 'recorded';
  const lb = opts.liveLabel ?? 'live';
  const patch = createTwoFilesPatch(
    recorded ? `${ra} #${recorded.seq}` : `${ra} (none)`,
    live ? `${lb} #${live.seq}` : `${lb} (none)`,
    a, b, undefined, undefined, { context: 3 },
  );
  // Drop the "===" separator line the diff package writes first.
  return colorPatch(patch.split('\n').filter((l) => !/^=+$/.test(l)).join('\n').trimEnd(), opts.color);
}

function label(f: Frame): string {
  return `${arrow(f.dir)} ${describeFrame(f)}`;
}

/** Renders one divergence as lines of text. */
export function renderDivergence(d: Divergence, opts: RenderOptions = {}): string {
  const lines: string[] = [];
  const rl = opts.recordedLabel ?? 'recorded';
  const ll = opts.liveLabel ?? 'live';
  if (d.kind === 'changed') {
    lines.push(paint(opts.color, 'yellow', `~ changed: ${label(d.recorded)} (${rl} #${d.recorded.seq}, ${ll} #${d.live.seq}), ${d.diffs.length} difference${d.diffs.length === 1 ? '' : 's'}`));
    for (const l of describeDiffs(d.diffs, { recorded: rl, live: ll })) lines.push(`    ${l}`);
    if (opts.patch !== false) lines.push(indent(framePatch(d.recorded, d.live, opts)));
  } else if (d.kind === 'missing') {
    lines.push(paint(opts.color, 'red', `- missing: ${label(d.recorded)} (${rl} #${d.recorded.seq})${d.reason ? `: ${d.reason}` : ''}`));
    if (opts.patch !== false) lines.push(indent(framePatch(d.recorded, undefined, opts)));
  } else {
    lines.push(paint(opts.color, 'green', `+ extra: ${label(d.live)} (${ll} #${d.live.seq}) has no match: ${d.reason}`));
    if (d.nearest) {
      lines.push(`    nearest ${rl}: ${label(d.nearest)} (#${d.nearest.seq})`);
      for (const l of describeDiffs(d.diffs, { recorded: rl, live: ll })) lines.push(`    ${l}`);
      if (opts.patch !== false) lines.push(indent(framePatch(d.nearest, d.live, opts)));
    } else if (opts.patch !== false) {
      lines.push(indent(framePatch(undefined, d.live, opts)));
    }
  }
  return lines.join('\n');
}

function indent(s: string): string {
  return s.split('\n').map((l) => `    ${l}`).join('\n');
}

/** Sorts divergences by the position they concern (recorded seq, else live seq) and renders them all. */
export function renderDivergences(ds: readonly Divergence[], opts: RenderOptions = {}): string {
  return sortDivergences(ds).map((d) => renderDivergence(d, opts)).join('\n');
}

/** Divergences in the order of the position they concern (recorded seq, else live seq). */
export function sortDivergences(ds: readonly Divergence[]): Divergence[] {
  const pos = (d: Divergence): number => (d.kind === 'extra' ? (d.nearest?.seq ?? Number.MAX_SAFE_INTEGER) + 0.5 : d.recorded.seq);
  return [...ds].sort((a, b) => pos(a) - pos(b));
}

/** Counts by kind: `2 changed, 1 missing, 0 extra`. */
export function summarize(ds: readonly Divergence[]): { changed: number; missing: number; extra: number; text: string } {
  const changed = ds.filter((d) => d.kind === 'changed').length;
  const missing = ds.filter((d) => d.kind === 'missing').length;
  const extra = ds.filter((d) => d.kind === 'extra').length;
  return { changed, missing, extra, text: `${changed} changed, ${missing} missing, ${extra} extra` };
}
