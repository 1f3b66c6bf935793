/**
 * The Hono app: the built Preact UI, a JSON API over the store and a live stream (SSE), all behind
 * one guard. The guard answers 403 when the Host header is not the loopback address and port we
 * listen on (DNS rebinding) or when an Origin header names another origin, and 401 without the
 * launch token (query `?token=`, `Authorization: Bearer`, or the cookie the first visit sets).
 * No route starts a process or touches a file other than the database; the UI is served from memory.
 * A console's server (`acp-inspect console`) adds its routes (src/console/routes.ts): they send to the
 * agent its command line started, and none of them takes a command.
 */
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { streamEvents } from './sse.js';
import { timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Store, stillRecording, toTranscriptNote } from '../store/store.js';
import { checkStoredSize, holdLimit, RecordingTooBig, transcriptFileStream, type MemoryLimit } from '../source.js';
import { transcriptDownload } from './download.js';
import { StoreError } from '../store/errors.js';
import { transcriptLines, TranscriptError } from '../transcript/format.js';
import { redactItems } from '../redact.js';
import { importUpload, type ImportResult } from './import-worker.js';
import { spoolUpload, UploadTooBig } from './upload.js';
import { listProbeRuns, getProbeRun, listProbeMatrices, getProbeMatrix } from '../store/probe-runs.js';
import { RULES, summarizeState } from '../check/index.js';
import { FilterError } from './filter.js';
import { findingsAt, listPage, listPosition, listTurns, methodStats, pairOf, patchOf, readItem, timelineGroups, turnItems } from './queries.js';
import { MatchCache } from './matches.js';
import { summarizeTurnAt } from '../view/turn-summary.js';
import { buildWaterfall } from '../view/waterfall.js';
import { InsightsFold } from '../view/insights.js';
import { agentComparison } from './agents.js';
import { Comparison, compareFrames } from './compare.js';
import { iterateFrames, readFrames } from '../store/frames.js';
import { withRuleInfo as ruleInfo } from '../view/summary.js';
import { LiveBus } from './live.js';
import { ModelCache } from './model-cache.js';
import { findViewerDir, loadStatic, type StaticFile } from './static.js';
import { NotesHttpError, registerNoteRoutes } from './notes.js';
import { registerSliceRoute } from './slice-route.js';
import { SliceError } from '../transcript/slice.js';
import { ConsoleError, type ConsoleSession } from '../console/session.js';
import { registerConsoleRoutes } from '../console/routes.js';
import { listConsoles } from '../console/registry.js';
import type { CompareIndex, CompareRowsPage, FindingView, ItemDetail, ItemState, LiveEvent, StoredFinding } from '../view/contract.js';

export interface AppOptions {
  dbPath: string;
  /** The launch token; requests must carry it (query, bearer header or cookie). */
  token: string;
  /**
   * Accepted Host header values (`127.0.0.1:PORT`, `localhost:PORT`). The array is read on every
   * request, so a server may fill it in once it knows its port. Empty: every request is refused.
   */
  allowedHosts?: string[];
  /** Name of the session cookie (per port: browsers share cookies between ports of one host). */
  cookieName?: string;
  /** Poll interval of the live stream (ms). */
  pollMs?: number;
  /** Built UI files (default: dist/ui read at start). */
  staticFiles?: Map<string, StaticFile>;
  /** Built static viewer files, offered at /viewer/ (default: dist/viewer read at start). */
  viewerFiles?: Map<string, StaticFile>;
  /** Largest accepted import upload in bytes (default 256 MiB). */
  maxUploadBytes?: number;
  /** The console this server is the page of (`acp-inspect console`): its routes and /console. */
  console?: ConsoleSession;
}

export type InspectorApp = Hono & {
  /** Stops the live poller and closes the database. */
  close(): void;
  readonly store: Store;
  readonly live: LiveBus;
  /** The checker's model per recording, folded once and shared by the routes. */
  readonly models: ModelCache;
};

const RULE_INFO = new Map(RULES.map((r) => [r.id, r]));

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function intParam(v: string | undefined, dflt: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v)) throw new HttpError(400, `expected a whole number, got "${v}"`);
  return Math.min(Number(v), max);
}

/** The most of its first recording a comparison holds (see MemoryLimit); the second is streamed. */
const COMPARE_LIMIT: MemoryLimit = {
  items: 250_000,
  bytes: 128 * 1024 * 1024,
  use: 'the first recording of a comparison',
  fix: 'compare parts: export each with `acp-inspect export ID --seq A-B -o a.jsonl` and run `acp-inspect diff a.jsonl b.jsonl`, or pick the smaller recording as the first',
};

