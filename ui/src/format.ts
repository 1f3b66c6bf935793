/** Small formatting helpers for times, sizes and directions. */
import type { ItemDir } from '../../src/wire/frame.js';
import { toMicrosecond } from '../../src/view/waterfall.js';

export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '';
  const a = toMicrosecond(Math.abs(ms));
  const sign = ms < 0 ? '−' : '';
  if (a < 1) return `${sign}${a.toFixed(2)}ms`;
  if (a < 1000) return `${sign}${a < 10 ? a.toFixed(1) : Math.round(a)}ms`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(a < 10_000 ? 2 : 1)}s`;
  const m = Math.floor(a / 60_000);
  const s = Math.floor((a % 60_000) / 1000);
  if (m < 60) return `${sign}${m}m${String(s).padStart(2, '0')}s`;
  return `${sign}${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Clock-like relative time: 1:02.345 */
export function fmtClock(ms: number): string {
  const neg = ms < 0;
  const a = Math.abs(ms);
  const h = Math.floor(a / 3_600_000);
  const m = Math.floor((a % 3_600_000) / 60_000);
  const s = (a % 60_000) / 1000;
  const sec = s.toFixed(3).padStart(6, '0');
  return `${neg ? '−' : ''}${h ? `${h}:${String(m).padStart(2, '0')}` : m}:${sec}`;
}

export function fmtSize(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function fmtDate(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export const DIR_LABEL: Record<ItemDir, string> = { c2a: 'client → agent', a2c: 'agent → client', stderr: 'agent stderr', event: 'event' };
