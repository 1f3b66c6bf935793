// A scripted stand-in for Augment's backend on 127.0.0.1, so auggie runs a real tool loop offline:
// `/get-models` names one model, `/chat-stream` answers with newline-delimited JSON chunks (text,
// and tool-use nodes), `/agents/list-remote-tools` none, every other POST `{}`. Point auggie at it
// with AUGMENT_SESSION_AUTH='{"accessToken":"x","tenantURL":"http://127.0.0.1:PORT/","scopes":["read","write"]}'.
// Each turn follows the probe's prompt (scripted-turns.mjs): a text, the file and shell tools in the
// session's cwd, or a slow stream.
// usage: scripted-augment.mjs [PORT] [REQUEST_LOG]
import { json, nextStep, serve, toolCall } from './scripted-turns.mjs';

// Augment's node types: request text 0, tool result 1, IDE state 4; response raw text 0, tool use 5.
// Stop reasons: end of turn 1, tool use requested 3.
const TEXT = 0, TOOL_RESULT = 1, TOOL_USE = 5, END_TURN = 1, TOOL_USE_REQUESTED = 3;

/** The turn's prompt: the last request text, through the history; the tool results since it. */
function turnOf(body) {
  const requests = [...(body.chat_history ?? []).map((x) => ({ nodes: x.request_nodes ?? [], message: x.request_message })), { nodes: body.nodes ?? [], message: body.message }];
  let results = 0;
  for (let i = requests.length - 1; i >= 0; i--) {
    const { nodes, message } = requests[i];
    const prompt = [message ?? '', ...nodes.filter((n) => n.type === TEXT).map((n) => n.text_node?.content ?? '')].join('\n').trim();
    if (prompt) return { prompt, results };
    results += nodes.filter((n) => n.type === TOOL_RESULT).length;
  }
  return { prompt: '', results };
}

let n = 0;
serve('fake augment', 18559, async (req, res, body, log) => {
  if (req.url.startsWith('/get-models')) return json(res, 200, { default_model: 'scripted', models: [{ name: 'scripted', suggested_prefix_char_count: 1000, suggested_suffix_char_count: 1000 }], feature_flags: {} });
  if (req.url.startsWith('/agents/list-remote-tools')) return json(res, 200, { tools: [] });
  if (!req.url.startsWith('/chat-stream')) return json(res, 200, {});
  const tools = (body.tool_definitions ?? []).map((t) => { try { return { name: t.name, schema: JSON.parse(t.input_schema_json || '{}') }; } catch { return { name: t.name }; } });
  const { prompt, results } = turnOf(body);
  const step = nextStep(prompt, results, JSON.stringify(body.nodes ?? []));
  const fc = step.tool && toolCall(step, tools);
  log(`${req.method} ${req.url} prompt=${JSON.stringify(prompt.slice(-80))} results=${results} -> ${JSON.stringify(fc ?? step).slice(0, 120)}`);
  res.writeHead(200, { 'content-type': 'application/json' });
  let gone = false;
  res.on('close', () => (gone = true));
  const line = (o) => res.write(`${JSON.stringify(o)}\n`);
  if (fc) {
    line({ text: '', nodes: [{ id: 1, type: TOOL_USE, content: '', tool_use: { tool_use_id: `toolu_${++n}`, tool_name: fc.name, input_json: JSON.stringify(fc.args) } }], stop_reason: TOOL_USE_REQUESTED });
  } else {
    for (const t of step.slow ?? [step.text]) {
      if (gone) return;
      line({ text: t, nodes: [] });
      if (step.everyMs) await new Promise((r) => setTimeout(r, step.everyMs));
    }
    line({ text: '', nodes: [], stop_reason: END_TURN });
  }
  res.end();
});
