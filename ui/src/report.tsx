/**
 * Entry of the self-contained HTML report: the recording, its findings and model states are in the
 * page (gzip, base64, in a non-executable <script type="application/gzip">); decompressed with the
 * browser's DecompressionStream, parsed, and read through a MemorySource. No request is made.
 */
import { render } from 'preact';
import { App } from './app.js';
import { readUrl, openRecording, recId, single } from './model.js';
import { setSource } from './api.js';
import { MemorySource } from '../../src/view/memory-source.js';
import { decodeReport } from '../../src/view/report-data.js';
import './style.css';

async function gunzipBase64(b64: string): Promise<string> {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).text();
}

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  try {
    const el = document.getElementById('acp-inspect-data');
    if (!el?.textContent) throw new Error('this report holds no recording');
    const { note, recording } = decodeReport(await gunzipBase64(el.textContent.trim()));
    const src = new MemorySource(recording);
    setSource(src);
    single.value = { id: src.id, note, transcript: () => ({ name: `acp-recording-${(recording.summary.name ?? 'report').replace(/[^\w.-]+/g, '_')}.jsonl`, text: src.transcript() }) };
    readUrl();
    void openRecording(recId.value);
    root.textContent = '';
    render(<App />, root);
    // With time to spare, fold the model's states ahead (a slice at a time), so details open at once.
    const warm = () => { if (src.warmStates()) setTimeout(warm, 30); };
    setTimeout(warm, 500);
  } catch (e) {
    root.textContent = `This report could not be opened: ${(e as Error).message}`;
  }
}

void start();
