/**
 * One UI, two data sources: the same recordings read through the HTTP API of `serve` (over SQLite)
 * and through the in-memory source the HTML report and the viewer use must give the views the same
 * things: timeline pages under every kind of filter, positions, turn grouping, turns and turn
 * cards, item details with their states, findings and stats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import { Store } from '../../src/store/store.js';
import { parseTranscript, serializeTranscript } from '../../src/transcript/format.js';
import { checkStoredRecording } from '../../src/check-run/stored.js';
import { checkStream } from '../../src/check-run/run.js';
import { RULES, summarizeState } from '../../src/check/index.js';
import { decodeReport, encodeReport, recordingData, reportData } from '../../src/view/report-data.js';
import { MemorySource } from '../../src/view/memory-source.js';
import { HttpSource } from '../../ui/src/api.js';
import type { DataSource } from '../../src/view/source.js';

const HOST = '127.0.0.1:4733';
const TOKEN = 'sources-token';
const FILES = [
  'recordings/golden/cancel-and-turns.jsonl', 'recordings/golden/compaction-terminals-cancel-request.jsonl', 'recordings/golden/wire-problems.jsonl',
  'recordings/golden/rich-sdk-2.4.jsonl', 'recordings/real/claude-agent-acp-tools-cancel.jsonl', 'recordings/real/claude-agent-acp-resume-fork.jsonl',
  'recordings/sdk-example.jsonl',
];

/** Notes put on the first recording (its transcript carries them as note lines, as an export writes them). */
const NOTES = [
  { seq: 5, text: 'why does the agent wait here?', at: '2026-03-01T10:00:00.000Z' },
  { seq: 2, text: '', at: '2026-03-01T10:01:00.000Z' },
  { seq: 5, text: 'second note on #5\nwith a line break', at: '2026-03-01T10:02:00.000Z', updatedAt: '2026-03-01T11:00:00.000Z' },
];
/** A transcript's text, with NOTES on the first file, through the serializer and parser. */
const transcriptOf = (f: string): string => {
  const text = readFileSync(f, 'utf8');
  if (f !== FILES[0]) return text;
  const rec = parseTranscript(text);
  rec.notes = NOTES;
  return serializeTranscript(rec);
};

