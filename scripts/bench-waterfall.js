#!/usr/bin/env node
/**
 * Measures the waterfall, playback and insights on a large recording: writes a transcript of N
 * frames (default 100,000) of prompt turns with tool calls, permission waits, fs and terminal
 * calls, an error response now and then and a 10-minute idle gap; times the pure read models in
 * Node (spans, insights), then draws the waterfall in Chromium (playwright-core, the browser the UI
 * tests use) served by `acp-inspect serve` and from the self-contained HTML report, and prints
 * each time. Numbers, not assertions.
 *
 *   node scripts/bench-waterfall.js [--frames N] [--keep] [--node: only the read models in Node]
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'acp-inspect.js');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const frames = Number(opt('--frames', '100000'));
const dir = mkdtempSync(join(tmpdir(), 'acp-inspect-wf-bench-'));
const log = (s = '') => process.stdout.write(`${s}\n`);
const ms = (x) => `${Math.round(x)} ms`;

function writeTranscript(file, n) {
  const fd = openSync(file, 'w');
  let buf = [];
  let t = 0;
  let seq = 0;
  const put = (d, msg, dt = 3) => {
    t += dt;
    seq++;
    buf.push(JSON.stringify({ t: Number(t.toFixed(3)), dir: d, raw: JSON.stringify(msg) }));
    if (buf.length >= 20000) { writeSync(fd, `${buf.join('\n')}\n`); buf = []; }
  };
  writeSync(fd, `${JSON.stringify({ acpInspect: 'recording', version: 1, name: 'waterfall bench' })}\n`);
  const SID = 'sess-bench';
  const upd = (update) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SID, update } });
  put('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, clientInfo: { name: 'bench-editor', version: '1.0.0' } } });
  put('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, agentInfo: { name: 'bench-agent', version: '1.0.0' }, authMethods: [] } }, 40);
  put('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
  put('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: SID } }, 30);
  for (let k = 2; seq < n - 20; k++) {
    const id = k * 10;
    put('c2a', { jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: SID, prompt: [{ type: 'text', text: `Fix bug number ${k} in main.ts` }] } }, k === Math.floor(n / 40) ? 600_000 : 2000);
    put('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Looking at bug ${k}.` } }), 400 + (k % 7) * 50);
    put('a2c', upd({ sessionUpdate: 'tool_call', toolCallId: `read-${k}`, title: 'Read main.ts', kind: 'read', status: 'in_progress' }));
    put('a2c', { jsonrpc: '2.0', id: id + 2, method: 'fs/read_text_file', params: { sessionId: SID, path: '/home/dev/project/main.ts' } });
    put('c2a', { jsonrpc: '2.0', id: id + 2, result: { content: `const a = ${k};\n` } }, k % 97 === 0 ? 4000 : 2);
    put('a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: `read-${k}`, status: 'completed' }));
    put('a2c', upd({ sessionUpdate: 'tool_call', toolCallId: `edit-${k}`, title: 'Edit main.ts', kind: 'edit', status: 'pending' }));
    put('a2c', { jsonrpc: '2.0', id: id + 1, method: 'session/request_permission', params: { sessionId: SID, toolCall: { toolCallId: `edit-${k}` }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] } });
    put('c2a', { jsonrpc: '2.0', id: id + 1, result: { outcome: { outcome: 'selected', optionId: 'allow' } } }, 900 + (k % 5) * 300);
    put('a2c', { jsonrpc: '2.0', id: id + 3, method: 'terminal/create', params: { sessionId: SID, command: 'npm', args: ['test'] } });
    put('c2a', { jsonrpc: '2.0', id: id + 3, result: { terminalId: `term-${k}` } }, 5);
    put('a2c', { jsonrpc: '2.0', id: id + 4, method: 'terminal/wait_for_exit', params: { sessionId: SID, terminalId: `term-${k}` } });
    if (k % 50 === 0) put('c2a', { jsonrpc: '2.0', id: id + 4, error: { code: -32603, message: 'terminal crashed' } }, 1200);
    else put('c2a', { jsonrpc: '2.0', id: id + 4, result: { exitCode: 0 } }, 1200);
    put('a2c', { jsonrpc: '2.0', id: id + 5, method: 'terminal/release', params: { sessionId: SID, terminalId: `term-${k}` } });
    put('c2a', { jsonrpc: '2.0', id: id + 5, result: {} }, 2);
    put('a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: `edit-${k}`, status: 'completed' }));
    put('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ' Done.' } }), 300);
    put('a2c', { jsonrpc: '2.0', id, result: { stopReason: 'end_turn' } }, 5);
  }
  writeSync(fd, `${buf.join('\n')}\n`);
  closeSync(fd);
  return seq;
}

/** In the page: from a click on the Waterfall tab to the first bars in the DOM (two animation frames later). */
async function drawTime(page) {
  return page.evaluate(() => new Promise((res) => {
    const tab = [...document.querySelectorAll('[role=tab]')].find((b) => b.textContent === 'Waterfall');
    const t0 = performance.now();
    tab.click();
    const poll = () => {
      if (document.querySelector('.wf-bar')) requestAnimationFrame(() => res({ ms: performance.now() - t0, bars: document.querySelectorAll('.wf-bar').length, rows: document.querySelectorAll('.wf-row').length }));
      else requestAnimationFrame(poll);
    };
    poll();
  }));
}

