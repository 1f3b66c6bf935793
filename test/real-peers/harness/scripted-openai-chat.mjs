// A scripted stand-in for OpenAI's chat completions API (`POST /v1/chat/completions`, streamed as SSE
// or not, and `GET /v1/models`) on 127.0.0.1, so qwen-code runs a real tool loop offline: point it at
// it with OPENAI_BASE_URL=http://127.0.0.1:PORT/v1, any OPENAI_API_KEY and OPENAI_MODEL. Each turn
// follows the probe's prompt (scripted-turns.mjs): a text, the file and shell tools in the session's
// cwd, or a slow stream. A side question asking for the next speaker gets the answer that ends the turn.
// usage: scripted-openai-chat.mjs [PORT] [REQUEST_LOG]
import { json, nextStep, serve, sse, toolCall } from './scripted-turns.mjs';

const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => p.text ?? '').join('\n') : '');

/** The turn's prompt: the last user message; the tool results since it. */
function turnOf(messages) {
  let results = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') return { prompt: textOf(messages[i].content), results };
    if (messages[i].role === 'tool') results++;
  }
  return { prompt: '', results };
}

let n = 0;
serve('fake openai chat', 18558, async (req, res, body, log) => {
  if (req.method === 'GET' && req.url.includes('/models')) return json(res, 200, { object: 'list', data: [{ id: 'scripted', object: 'model', owned_by: 'scripted' }] });
  if (!req.url.includes('/chat/completions')) return json(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
  const tools = (body.tools ?? []).map((t) => ({ name: t.function?.name, schema: t.function?.parameters }));
  const messages = body.messages ?? [];
  const all = messages.map((m) => textOf(m.content)).join('\n');
  const { prompt, results } = turnOf(messages);
  const side = /next_speaker/.test(all) || ['json_object', 'json_schema'].includes(body.response_format?.type);
  const step = side ? { text: JSON.stringify({ reasoning: 'The turn is complete.', next_speaker: 'user' }) } : nextStep(prompt, results, all);
  const fc = step.tool && toolCall(step, tools);
  log(`${req.method} ${req.url} stream=${body.stream} messages=${messages.length} prompt=${JSON.stringify(prompt.slice(-80))} results=${results} -> ${JSON.stringify(fc ?? step).slice(0, 120)}`);
  const base = { id: `chatcmpl-${++n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model ?? 'scripted' };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const call = fc && { id: `call_${n}`, type: 'function', function: { name: fc.name, arguments: JSON.stringify(fc.args) } };
  const finish = fc ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message = { role: 'assistant', content: fc ? null : step.text ?? step.slow.join(''), ...(call ? { tool_calls: [call] } : {}) };
    return json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  const delta = (d, finishReason = null, extra = {}) => ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finishReason }], ...extra });
  const body2 = call ? [delta({ tool_calls: [{ index: 0, ...call }] })] : (step.slow ?? [step.text]).map((t) => delta({ content: t }));
  return sse(res, [delta({ role: 'assistant', content: '' }), ...body2, delta({}, finish, { usage }), '[DONE]'], step.slow ? step.everyMs : 0);
});
