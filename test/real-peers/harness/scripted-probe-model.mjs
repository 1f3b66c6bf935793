// A scripted stand-in for an OpenAI-compatible model on 127.0.0.1, for `probe agent` on real agents
// offline: the chat completions API (stream and not, for opencode, copilot and other OpenAI-compatible
// agents) and the Responses API (streaming, for codex-acp). It answers the probe's prompts
// (src/probe/agent/scenarios.ts PROMPTS) as a model would, at once except where slowness is the point:
//   "Reply with the single word pong."    → "pong"
//   "Count slowly from 1 to 300 ..."      → one number every 100 ms (a turn a cancel can cut short);
//                                           the stream stops when the agent hangs up
//   "Create a file named probe-permission.txt ..." / "Read the file probe-readme.txt ..."
//                                         → a call of the agent's own write (or read) tool, when it
//                                           offers one, then a text once the tool's result is back
// Anything else (a title or summary an agent asks for on the side) gets a short text at once.
// usage: scripted-probe-model.mjs [PORT] [REQUEST_LOG]   (PORT 0: any free port, printed on stdout)
import http from 'node:http';
import { appendFileSync } from 'node:fs';

const port = Number(process.argv[2] ?? 18557);
const log = (s) => process.argv[3] && appendFileSync(process.argv[3], `${new Date().toISOString()} ${s}\n`);
const MODEL = 'probe-model';
let n = 0;

const textOf = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (typeof p === 'string' ? p : p?.text ?? '')).join('') : '');

/** The conversation, whichever API: the last user text, whether tool results came after it, the system text and the tools offered. */
function conversation(body) {
  if (Array.isArray(body.messages)) {
    const msgs = body.messages;
    const lastUser = msgs.map((m) => m.role).lastIndexOf('user');
    return {
      user: lastUser >= 0 ? textOf(msgs[lastUser].content) : '',
      toolResults: msgs.slice(lastUser + 1).filter((m) => m.role === 'tool').length,
      system: msgs.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)).join('\n'),
      tools: (body.tools ?? []).map((t) => t.function?.name ?? t.name).filter(Boolean),
    };
  }
  const input = Array.isArray(body.input) ? body.input : [];
  const lastUser = input.map((i) => i.role).lastIndexOf('user');
  return {
    user: lastUser >= 0 ? textOf(input[lastUser].content) : typeof body.input === 'string' ? body.input : '',
    toolResults: input.slice(lastUser + 1).filter((i) => /_call_output$/.test(i.type ?? '')).length,
    system: `${body.instructions ?? ''}\n${input.filter((i) => i.role === 'system' || i.role === 'developer').map((i) => textOf(i.content)).join('\n')}`,
    tools: (body.tools ?? []).map((t) => t.name ?? t.function?.name ?? t.type).filter(Boolean),
  };
}

/** The session folder the agent works in, as its system prompt names it (the probe's are `acp-inspect-probe-*`). */
const cwdOf = (c) => /(\/[\w./-]*acp-inspect-probe-[\w-]+)/.exec(`${c.system}\n${c.user}`)?.[1];

/** What to answer: a text (slow or not) or a tool call. */
function plan(c) {
  if (/Count slowly from 1 to 300/.test(c.user)) return { slow: Array.from({ length: 300 }, (_, i) => `${i + 1}\n`) };
  if (/Reply with the single word pong/.test(c.user)) return { text: 'pong' };
  const wantsWrite = /Create a file named probe-permission\.txt/.test(c.user);
  const wantsRead = /Read the file probe-readme\.txt/.test(c.user);
  if ((wantsWrite || wantsRead) && !c.toolResults) {
    const dir = cwdOf(c) ?? '.';
    const write = c.tools.find((t) => /^(write|write_file|create|create_file|str_replace_editor|edit)$/i.test(t));
    const read = c.tools.find((t) => /^(read|read_file|view)$/i.test(t));
    if (wantsWrite && write) return { tool: write, args: { filePath: `${dir}/probe-permission.txt`, path: `${dir}/probe-permission.txt`, file_path: `${dir}/probe-permission.txt`, content: 'pong\n', file_text: 'pong\n', command: 'create' } };
    if (wantsRead && read) return { tool: read, args: { filePath: `${dir}/probe-readme.txt`, path: `${dir}/probe-readme.txt`, file_path: `${dir}/probe-readme.txt` } };
  }
  return { text: c.toolResults ? 'Done.' : 'pong' };
}

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function chat(req, res, body, p) {
  const id = `chatcmpl-${++n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? MODEL;
  if (!body.stream) {
    const message = p.tool
      ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: p.tool, arguments: JSON.stringify(p.args) } }] }
      : { role: 'assistant', content: p.text ?? p.slow.join('') };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: p.tool ? 'tool_calls' : 'stop' }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta, finish = null, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  const end = (finish) => {
    chunk({}, finish);
    if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
  chunk({ role: 'assistant', content: '' });
  if (p.tool) {
    chunk({ tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: p.tool, arguments: JSON.stringify(p.args) } }] });
    end('tool_calls');
  } else if (p.slow) {
    drip(req, res, p.slow, (t) => chunk({ content: t }), () => end('stop'));
  } else {
    chunk({ content: p.text });
    end('stop');
  }
}

function responses(req, res, body, p) {
  const id = `resp_${++n}`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const ev = (o) => res.write(`event: ${o.type}\ndata: ${JSON.stringify(o)}\n\n`);
  const done = () => {
    ev({ type: 'response.completed', response: { id, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } } });
    res.end();
  };
  ev({ type: 'response.created', response: { id } });
  if (p.tool) {
    ev({ type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: p.tool, arguments: JSON.stringify(p.args) } });
    done();
    return;
  }
  const item = `msg_${n}`;
  ev({ type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: item, role: 'assistant', content: [] } });
  const delta = (t) => ev({ type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: item, delta: t });
  const finish = (all) => {
    ev({ type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: item, role: 'assistant', content: [{ type: 'output_text', text: all }] } });
    done();
  };
  if (p.slow) drip(req, res, p.slow, delta, () => finish(p.slow.join('')));
  else {
    delta(p.text);
    finish(p.text);
  }
}

/** Sends the pieces one every 100 ms; stops when the agent hangs up (it cancelled the turn). */
function drip(req, res, pieces, send, end) {
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || res.writableEnded) return clearInterval(timer);
    if (i < pieces.length) send(pieces[i++]);
    else {
      clearInterval(timer);
      end();
    }
  }, 100);
  res.on('close', () => clearInterval(timer));
}

const server = http.createServer((req, res) => {
  let b = '';
  req.on('data', (d) => (b += d));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(b || '{}'); } catch { /* an empty body */ }
    if (req.method === 'GET' && /\/models\/?$/.test(req.url)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model', created: 0, owned_by: 'probe' }] }));
      return;
    }
    const c = conversation(body);
    const p = plan(c);
    log(`${req.method} ${req.url} stream=${body.stream} model=${body.model} tools=${c.tools.join(',')} results=${c.toolResults} user=${JSON.stringify(c.user.slice(0, 60))} → ${p.tool ?? (p.slow ? 'slow' : JSON.stringify(p.text))}`);
    if (req.url.includes('/chat/completions')) return chat(req, res, body, p);
    if (req.url.includes('/responses')) return responses(req, res, body, p);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found"}}');
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
