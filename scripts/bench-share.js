#!/usr/bin/env node
/**
 * Measures sharing (a benchmark, not a test: it prints numbers and asserts none):
 * - the size of the self-contained report (`export --html`) of a 10,000-frame recording: the UI
 *   bundle, the compressed data, the whole file, next to the .jsonl;
 * - the time a 100,000-frame report takes to show its first rows in Chromium, opened from file://
 *   (navigation start to the first timeline row on screen), and the same for the static viewer
 *   opening the 100,000-frame .jsonl through its file input (parse, correlate, check in the page).
 *
 *   node scripts/bench-share.js [--small N] [--large N] [--runs R] [--keep: keep the files made]
 * Needs `npm run build` and a Chromium (/usr/bin/chromium or ACP_INSPECT_CHROMIUM).
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'acp-inspect.js');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : dflt; };
const SMALL = opt('--small', 10_000);
const LARGE = opt('--large', 100_000);
const RUNS = opt('--runs', 3);
const CHROMIUM = process.env.ACP_INSPECT_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
const log = (s = '') => process.stdout.write(`${s}\n`);
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

/** A transcript of about `n` frames of prompt turns: streamed chunks, a tool call with a diff, an fs read, one permission. */
function transcript(n) {
  const out = [JSON.stringify({ acpInspect: 'recording', version: 1, name: `share bench ${n}` })];
  let t = 0;
  const put = (dir, msg, dt = 0.3) => { t += dt; out.push(JSON.stringify({ t: Number(t.toFixed(3)), dir, raw: JSON.stringify(msg) })); };
  const S = 'sess-share';
  const update = (u) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: S, update: u } });
  put('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } }, clientInfo: { name: 'editor', version: '1' } } });
  put('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'agent', version: '1' }, authMethods: [] } });
  put('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/app', mcpServers: [] } });
  put('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: S } });
  for (let k = 1; out.length - 1 < n - 12; k++) {
    const id = 10 * k;
    put('c2a', { jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: S, prompt: [{ type: 'text', text: `Turn ${k}: rename the helper in util.ts and update its callers` }] } });
    for (let c = 0; c < 4; c++) put('a2c', update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Part ${c} of the answer to turn ${k}, with some words in it. ` } }));
    put('a2c', update({ sessionUpdate: 'tool_call', toolCallId: `t${k}`, title: 'Edit util.ts', kind: 'edit', status: 'pending' }));
    put('a2c', { jsonrpc: '2.0', id: id + 1, method: 'fs/read_text_file', params: { sessionId: S, path: '/home/dev/app/util.ts' } });
    put('c2a', { jsonrpc: '2.0', id: id + 1, result: { content: `export function helper${k}() {}\n` } }, 3);
    put('a2c', update({ sessionUpdate: 'tool_call_update', toolCallId: `t${k}`, status: 'completed', content: [{ type: 'diff', path: '/home/dev/app/util.ts', oldText: `helper${k}`, newText: `helper${k + 1}` }] }));
    put('a2c', { jsonrpc: '2.0', id, result: { stopReason: 'end_turn' } }, 1);
  }
  return `${out.join('\n')}\n`;
}

function exportHtml(src, out) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'export', src, '--html', '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`export --html failed: ${r.stderr}`);
  return performance.now() - t0;
}

const keep = args.includes('--keep');
const dir = mkdtempSync(join(tmpdir(), 'acp-share-bench-'));
try {
  const reportJs = join(ROOT, 'dist', 'report', 'report.js');
  if (!existsSync(reportJs)) throw new Error('dist/report is missing: run `npm run build` first');
  const ui = statSync(reportJs).size + statSync(join(ROOT, 'dist', 'report', 'report.css')).size;

  const small = join(dir, 'small.jsonl');
  writeFileSync(small, transcript(SMALL));
  const smallHtml = join(dir, 'small.html');
  const smallMs = exportHtml(small, smallHtml);
  const html = readFileSync(smallHtml, 'utf8');
  const data = /id="acp-inspect-data">([^<]*)</.exec(html)[1].length;
  log(`report of ${SMALL.toLocaleString()} frames (export took ${smallMs.toFixed(0)} ms):`);
  log(`  .jsonl ${kib(statSync(small).size)} · report ${kib(statSync(smallHtml).size)} = UI bundle ${kib(ui)} + compressed data (gzip, base64: items, findings, state summaries) ${kib(data)} + page ${kib(statSync(smallHtml).size - ui - data)}`);

  const large = join(dir, 'large.jsonl');
  writeFileSync(large, transcript(LARGE));
  const largeHtml = join(dir, 'large.html');
  const largeMs = exportHtml(large, largeHtml);
  log(`report of ${LARGE.toLocaleString()} frames: .jsonl ${kib(statSync(large).size)} · report ${kib(statSync(largeHtml).size)} (export took ${(largeMs / 1000).toFixed(1)} s)`);

  if (!CHROMIUM) { log('no Chromium: open times not measured'); process.exit(0); }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const firstRows = async (page) => {
    await page.locator('.row[class*="dir-"]').first().waitFor({ timeout: 120_000 });
    return page.evaluate(() => performance.now());
  };
  const reportTimes = [];
  for (let r = 0; r < RUNS; r++) {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(largeHtml).href, { waitUntil: 'commit' });
    reportTimes.push(await firstRows(page));
    await page.close();
  }
  log(`report of ${LARGE.toLocaleString()} frames opened from file:// to its first rows: ${reportTimes.map((t) => `${t.toFixed(0)} ms`).join(', ')} (${RUNS} runs, fresh page each)`);

  // The viewer, served as a static host would serve it.
  const root = join(ROOT, 'dist', 'viewer');
  const srv = createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    const f = join(root, p.endsWith('/') ? `${p}index.html` : p);
    if (!f.startsWith(root) || !existsSync(f)) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'Content-Type': { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }[extname(f)] ?? 'application/octet-stream' }).end(readFileSync(f));
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const viewerTimes = [];
  for (let r = 0; r < RUNS; r++) {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${srv.address().port}/`);
    const t0 = await page.evaluate(() => performance.now());
    await page.getByLabel('Open a transcript file').setInputFiles(large);
    const rows = (await firstRows(page)) - t0;
    await page.waitForFunction(() => window.acpInspectViewer !== undefined, undefined, { timeout: 120_000 });
    viewerTimes.push(`${rows.toFixed(0)} ms to rows, ${((await page.evaluate(() => performance.now())) - t0).toFixed(0)} ms to findings`);
    await page.close();
  }
  srv.close();
  log(`viewer opening the ${LARGE.toLocaleString()}-frame .jsonl (parse, correlate, fold states, then check, in a worker): ${viewerTimes.join('; ')}`);
  await browser.close();
} finally {
  if (keep) log(`files kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
