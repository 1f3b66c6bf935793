// What a scripted model server does next in a turn, chosen by the probe's prompt (PROMPTS in
// src/probe/agent/scenarios.ts) and by how many tool results the turn already has. The servers for each
// model API (scripted-gemini.mjs, scripted-openai-chat.mjs, scripted-augment.mjs) translate the step
// into their wire format; this file knows nothing of any API.
//   { text }                        reply with this text and end the turn
//   { slow: [chunk, …], everyMs }   stream these chunks slowly (something for a cancel to cancel)
//   { tool: 'read'|'write'|'shell', path?, content?, command? }   call a tool; paths are absolute, in
//                                   the session's cwd (agents resolve tool paths against it)
// toolCall() finds the agent's own tool for a step in the tools it declared.
import http from 'node:http';
import { appendFileSync } from 'node:fs';

/** The session's folder as the agent tells the model (its environment context names it). */
export function cwdIn(text) {
  // The shortest mention: agents also name folders of their own named after it (gemini-cli's
  // ~/.gemini/tmp/<folder name>).
  const probe = [...text.matchAll(/(\/[^\s"'`\\]*acp-inspect-probe-[A-Za-z0-9]+)/g)].map((m) => m[1]).sort((a, b) => a.length - b.length);
  if (probe.length) return probe[0];
  const said = text.match(/(?:working directory|current directory|directory)[^/\n]{0,40}(\/[^\s"'`\\]+)/i);
  return said ? said[1].replace(/[.,:;)]+$/, '') : process.cwd();
}

/**
 * @param prompt the text of the turn's user prompt
 * @param results how many tool results the turn already has
 * @param context every text of the request (to find the session's cwd in)
 */
export function nextStep(prompt, results, context) {
  const cwd = cwdIn(context);
  if (/count slowly/i.test(prompt)) return { slow: Array.from({ length: 300 }, (_, i) => `${i + 1}\n`), everyMs: 200 };
  if (/probe-permission\.txt/.test(prompt)) {
    return results === 0 ? { tool: 'write', path: `${cwd}/probe-permission.txt`, content: 'pong\n' } : { text: 'I created probe-permission.txt.' };
  }
  if (/probe-readme\.txt/.test(prompt) && /probe-out\.txt/.test(prompt)) {
    const script = [
      { tool: 'read', path: `${cwd}/probe-readme.txt` },
      { tool: 'write', path: `${cwd}/probe-out.txt`, content: 'pong\n' },
      { tool: 'shell', command: 'echo pong', cwd },
    ];
    return script[results] ?? { text: 'I read probe-readme.txt, wrote probe-out.txt and ran echo pong.' };
  }
  return { text: 'pong' };
}

/**
 * The agent's tool for a step, and its arguments under the names its schema uses.
 * @param tools [{ name, schema }] as the agent declared them
 * @returns { name, args } or undefined when the agent offers no such tool
 */
export function toolCall(step, tools) {
  const names = { read: ['read_file', 'view', 'Read'], write: ['write_file', 'save-file', 'Write'], shell: ['run_shell_command', 'launch-process', 'shell', 'Bash'] }[step.tool] ?? [];
  const tool = names.map((n) => tools.find((t) => t.name === n)).find(Boolean);
  if (!tool) return undefined;
  const props = tool.schema?.properties ?? {};
  const keys = Object.keys(props);
  const pick = (re, fallback) => keys.find((k) => re.test(k)) ?? fallback;
  const args = {};
  if (step.path) args[pick(/path/i, 'file_path')] = step.path;
  if (step.content !== undefined) args[pick(/content/i, 'content')] = step.content;
  if (step.command) args[pick(/command/i, 'command')] = step.command;
  // Whatever else the schema requires: a description, a flag off, a short wait.
  for (const k of tool.schema?.required ?? []) {
    if (k in args) continue;
    const p = props[k] ?? {};
    const t = String(p.type ?? '').toLowerCase();
    args[k] = p.default ?? p.enum?.[0] ?? (t === 'boolean' ? k === 'wait' : t === 'number' || t === 'integer' ? 10 : /cwd|dir/i.test(k) ? cwdOf(step) : 'probe step');
  }
  return { name: tool.name, args };
}
const cwdOf = (step) => (step.path ? step.path.replace(/\/[^/]*$/, '') : step.cwd);

/**
 * A model server on 127.0.0.1:PORT (argv[2], else `port`; 0 for any free one) that hands each request and its JSON body
 * to `handle(req, res, body, log)`; `log` appends a line to REQUEST_LOG (argv[3]) when given.
 */
export function serve(name, port, handle) {
  const at = Number(process.argv[2] ?? port);
  const log = (s) => process.argv[3] && appendFileSync(process.argv[3], s + '\n');
  const server = http.createServer((req, res) => {
    let b = '';
    req.on('data', (d) => (b += d));
    req.on('end', () => {
      let body = {};
      try { body = JSON.parse(b || '{}'); } catch { /* a body that is not JSON reads as {} */ }
      Promise.resolve(handle(req, res, body, log)).catch((e) => { log(`error: ${e.stack}`); res.destroy(); });
    });
  });
  // PORT 0: any free port; the line names the one it got.
  server.listen(at, '127.0.0.1', () => console.error(`${name} on ${server.address().port}`));
}

/** Writes each item as an SSE `data:` event, `everyMs` apart; stops if the agent hangs up. */
export async function sse(res, items, everyMs = 0) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let gone = false;
  res.on('close', () => (gone = true));
  for (const item of items) {
    if (gone) return;
    res.write(`data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`);
    if (everyMs) await new Promise((r) => setTimeout(r, everyMs));
  }
  res.end();
}

export const json = (res, status, value) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(value)); };
