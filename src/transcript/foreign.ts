/**
 * Which kind of capture a file is, told from its first bytes, and the transcript text a capture made
 * by another tool stands for. Transcripts pass through untouched; the others are read whole and
 * converted by their own module: acp-devtools.ts, acp-devtools-log.ts, zed-acp-log.ts. A bare
 * JSON-RPC log (one side of the wire, as `tee` writes it) is only readable beside the other side
 * (tee-pair.ts). Pure: no Node built-in, so the static viewer and the server use it as the CLI does.
 */
import { TranscriptError } from './format.js';
import { acpDevtoolsToLines, looksLikeAcpDevtools } from './acp-devtools.js';
import { looksLikeZedAcpLog, zedAcpLogToLines } from './zed-acp-log.js';
import { acpDevtoolsLogToLines, looksLikeAcpDevtoolsLog } from './acp-devtools-log.js';
import { looksLikeRawJsonRpc } from './tee-pair.js';

export type CaptureFormat = 'transcript' | 'acp-devtools' | 'acp-devtools-log' | 'zed-acp-log' | 'raw-jsonrpc' | 'json-document';

/** Bytes of a file's start that are enough to tell its format. */
export const SNIFF_BYTES = 64 * 1024;

/** The format of a capture whose first bytes (up to SNIFF_BYTES, as text) are `head`. */
export function sniffCapture(head: string): CaptureFormat {
  if (firstLineIsTranscript(head)) return 'transcript';
  if (looksLikeRawJsonRpc(head)) return 'raw-jsonrpc';
  if (looksLikeAcpDevtools(head)) return 'acp-devtools';
  if (looksLikeZedAcpLog(head)) return 'zed-acp-log';
  if (looksLikeAcpDevtoolsLog(head)) return 'acp-devtools-log';
  // An indented JSON document (a transcript line is never a bare brace or bracket).
  if (/^\uFEFF?\s*[[{]\s*\n/.test(head)) return 'json-document';
  return 'transcript';
}

/** The first line is whole in `head` and is a transcript's header or item line. */
function firstLineIsTranscript(head: string): boolean {
  const nl = head.indexOf('\n');
  if (nl < 0) return false;
  try {
    const o = JSON.parse(head.slice(0, nl).replace(/^\uFEFF/, '')) as Record<string, unknown>;
    return o !== null && typeof o === 'object' && (o.acpInspect === 'recording' || typeof o.dir === 'string');
  } catch {
    return false;
  }
}

const NAMES: Record<Exclude<CaptureFormat, 'transcript'>, string> = {
  'acp-devtools': 'an acp-devtools export',
  'acp-devtools-log': "acp-devtools' JSON log",
  'zed-acp-log': "a copy of Zed's ACP log",
  'raw-jsonrpc': 'a raw JSON-RPC log',
  'json-document': 'a JSON document',
};

/** How a user would call a file of this format, for messages ("an acp-devtools export"). */
export function formatName(f: Exclude<CaptureFormat, 'transcript'>): string {
  return NAMES[f];
}

/** The refusal for a bare JSON-RPC log given alone: which side is which cannot be told from it. */
export function oneSideError(): TranscriptError {
  return new TranscriptError('a raw JSON-RPC log (one side of the wire, as tee writes it) does not say which way its lines went; give the agent\'s stdin log and its stdout log together as STDIN.log+STDOUT.log');
}

/** The refusal for a JSON document of no format acp-inspect reads. */
function unknownDocumentError(): TranscriptError {
  return new TranscriptError('one JSON document, which is neither a transcript (one JSON object per line) nor a capture acp-inspect reads (an acp-devtools export, a copy of Zed\'s ACP log)');
}

/**
 * The transcript text of a whole capture of a `format` other than a transcript (a transcript is
 * returned as it is). Throws TranscriptError when the document is not JSON or not of its format.
 */
export function captureToTranscript(text: string, format: CaptureFormat = sniffCapture(text.slice(0, SNIFF_BYTES))): string {
  if (format === 'transcript') return text;
  if (format === 'raw-jsonrpc') throw oneSideError();
  if (format === 'json-document') throw unknownDocumentError();
  if (format === 'acp-devtools-log') return acpDevtoolsLogToLines(text).join('\n') + '\n';
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new TranscriptError(`${formatName(format)} must be one JSON document, and this one is not JSON (${(e as Error).message})`);
  }
  const lines = format === 'acp-devtools' ? acpDevtoolsToLines(doc) : zedAcpLogToLines(doc);
  return lines.join('\n') + '\n';
}
