// A scripted stand-in for Google's Gemini API (generateContent, streamGenerateContent as SSE,
// countTokens) on 127.0.0.1, so gemini-cli runs a real tool loop offline: point it at it with
// GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT and any GEMINI_API_KEY. Each turn follows the probe's
// prompt (scripted-turns.mjs): a text, the file and shell tools in the session's cwd, or a slow stream.
// A request asking for JSON (gemini-cli's own side questions, such as who speaks next) gets the
// answer that ends the turn.
// usage: scripted-gemini.mjs [PORT] [REQUEST_LOG]
import { json, nextStep, serve, sse, toolCall } from './scripted-turns.mjs';

const textsOf = (body) => [
  ...(body.systemInstruction?.parts ?? []).map((p) => p.text ?? ''),
  ...(body.contents ?? []).flatMap((c) => (c.parts ?? []).map((p) => p.text ?? '')),
].join('\n');

/** The turn's prompt: the last user text; the tool results since it. */
function turnOf(contents) {
  let results = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    const parts = contents[i].parts ?? [];
    if (contents[i].role === 'user' && parts.some((p) => typeof p.text === 'string' && !p.functionResponse)) {
      return { prompt: parts.map((p) => p.text ?? '').join('\n'), results };
    }
    results += parts.filter((p) => p.functionResponse).length;
  }
  return { prompt: '', results };
}

const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
const chunk = (parts, finish) => ({ candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: 'STOP' } : {}) }], usageMetadata: usage, modelVersion: 'scripted' });

serve('fake gemini', 18557, async (req, res, body, log) => {
  if (req.url.includes(':countTokens')) return json(res, 200, { totalTokens: 10 });
  if (!/:(stream)?[gG]enerateContent/.test(req.url)) return json(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
  const stream = req.url.includes(':streamGenerateContent');
  const decls = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const { prompt, results } = turnOf(body.contents ?? []);
  const step = body.generationConfig?.responseMimeType === 'application/json'
    ? { text: JSON.stringify({ reasoning: 'The turn is complete.', next_speaker: 'user' }) }
    : nextStep(prompt, results, textsOf(body));
  const fc = step.tool && toolCall(step, decls.map((d) => ({ name: d.name, schema: d.parametersJsonSchema ?? d.parameters })));
  log(`${req.method} ${req.url} prompt=${JSON.stringify(prompt.slice(-80))} results=${results} -> ${JSON.stringify(fc ?? step).slice(0, 120)}`);
  const chunks = fc ? [chunk([{ functionCall: fc }], true)]
    : step.slow && stream ? step.slow.map((t, i) => chunk([{ text: t }], i === step.slow.length - 1))
    : [chunk([{ text: step.text ?? step.slow.join('') }], true)];
  if (!stream) return json(res, 200, chunks.at(-1));
  return sse(res, chunks, fc ? 0 : step.everyMs);
});