let dir: string;
let app: InspectorApp;
const cases: { file: string; id: number; http: HttpSource; mem: MemorySource; report: MemorySource }[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acp-sources-'));
  const dbPath = join(dir, 'db.sqlite');
  const store = Store.open(dbPath);
  const ids = FILES.map((f) => {
    const id = store.importRecording(parseTranscript(transcriptOf(f)));
    checkStoredRecording(store, id);
    return id;
  });
  store.close();
  app = createApp({ dbPath, token: TOKEN, allowedHosts: [HOST] });
  const fetchImpl = ((url: string, init?: RequestInit) => app.request(`http://${HOST}${url}`, {
    ...init, headers: { host: HOST, authorization: `Bearer ${TOKEN}` },
  })) as typeof fetch;
  FILES.forEach((file, k) => {
    // Built the way the viewer's worker builds it: parse, check, fold states.
    const rec = parseTranscript(transcriptOf(file));
    const data = recordingData(rec, checkStream(rec.items, []).findings, RULES, summarizeState, '');
    data.summary.id = ids[k]!;
    // Built the way the HTML report is: columns and state summaries through JSON, states refolded on demand.
    const shipped = decodeReport(encodeReport(reportData(rec, checkStream(rec.items, []).findings, RULES, summarizeState, ''))).recording;
    shipped.summary.id = ids[k]!;
    expect(shipped.states.checkpoints).toBeUndefined();
    cases.push({
      file, id: ids[k]!, http: new HttpSource('', fetchImpl), mem: new MemorySource({ summary: data.summary, items: rec.items, findings: data.findings, states: data.states, ...(rec.notes ? { notes: rec.notes } : {}) }),
      report: new MemorySource(shipped),
    });
  });
});
afterAll(() => {
  app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a view is given, as it crosses the wire (JSON), or the error it would show. */
async function view<T>(p: Promise<T>): Promise<unknown> {
  try {
    return JSON.parse(JSON.stringify(await p)) as unknown;
  } catch (e) {
    return { error: (e as Error).message, status: (e as { status?: number }).status };
  }
}

/** The HTTP source's answer and the in-memory one's; the report's in-memory source must give the same. */
async function both<T>(c: (typeof cases)[number], call: (s: DataSource) => Promise<T>): Promise<[unknown, unknown]> {
  const [a, b, r] = [await view(call(c.http)), await view(call(c.mem)), await view(call(c.report))];
  expect(r, `${c.file}: the report's source differs from the viewer's`).toEqual(b);
  return [a, b];
}

function filtersFor(rows: { seq: number; method: string | null; kind: string | null; sessionId: string | null; id?: unknown }[], rules: string[]): string[] {
  const prompt = rows.find((r) => r.method === 'session/prompt' && r.kind === 'request');
  const sid = rows.find((r) => r.sessionId)?.sessionId;
  const strId = rows.find((r) => typeof r.id === 'string')?.id;
  return [
    '', 'method:session/update', '-method:session/update', 'dir:a2c kind:request', 'dir:agent,stderr', 'is:error', '-is:error', 'has:finding',
    'severity:warning', 'severity:error,info', ...rules.slice(0, 3).map((r) => `rule:${r}`), `-rule:${rules[0] ?? 'x'}`, 'method:fs/*', 'method:SESSION/*', 'method:session/prompt,initialize',
    `session:${sid ?? 'none'}`, `-session:${sid ?? 'none'}`, 'id:1', 'id:0,2', `id:${JSON.stringify(strId ?? 'abc')}`, 'seq:5-20', 'seq:7', 'seq:-4', 'seq:30-',
    `turn:${prompt?.seq ?? 1}`, `-turn:${prompt?.seq ?? 1}`, 'turn:1', 'is:response', 'is:slow', 'has:latency', '-has:session', 'is:frame', 'is:invalid', 'kind:spawn,exit',
    'hello', '"tool_call"', 'TOOL', '-"sessionUpdate"', 'is:notification -dir:c2a', 'stopReason', '100%_', 'dir:up', 'seq:abc', 'is:weird', 'kind:,',
  ];
}

describe('the HTTP source and the in-memory source', () => {
  it('give the views the same recording summary counts, findings and stats', async () => {
    for (const c of cases) {
      const [a, b] = await both(c, (s) => s.findings(c.id));
      expect(b, c.file).toEqual(a);
      expect((a as unknown[]).length + 1, c.file).toBeGreaterThan(0);
      const [sa, sb] = await both(c, (s) => s.stats(c.id));
      expect(sb, c.file).toEqual(sa);
      const ra = (await c.http.recording(c.id));
      const rb = (await c.mem.recording(c.id));
      for (const k of ['items', 'frames', 'errors', 'warnings', 'infos', 'protocolVersion', 'client', 'agent', 'durationMs', 'name'] as const) expect(rb[k], `${c.file} ${k}`).toEqual(ra[k]);
    }
  });

  it('filter the timeline the same way, page by page, and place items the same way', async () => {
    let compared = 0;
    for (const c of cases) {
      const all = await c.http.page(c.id, '', 0, 100000);
      const rules = [...new Set((await c.http.findings(c.id)).map((f) => f.rule))];
      for (const q of filtersFor(all.rows, rules)) {
        const [a, b] = await both(c, (s) => s.page(c.id, q, 0, 100000));
        expect(b, `${c.file} q=${q}`).toEqual(a);
        const [pa, pb] = await both(c, (s) => s.page(c.id, q, 3, 5));
        expect(pb, `${c.file} q=${q} offset 3`).toEqual(pa);
        for (const seq of [1, 6, Math.floor(all.total / 2), all.total]) {
          const [xa, xb] = await both(c, (s) => s.position(c.id, q, seq));
          expect(xb, `${c.file} q=${q} position of ${seq}`).toEqual(xa);
        }
        const [ga, gb] = await both(c, (s) => s.groups(c.id, q));
        expect(gb, `${c.file} q=${q} groups`).toEqual(ga);
        compared++;
      }
      // The filters are not vacuous: some keep everything, some nothing, most something in between.
      const totals = await Promise.all(filtersFor(all.rows, rules).map((q) => c.mem.page(c.id, q, 0, 1).then((p) => p.total, () => -1)));
      expect(new Set(totals).size, c.file).toBeGreaterThan(5);
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('group turns the same way and build the same turn cards', async () => {
    for (const c of cases) {
      const [a, b] = await both(c, (s) => s.turns(c.id));
      expect(b, c.file).toEqual(a);
      for (const t of await c.http.turns(c.id)) {
        const [ta, tb] = await both(c, (s) => s.turn(c.id, t.seq));
        expect(tb, `${c.file} turn ${t.seq}`).toEqual(ta);
      }
      const [na, nb] = await both(c, (s) => s.turn(c.id, 1));
      expect(nb, `${c.file} turn 1`).toEqual(na);
    }
  });

  it('build the same turn cards at every playhead inside a turn', async () => {
    let compared = 0;
    for (const c of cases) {
      for (const t of await c.http.turns(c.id)) {
        for (let upTo = t.seq; upTo <= (t.endSeq ?? t.seq + 10) + 1; upTo += Math.max(1, Math.floor(((t.endSeq ?? t.seq) - t.seq) / 12))) {
          const [ta, tb] = await both(c, (s) => s.turn(c.id, t.seq, upTo));
          expect(tb, `${c.file} turn ${t.seq} up to ${upTo}`).toEqual(ta);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(30);
  });

  it('give the waterfall the same spans, gaps and frame times, and the same insights', async () => {
    let spans = 0;
    for (const c of cases) {
      const [wa, wb] = await both(c, (s) => s.waterfall(c.id));
      expect(wb, `${c.file} waterfall`).toEqual(wa);
      spans += (wa as { spans: unknown[] }).spans.length;
      expect((wa as { frames: { seq: unknown[] } }).frames.seq.length, c.file).toBe((await c.http.recording(c.id)).items);
      const [ia, ib] = await both(c, (s) => s.insights(c.id));
      expect(ib, `${c.file} insights`).toEqual(ia);
    }
    expect(spans).toBeGreaterThan(50);
  });

  it('give the same notes, in seq order, with their times; a recording without notes has none', async () => {
    for (const c of cases) {
      const [a, b] = await both(c, (s) => s.notes(c.id));
      const strip = (v: unknown) => (v as { id: number }[]).map(({ id: _id, ...n }) => n);
      expect(strip(a), c.file).toEqual(strip(b));
      expect(new Set((a as { id: number }[]).map((n) => n.id)).size, c.file).toBe((a as unknown[]).length);
      if (c.file !== FILES[0]) expect(a, c.file).toEqual([]);
    }
    const [a] = await both(cases[0]!, (s) => s.notes(cases[0]!.id));
    expect(a).toEqual([
      { id: expect.any(Number), seq: 2, text: '', createdAt: NOTES[1]!.at, updatedAt: null },
      { id: expect.any(Number), seq: 5, text: NOTES[0]!.text, createdAt: NOTES[0]!.at, updatedAt: null },
      { id: expect.any(Number), seq: 5, text: NOTES[2]!.text, createdAt: NOTES[2]!.at, updatedAt: NOTES[2]!.updatedAt },
    ]);
    expect(await view(cases[0]!.mem.notes(cases[0]!.id + 1000))).toMatchObject({ status: 404 });
  });

  it('cut the same fixture of every turn: the same items and notes, the same warnings', async () => {
    for (const c of cases) {
      const turns = await c.mem.turns(c.id);
      for (const t of turns.slice(0, 4)) {
        const [a, b] = await both(c, (s) => s.fixture(c.id, t.seq)) as { text: string; warnings: string[]; name: string }[];
        expect(a!.text.split('\n').slice(1), `${c.file} turn ${t.seq}`).toEqual(b!.text.split('\n').slice(1));
        expect(a!.warnings).toEqual(b!.warnings);
        expect(parseTranscript(b!.text).items.length).toBeGreaterThan(0);
        expect(b!.name).toMatch(/\.jsonl$/);
      }
    }
    expect(await view(cases[0]!.mem.fixture(cases[0]!.id, 1_000_000))).toMatchObject({ status: 400 });
  });

  it('save the recording as the transcript it was made from', () => {
    for (const c of cases) {
      const want = serializeTranscript(parseTranscript(transcriptOf(c.file))).split('\n').slice(1);
      expect(c.report.transcript().split('\n').slice(1), c.file).toEqual(want);
      expect(c.mem.transcript().split('\n').slice(1), c.file).toEqual(want);
      expect(JSON.parse(c.report.transcript().split('\n')[0]!)).toMatchObject({ acpInspect: 'recording', version: 1 });
    }
  });

  it('give every item the same detail: the item, its pair, findings, the state after it and the entity it patches', async () => {
    let patches = 0;
    for (const c of cases) {
      const total = (await c.http.recording(c.id)).items;
      for (let seq = 1; seq <= total + 1; seq++) {
        const [a, b] = await both(c, (s) => s.item(c.id, seq));
        expect(b, `${c.file} item ${seq}`).toEqual(a);
        if ((a as { patch?: unknown }).patch) patches++;
      }
    }
    expect(patches).toBeGreaterThan(5);
  });
});