/** The most of a recording a fork replays (it holds the items up to the frame, as replay holds a recording). */
const FORK_LIMIT = { items: 100_000, bytes: 64 * 1024 * 1024 };

/** Comparisons held for `/api/compare/rows` (each holds the first recording's frames). */
const KEPT_COMPARISONS = 2;

class HttpError extends Error {
  constructor(readonly status: 400 | 401 | 403 | 404 | 413 | 500 | 503, message: string) {
    super(message);
  }
}

const withRuleInfo = (f: StoredFinding): FindingView => ruleInfo(f, RULE_INFO);

export function createApp(opts: AppOptions): InspectorApp {
  const store = Store.open(opts.dbPath);
  try { store.markInterrupted(); } catch { /* locked: the poller retries */ }
  const models = new ModelCache(store, (id) => live.broadcastTo(id, { type: 'states', recordingId: id }), (id): boolean => live.watching(id));
  const live = new LiveBus(store, models, opts.pollMs ?? 250);
  // The filtered lists of matching seqs (pages and positions without COUNT(*) or OFFSET).
  const matches = new MatchCache(store);
  // The turns of a recording change only when it grows: keep the last listing of each (filters re-cut it).
  const turnsCache = new Map<number, { items: number; turns: ReturnType<typeof listTurns> }>();
  // The waterfall and insights of a recording as JSON, built together in one reading of its items (a
  // page at a time: only their spans, times and tallies are held) and kept while it does not grow
  // (the last few recordings).
  const timeCache = new Map<number, { items: number; waterfall: string; insights: string }>();
  const timeModel = (id: number) => {
    const items = store.getRecording(id)?.items;
    if (items === undefined) throw new HttpError(404, `no recording with id ${id}`);
    let hit = timeCache.get(id);
    if (!hit || hit.items !== items) {
      const ins = new InsightsFold();
      const wf = buildWaterfall((function* () {
        for (const it of store.pagedItems(id, 0, Number.MAX_SAFE_INTEGER, 1000, { bytes: true })) {
          ins.step(it);
          yield it;
        }
      })());
      hit = { items, waterfall: JSON.stringify(wf), insights: JSON.stringify(ins.finish(wf)) };
      timeCache.delete(id);
      if (timeCache.size >= 4) timeCache.delete(timeCache.keys().next().value!);
      timeCache.set(id, hit);
    }
    return hit;
  };
  const files = opts.staticFiles ?? loadStatic();
  const viewerFiles = opts.viewerFiles ?? loadStatic(findViewerDir());
  const allowedHosts = opts.allowedHosts ?? [];
  const cookieName = opts.cookieName ?? 'acp_inspect';
  const maxUpload = opts.maxUploadBytes ?? 256 * 1024 * 1024;
  const app = new Hono();

  app.onError((err, c) => {
    if (err instanceof HttpError || err instanceof NotesHttpError) return c.json({ error: err.message }, err.status);
    if (err instanceof FilterError) return c.json({ error: err.message }, 400);
    if (err instanceof ConsoleError) return c.json({ error: err.message }, err.status);
    if (err instanceof TranscriptError || err instanceof SliceError) return c.json({ error: err.message }, 400);
    if (err instanceof StoreError) {
      const status = err.code === 'E_UNKNOWN_RECORDING' || err.code === 'E_NO_NOTE' || err.code === 'E_NO_PROBE_RUN' || err.code === 'E_NO_PROBE_MATRIX' ? 404 : err.code === 'E_DB_LOCKED' || err.code === 'E_DB_FULL' || err.code === 'E_NOT_INDEXED' ? 503
        : err.code === 'E_NO_ITEM' || err.code === 'E_NOTE_TOO_LONG' ? 400 : 500;
      return c.json({ error: err.message }, status);
    }
    return c.json({ error: `internal error: ${(err as Error).message ?? String(err)}` }, 500);
  });

  // ---- the guard: every route, pages, API and live stream ---------------------------------
  app.use('*', async (c, next) => {
    const host = (c.req.header('host') ?? '').toLowerCase();
    if (!allowedHosts.includes(host)) {
      return c.text(`403 Forbidden: Host "${host}" is not this server's loopback address; open the URL acp-inspect printed\n`, 403);
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowedHosts.some((h) => origin.toLowerCase() === `http://${h}`)) {
      return c.text('403 Forbidden: cross-origin request\n', 403);
    }
    // Browsers say where a request comes from: only top-level navigations may come from elsewhere
    // (the user opening the printed URL); an <img> or <script> on another site or another local
    // port (same-site, so the cookie would ride along) gets nothing.
    const site = c.req.header('sec-fetch-site');
    if ((site === 'cross-site' || site === 'same-site') && c.req.header('sec-fetch-mode') !== 'navigate') {
      return c.text('403 Forbidden: cross-site request\n', 403);
    }
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Content-Security-Policy',
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    const q = c.req.query('token');
    if (q !== undefined) {
      if (!sameToken(q, opts.token)) return c.text('401 Unauthorized: wrong token; open the URL acp-inspect printed at this launch\n', 401);
      setCookie(c, cookieName, opts.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      if (c.req.method === 'GET' && !c.req.path.startsWith('/api/')) {
        // Drop the token from the address bar (and from history and bookmarks).
        const url = new URL(c.req.url);
        url.searchParams.delete('token');
        // Never `//host`: a path must not turn the redirect into one to another site.
        const path = /^\/[^/\\]/.test(url.pathname) ? url.pathname : '/';
        return c.redirect(`${path}${url.search}`, 302);
      }
      return next();
    }
    const auth = c.req.header('authorization');
    if (auth?.startsWith('Bearer ') && sameToken(auth.slice(7), opts.token)) return next();
    if (sameToken(getCookie(c, cookieName), opts.token)) return next();
    return c.text('401 Unauthorized: open the URL acp-inspect printed (it carries ?token=...)\n', 401);
  });

  // ---- pages --------------------------------------------------------------------------------
  const index = (c: Context) => {
    const f = files.get('/index.html');
    if (!f) return c.text('The UI is not built; run `npm run build` in the acp-inspect folder. The JSON API under /api/ works.\n', 503);
    return c.body(f.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': f.type });
  };
  app.get('/', index);
  app.get('/index.html', index);
  if (opts.console) app.get('/console', index);
  app.get('/assets/*', (c) => {
    const f = files.get(c.req.path);
    if (!f) return c.text('404 Not Found\n', 404);
    c.header('Cache-Control', 'private, max-age=31536000, immutable');
    return c.body(f.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': f.type });
  });
  app.get('/favicon.svg', (c) => {
    const f = files.get('/favicon.svg');
    return f ? c.body(f.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': f.type }) : c.body(null, 404);
  });

  // The static viewer (the same page as dist/viewer on any static host): it reads a transcript in
  // the browser and never calls the API. Its worker compiles the JSON Schemas of the checker (ajv
  // generates code), so the worker alone may evaluate code; it has no DOM and fetches nothing.
  app.get('/viewer', (c) => c.redirect('/viewer/', 302));
  app.get('/viewer/*', (c) => {
    const rest = c.req.path.slice('/viewer'.length);
    const f = viewerFiles.get(rest === '/' ? '/index.html' : rest);
    if (!f) return c.text(rest === '/' ? 'The viewer is not built; run `npm run build` in the acp-inspect folder.\n' : '404 Not Found\n', rest === '/' ? 503 : 404);
    if (rest === '/' || rest === '/index.html') {
      c.header('Content-Security-Policy', "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; img-src data:; connect-src https: http:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    } else if (/^\/assets\/viewer-worker-[\w-]+\.js$/.test(rest)) {
      c.header('Content-Security-Policy', "default-src 'none'; script-src 'self' 'unsafe-eval'");
    }
    return c.body(f.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': f.type });
  });

  // ---- API ----------------------------------------------------------------------------------
  const recId = (c: Context): number => {
    const id = c.req.param('id') ?? '';
    if (!/^\d+$/.test(id)) throw new HttpError(404, `no recording with id ${id}`);
    const rec = store.getRecording(Number(id));
    if (!rec) throw new HttpError(404, `no recording with id ${id}`);
    return rec.id;
  };

  app.get('/api/recordings', (c) => c.json(store.listRecordings({ search: c.req.query('search') || undefined })));
  app.get('/api/recordings/:id', (c) => c.json(store.getRecording(recId(c))));
  app.delete('/api/recordings/:id', (c) => {
    const id = recId(c);
    const rec = store.getRecording(id)!;
    if (stillRecording(rec)) throw new HttpError(400, `recording ${id} is still being recorded; stop its tap first`);
    store.deleteRecording(id);
    models.drop(id);
    matches.drop(id);
    turnsCache.delete(id);
    timeCache.delete(id);
    live.poke();
    return c.json({ deleted: id });
  });
  // The upload goes to a file beside the database as it comes, then in as `acp-inspect import FILE`
  // takes a file: streamed into one transaction and checked in the same reading.
  const uploadTooBig = (c: Context) => {
    c.header('Connection', 'close');
    return c.json({ error: `upload too large (limit ${maxUpload} bytes); import it with \`acp-inspect import FILE\`` }, 413);
  };
  app.post('/api/import', async (c) => {
    if (Number(c.req.header('content-length')) > maxUpload) return uploadTooBig(c);
    let file: string;
    const dir = dirname(resolve(opts.dbPath));
    try {
      file = await spoolUpload((c.env as { incoming?: AsyncIterable<Uint8Array> } | undefined)?.incoming ?? c.req.raw.body, dir, maxUpload);
    } catch (e) {
      if (e instanceof UploadTooBig) return uploadTooBig(c);
      const code = (e as NodeJS.ErrnoException).code;
      if (code && ['ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'ENOENT'].includes(code)) throw new HttpError(500, `cannot keep the upload in ${dir}, the database's folder (${code}); free some space there or let this user write it, or import the file with \`acp-inspect import FILE\``);
      throw e;
    }
    let done: ImportResult;
    try {
      done = await importUpload({ dbPath: store.path, file, name: c.req.query('name') || null });
    } finally {
      rmSync(file, { force: true });
    }
    if ('error' in done) {
      const { kind, code, message } = done.error;
      // The messages name the file they read: here, the upload.
      if (kind === 'transcript') throw new HttpError(400, message.split(file).join('the upload'));
      if (kind === 'store') throw new StoreError(code as StoreError['code'], message);
      throw new Error(message);
    }
    live.poke();
    return c.json({ id: done.id, items: done.items }, 201);
  });
  app.get('/api/recordings/:id/export', async (c) => {
    const id = recId(c);
    const redact = c.req.query('redact') !== '0';
    if (c.req.query('format') === 'html') {
      const { renderReport, ReportNotBuilt, ReportTooBig, checkStoredReportSize } = await import('../report/html.js');
      let report;
      try {
        checkStoredReportSize(store, id, `download it as a transcript (format=jsonl), or a part of it as a fixture (/fixture?seq=A-B), or make the report of a part with \`acp-inspect export ${id} --html --seq A-B\``);
        report = renderReport({ recording: store.loadRecording(id), summary: store.getRecording(id), findings: store.readFindings(id), label: `recording ${id}` }, redact);
      } catch (e) {
        if (e instanceof ReportNotBuilt) throw new HttpError(503, e.message);
        if (e instanceof ReportTooBig) throw new HttpError(413, e.message);
        throw e;
      }
      return c.body(report.html, 200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Disposition': `attachment; filename="acp-recording-${id}.html"`,
      });
    }
    const notes = store.readNotes(id).map(toTranscriptNote);
    const items = store.pagedItems(id, 0, Number.MAX_SAFE_INTEGER, 1000, { rawJson: true }); // redactItems parses what may hold a secret
    return transcriptDownload(transcriptLines(store.headerOf(id), redact ? redactItems(items) : items, notes), `acp-recording-${id}.jsonl`);
  });
  app.get('/api/recordings/:id/items', (c) => {
    const id = recId(c);
    const page = listPage(store, matches, id, c.req.query('q') ?? '', intParam(c.req.query('offset'), 0), intParam(c.req.query('limit'), 200, 2000));
    if (c.req.query('state') !== '0') {
      try {
        const lastSeq = page.rows.length ? page.rows[page.rows.length - 1]!.seq : 0;
        // Far from what is folded already: answer now without states, fold in the background,
        // and tell the page (SSE "states") when they are ready.
        if (models.ensureSummaries(id, lastSeq)) {
          for (const r of page.rows) {
            const s = models.summaryAt(id, r.seq);
            if (s !== undefined) r.state = s;
          }
        }
      } catch { /* the state column is optional */ }
    }
    return c.json(page);
  });
  app.get('/api/recordings/:id/position', (c) => {
    const id = recId(c);
    return c.json(listPosition(store, matches, id, c.req.query('q') ?? '', intParam(c.req.query('seq'), 1)));
  });
  /** The model state after item `seq` as the detail carries it, or the error object in its place. */
  const itemState = async (id: number, seq: number, signal?: AbortSignal): Promise<ItemState> => {
    try {
      const s = await models.stateAt(id, seq, signal);
      return { state: s, stateSummary: summarizeState(s) };
    } catch (e) {
      return { state: { error: `the checker could not fold this recording: ${(e as Error).message}` } };
    }
  };
  const itemOr404 = (id: number, seq: number) => {
    const item = readItem(store, id, seq);
    if (!item) throw new HttpError(404, `recording ${id} has no item ${seq}`);
    return item;
  };
  // ?state=0: the detail without `state` and `stateSummary` (answered at once; the state can take
  // seconds to fold far down a large recording), which `/state` gives alone.
  app.get('/api/recordings/:id/items/:seq/state', async (c) => {
    const id = recId(c);
    const seq = intParam(c.req.param('seq'), 0);
    itemOr404(id, seq);
    return c.json(await itemState(id, seq, c.req.raw.signal));
  });
  app.get('/api/recordings/:id/items/:seq', async (c) => {
    const id = recId(c);
    const seq = intParam(c.req.param('seq'), 0);
    const item = itemOr404(id, seq);
    const st = c.req.query('state') !== '0' ? await itemState(id, seq, c.req.raw.signal) : undefined;
    const detail: ItemDetail = { item, pair: pairOf(store, id, item), findings: findingsAt(store, id, seq).map(withRuleInfo), ...st };
    const patch = patchOf(store, id, item);
    if (patch) detail.patch = patch;
    return c.json(detail);
  });
  app.get('/api/recordings/:id/findings', (c) => c.json(store.readFindings(recId(c)).map(withRuleInfo)));
  app.get('/api/recordings/:id/stats', (c) => c.json(methodStats(store, recId(c))));
  app.get('/api/recordings/:id/turns', (c) => c.json(listTurns(store, recId(c))));
  app.get('/api/recordings/:id/groups', (c) => {
    const id = recId(c);
    const items = store.getRecording(id)!.items;
    let hit = turnsCache.get(id);
    if (!hit || hit.items !== items) {
      hit = { items, turns: listTurns(store, id) };
      turnsCache.set(id, hit);
    }
    return c.json(timelineGroups(store, id, c.req.query('q') ?? '', hit.turns));
  });
  app.get('/api/recordings/:id/turns/:seq', (c) => {
    const id = recId(c);
    const seq = intParam(c.req.param('seq'), 0);
    const t = turnItems(store, id, seq);
    if (!t) throw new HttpError(404, `item ${seq} of recording ${id} is not a session/prompt request`);
    const end = t.turn.endSeq ?? Number.MAX_SAFE_INTEGER;
    const findings = store.readFindings(id).filter((f) => f.seq >= seq && f.seq <= end);
    const upTo = c.req.query('upTo');
    return c.json(summarizeTurnAt(t.turn, t.items, findings, upTo === undefined ? undefined : intParam(upTo, 0)));
  });
  registerNoteRoutes(app, { store, live, recId });
  registerSliceRoute(app, store, recId);
  app.get('/api/recordings/:id/waterfall', (c) => c.body(timeModel(recId(c)).waterfall, 200, { 'Content-Type': 'application/json' }));
  app.get('/api/recordings/:id/insights', (c) => c.body(timeModel(recId(c)).insights, 200, { 'Content-Type': 'application/json' }));
  app.get('/api/agents', (c) => c.json(agentComparison(store)));
  // What this server is: a console's (it forks from frames) or serve's.
  app.get('/api/server', (c) => c.json({ console: opts.console !== undefined }));
  // The consoles running on this database (acp-inspect console), without their tokens.
  app.get('/api/consoles', (c) => c.json(listConsoles(opts.dbPath)));
  // Probe runs (acp-inspect probe agent|client): the UI's scorecards, each scenario linking its recording.
  app.get('/api/probes', (c) => c.json(listProbeRuns(store)));
  app.get('/api/probes/:id', (c) => {
    const id = c.req.param('id');
    if (!/^\d+$/.test(id)) throw new HttpError(404, `no probe run with id ${id}`);
    return c.json(getProbeRun(store, Number(id)));
  });
  // Probe matrices (acp-inspect probe agents): a column per agent, a row per scenario, each cell its recording.
  app.get('/api/matrices', (c) => c.json(listProbeMatrices(store)));
  app.get('/api/matrices/:id', (c) => {
    const id = c.req.param('id');
    if (!/^\d+$/.test(id)) throw new HttpError(404, `no probe matrix with id ${id}`);
    return c.json(getProbeMatrix(store, Number(id)));
  });
  app.get('/api/rules', (c) => c.json(RULES));
  // The last comparisons asked for page by page (`?paged=1`), by id: their rows are built when asked.
  const comparisons = new Map<string, Comparison>();
  let comparisonIds = 0;
  app.get('/api/compare', (c) => {
    const ref = (k: 'a' | 'b'): number => {
      const v = c.req.query(k) ?? '';
      if (!/^\d+$/.test(v)) throw new HttpError(400, `compare needs ?a=ID&b=ID (recording ids); ${k} is "${v}"`);
      if (!store.getRecording(Number(v))) throw new HttpError(404, `no recording with id ${v}`);
      return Number(v);
    };
    const a = ref('a');
    const b = ref('b');
    const ignoreText = c.req.query('ignore') ?? '';
    if (ignoreText.length > 2000) throw new HttpError(400, 'the ignored paths are longer than 2000 characters; shorten them');
    const ignore = ignoreText.split(/[\s,]+/).filter(Boolean);
    if (ignore.length > 50) throw new HttpError(400, 'at most 50 ignored paths');
    const opts = { ignore, mergeChunks: c.req.query('merge') === '1' };
    // The first recording's frames are held for the comparison (the second is streamed).
    try {
      checkStoredSize(store, a, holdLimit(COMPARE_LIMIT));
    } catch (e) {
      if (e instanceof RecordingTooBig) throw new HttpError(413, e.message);
      throw e;
    }
    if (c.req.query('paged') !== '1') {
      const result = compareFrames(readFrames(store, a), iterateFrames(store, b), opts);
      return c.json({ a: store.getRecording(a)!, b: store.getRecording(b)!, ...result });
    }
    const cmp = new Comparison(readFrames(store, a), iterateFrames(store, b), opts);
    const id = String(++comparisonIds);
    comparisons.set(id, cmp);
    for (const k of comparisons.keys()) if (comparisons.size > KEPT_COMPARISONS) comparisons.delete(k);
    const index: CompareIndex = { a: store.getRecording(a)!, b: store.getRecording(b)!, ...cmp.summary, id, total: cmp.length, statuses: cmp.statuses };
    return c.json(index);
  });
  app.get('/api/compare/rows', (c) => {
    const id = c.req.query('id') ?? '';
    const cmp = comparisons.get(id);
    if (!cmp) throw new HttpError(404, `comparison "${id}" is not held any more (the server keeps the last ${KEPT_COMPARISONS}); compare again`);
    const offset = intParam(c.req.query('offset'), 0);
    const page: CompareRowsPage = { offset, rows: cmp.rows(offset, offset + intParam(c.req.query('limit'), 200, 2000)) };
    return c.json(page);
  });

  if (opts.console) {
    opts.console.attach((pid) => (store.db.prepare('SELECT id FROM recordings WHERE host_pid = ? ORDER BY id DESC LIMIT 1').get(pid) as { id: number } | undefined)?.id ?? null);
    registerConsoleRoutes(app, opts.console, (id, seq) => {
      if (!store.getRecording(id)) throw new HttpError(404, `no recording with id ${id}`);
      const { items, bytes } = store.db.prepare('SELECT COUNT(*) AS items, SUM(length(CAST(raw AS BLOB))) AS bytes FROM items WHERE recording_id = ? AND seq <= ?').get(id, seq) as { items: number; bytes: number | null };
      if (items > FORK_LIMIT.items || (bytes ?? 0) > FORK_LIMIT.bytes) {
        throw new HttpError(413, `forking at #${seq} would hold ${items} items (${Math.round((bytes ?? 0) / 1048576)} MiB) in memory, past ${FORK_LIMIT.items} items or ${FORK_LIMIT.bytes / 1048576} MiB; fork from an earlier frame, or export a part (acp-inspect export ${id} --turn SEQ) and import it`);
      }
      return { header: store.headerOf(id), items: [...store.pagedItems(id, 0, seq)] };
    });
  }

  // ---- live stream --------------------------------------------------------------------------
  app.get('/api/events', (c) => {
    const r = c.req.query('recording');
    const recordingId = r && /^\d+$/.test(r) ? Number(r) : null;
    return streamEvents<LiveEvent>(c, (send) => live.subscribe({ recordingId, send }), [{ type: 'hello', dataVersion: 0 }]);
  });

  app.notFound((c) => (c.req.path.startsWith('/api/') ? c.json({ error: `no such API route: ${c.req.path}` }, 404) : c.text('404 Not Found\n', 404)));

  return Object.assign(app, {
    close() {
      live.stop();
      matches.stop();
      store.close();
    },
    store,
    live,
    models,
  });
}
