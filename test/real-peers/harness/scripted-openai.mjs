// A scripted stand-in for the OpenAI Responses API (SSE) on 127.0.0.1, so codex-acp runs a real tool loop
// offline. Point codex at it with a model provider in $HOME/.codex/config.toml:
//   model_provider = "scripted"
//   [model_providers.scripted]
//   name = "scripted"
//   base_url = "http://127.0.0.1:PORT/v1"
//   env_key = "CODEX_API_KEY"
//   wire_api = "responses"
// Each turn: exec_command `ls -la`, update_plan, apply_patch adding NOTES.md, then a text.
// usage: scripted-openai.mjs [PORT] [REQUEST_LOG]
import http from 'node:http';
import { appendFileSync } from 'node:fs';
const port = Number(process.argv[2] ?? 18556);
const log = (s) => process.argv[3] && appendFileSync(process.argv[3], s + '\n');
let n = 0;
http.createServer((req, res) => {
  let b = '';
  req.on('data', (d) => (b += d));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(b || '{}'); } catch {}
    const tools = (body.tools ?? []).map((t) => t.name ?? t.type);
    const input = body.input ?? [];
    const outputs = input.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').length;
    log(`${req.method} ${req.url} stream=${body.stream} model=${body.model} tools=${tools.join(',')} input=${input.length} outputs=${outputs} ws=${req.headers.upgrade ?? ''}`);
    if (!req.url.includes('/responses')) { res.writeHead(404); res.end('{}'); return; }
    const id = `resp_${++n}`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (o) => res.write(`event: ${o.type}\ndata: ${JSON.stringify(o)}\n\n`);
    ev({ type: 'response.created', response: { id } });
    const fc = (name, args) => ev({ type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name, arguments: JSON.stringify(args) } });
    if (outputs === 0 && tools.includes('exec_command')) fc('exec_command', { cmd: 'ls -la' });
    else if (outputs === 1 && tools.includes('update_plan')) fc('update_plan', { plan: [{ step: 'List the files', status: 'completed' }, { step: 'Write NOTES.md', status: 'in_progress' }] });
    else if (outputs === 2 && tools.includes('apply_patch')) ev({ type: 'response.output_item.done', output_index: 0, item: { type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: 'apply_patch', input: '*** Begin Patch\n*** Add File: NOTES.md\n+notes\n*** End Patch\n' } });
    else {
      const text = outputs ? 'Listed the files.' : 'Hello from the fake model.';
      ev({ type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: `msg_${n}`, role: 'assistant', content: [] } });
      ev({ type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: `msg_${n}`, delta: text });
      ev({ type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: `msg_${n}`, role: 'assistant', content: [{ type: 'output_text', text }] } });
    }
    ev({ type: 'response.completed', response: { id, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } } });
    res.end();
  });
}).listen(port, '127.0.0.1', () => console.error(`fake openai on ${port}`));
