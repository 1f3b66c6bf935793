// A scripted stand-in for the Anthropic Messages API on 127.0.0.1 (streaming SSE), so the claude agents run a
// real tool loop offline: point them at it with ANTHROPIC_BASE_URL=http://127.0.0.1:PORT and any
// ANTHROPIC_API_KEY. Each turn: a Read of README.md, then Bash `ls -la`, then a Write of NOTES.md (the ACP
// variants mcp__acp__* when offered, which reach the client as fs/* and terminal/* requests), then a text.
// usage: scripted-anthropic.mjs [PORT] [REQUEST_LOG] (PORT 0: any free port; the line it prints names it).
// A turn whose last user text contains "slow" gets its text streamed a word every 200 ms (a cancel has
// something to cancel). SCRIPTED_PROJECT names the project folder the tool calls use (default /home/dev/project).
import http from 'node:http';
import { appendFileSync } from 'node:fs';
const port = Number(process.argv[2] ?? 18555);
const project = process.env.SCRIPTED_PROJECT ?? '/home/dev/project';
const log = (s) => process.argv[3] && appendFileSync(process.argv[3], s + '\n');
let n = 0;
function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [type, data] of events) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.end();
}
function lastUserText(body) {
  const user = (body.messages ?? []).filter((m) => m.role === 'user').at(-1);
  if (!user) return '';
  return typeof user.content === 'string' ? user.content : user.content.filter((c) => c.type === 'text').map((c) => c.text).join(' ');
}
const slow = (body) => /\bslow\b/.test(lastUserText(body));
function slowText(res, id, model, usage) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } });
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    if (i < 150) return ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `word${i++} ` } });
    clearInterval(timer);
    ev('content_block_stop', { index: 0 });
    ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 150 } });
    ev('message_stop', {});
    res.end();
  }, 200);
  res.on('close', () => clearInterval(timer));
}
function reply(body) {
  const tools = (body.tools ?? []).map((t) => t.name);
  const msgs = body.messages ?? [];
  const results = msgs.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c) => c.type === 'tool_result').length;
  const pick = (...names) => names.find((x) => tools.includes(x));
  const script = [
    [pick('mcp__acp__Read', 'Read'), () => ({ file_path: `${project}/README.md` })],
    [pick('mcp__acp__Bash', 'Bash'), () => ({ command: 'ls -la', description: 'List files', timeout: 10000 })],
    [pick('mcp__acp__Write', 'Write'), () => ({ file_path: `${project}/NOTES.md`, content: 'notes\n' })],
  ];
  const step = tools.length ? script[results] : undefined;
  return step && step[0] ? { tool: step[0], input: step[1](step[0]) } : { text: results ? 'All done: I read the README, listed the files and wrote NOTES.md.' : 'Hello from the fake model.' };
}
const server = http.createServer((req, res) => {
  let b = '';
  req.on('data', (d) => (b += d));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(b || '{}'); } catch {}
    log(`${req.method} ${req.url} stream=${body.stream} tools=${(body.tools ?? []).map((t) => t.name).join(',')} msgs=${(body.messages ?? []).length}`);
    if (!req.url.startsWith('/v1/messages')) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"type":"error","error":{"type":"not_found_error","message":"not found"}}'); return; }
    if (req.url.includes('count_tokens')) { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"input_tokens":10}'); return; }
    const r = reply(body);
    const id = `msg_fake_${++n}`;
    const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    const block = r.tool ? { type: 'tool_use', id: `toolu_fake_${n}`, name: r.tool, input: {} } : { type: 'text', text: '' };
    const delta = r.tool ? { type: 'input_json_delta', partial_json: JSON.stringify(r.input) } : { type: 'text_delta', text: r.text };
    const stop = r.tool ? 'tool_use' : 'end_turn';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content: [r.tool ? { ...block, input: r.input } : { type: 'text', text: r.text }], stop_reason: stop, stop_sequence: null, usage }));
      return;
    }
    if (!r.tool && slow(body)) return slowText(res, id, body.model, usage);
    sse(res, [
      ['message_start', { message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage } }],
      ['content_block_start', { index: 0, content_block: block }],
      ['content_block_delta', { index: 0, delta }],
      ['content_block_stop', { index: 0 }],
      ['message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }],
      ['message_stop', {}],
    ]);
  });
});
server.listen(port, '127.0.0.1', () => console.error(`fake anthropic on ${server.address().port}`));