/** In the page: a zoom (the + key) until the next frame is drawn. */
async function zoomTime(page) {
  await page.locator('.wf').focus();
  return page.evaluate(() => new Promise((res) => {
    const t0 = performance.now();
    document.querySelector('.wf').dispatchEvent(new KeyboardEvent('keydown', { key: '+', bubbles: true }));
    requestAnimationFrame(() => requestAnimationFrame(() => res(performance.now() - t0)));
  }));
}

async function main() {
  const file = join(dir, 'bench.jsonl');
  const db = join(dir, 'bench.sqlite');
  let t0 = performance.now();
  const n = writeTranscript(file, frames);
  log(`wrote ${n.toLocaleString()} frames in ${ms(performance.now() - t0)}`);
  const { parseTranscript } = await import(pathToFileURL(join(ROOT, 'dist/src/transcript/format.js')).href);
  const { buildWaterfall } = await import(pathToFileURL(join(ROOT, 'dist/src/view/waterfall.js')).href);
  const { computeInsights } = await import(pathToFileURL(join(ROOT, 'dist/src/view/insights.js')).href);
  const rec = parseTranscript(readFileSync(file, 'utf8'));
  t0 = performance.now();
  const wf = buildWaterfall(rec.items);
  const tWf = performance.now() - t0;
  t0 = performance.now();
  const ins = computeInsights(rec.items, wf);
  const tIns = performance.now() - t0;
  log(`Node: spans ${wf.spans.length.toLocaleString()} in ${ms(tWf)} (JSON ${(JSON.stringify(wf).length / 1024 / 1024).toFixed(1)} MB), insights in ${ms(tIns)} (${ins.insights.length} automatic insights: ${ins.insights.map((i) => i.kind).join(', ')}), ${wf.gaps.length} idle gap(s)`);

  if (args.includes('--node')) return;
  t0 = performance.now();
  const imp = spawnSync(process.execPath, [BIN, 'import', file, '--db', db, '--name', 'waterfall bench'], { encoding: 'utf8' });
  if (imp.status !== 0) throw new Error(`import failed: ${imp.stderr}`);
  log(`imported and checked in ${ms(performance.now() - t0)}`);
  const html = join(dir, 'bench.html');
  t0 = performance.now();
  const ex = spawnSync(process.execPath, [BIN, 'export', '1', '--db', db, '--html', '-o', html], { encoding: 'utf8' });
  if (ex.status !== 0) throw new Error(`export failed: ${ex.stderr}`);
  log(`exported the HTML report in ${ms(performance.now() - t0)}`);

  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p)) ?? process.env.ACP_INSPECT_CHROMIUM;
  if (!chromium) { log('no Chromium: the browser measurements are skipped'); return; }
  const { chromium: pw } = await import('playwright-core');
  const { startServer } = await import(pathToFileURL(join(ROOT, 'dist/src/server/index.js')).href);
  const srv = await startServer({ dbPath: db, port: 0 });
  const browser = await pw.launch({ executablePath: chromium, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const api = async (path) => {
      const t1 = performance.now();
      const res = await fetch(`${new URL(srv.url).origin}${path}`, { headers: { authorization: `Bearer ${srv.token}` } });
      const body = await res.text();
      return [performance.now() - t1, body.length];
    };
    const [tw, size] = await api('/api/recordings/1/waterfall');
    log(`serve: GET /waterfall, the server reading the items and building the spans (cold): ${ms(tw)}, ${(size / 1024 / 1024).toFixed(1)} MB; again (cached): ${ms((await api('/api/recordings/1/waterfall'))[0])}`);
    const [ti] = await api('/api/recordings/1/insights');
    log(`serve: GET /insights (cold): ${ms(ti)}`);
    const page = await (await browser.newContext({ viewport: { width: 1500, height: 900 } })).newPage();
    await page.goto(`${srv.url}&rec=1`);
    await page.locator('.row').first().waitFor();
    const cold = await drawTime(page);
    log(`serve: first draw of the waterfall (fetching and parsing the spans, the server's cache warm): ${ms(cold.ms)} (${cold.bars} bars, ${cold.rows} rows in the DOM of ${wf.spans.length.toLocaleString()} spans)`);
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.locator('.row').first().waitFor();
    const warm = await drawTime(page);
    log(`serve: draw again (spans already in the page): ${ms(warm.ms)}`);
    const zooms = [];
    for (let i = 0; i < 5; i++) zooms.push(await zoomTime(page));
    log(`serve: a zoom step redrawn in ${zooms.map((z) => ms(z)).join(', ')}`);
    const pageR = await (await browser.newContext({ viewport: { width: 1500, height: 900 } })).newPage();
    t0 = performance.now();
    await pageR.goto(pathToFileURL(html).href);
    await pageR.locator('.row').first().waitFor();
    log(`report: opened (decompress, parse, index) in ${ms(performance.now() - t0)}`);
    const rc = await drawTime(pageR);
    log(`report: first draw of the waterfall, built in the page (cold): ${ms(rc.ms)}`);
    await pageR.getByRole('tab', { name: 'Timeline' }).click();
    await pageR.locator('.row').first().waitFor();
    const rw = await drawTime(pageR);
    log(`report: draw again (spans built): ${ms(rw.ms)}`);
    t0 = performance.now();
    await pageR.getByRole('tab', { name: 'Insights' }).click();
    await pageR.getByRole('heading', { name: 'Worth a look first' }).waitFor();
    log(`report: insights shown in ${ms(performance.now() - t0)}`);
  } finally {
    await browser.close();
    await srv.close();
  }
}

main().catch((e) => { process.stderr.write(`${e.stack ?? e}\n`); process.exitCode = 1; }).finally(() => {
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else log(`kept ${dir}`);
});
