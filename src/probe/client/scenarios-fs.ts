/**
 * fs/* when the client advertised it: a scratch file `.acp-inspect-probe-*` in the session's cwd,
 * written through the client and checked on disk, read back whole and with `line`/`limit`, and a
 * missing file that must fail with -32002. The files the reads use are written by the probe itself,
 * so a broken write does not fail the reads too. Nothing is sent for what was not advertised.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { M } from '../../spec/methods.js';
import { type ClientFacts, type ClientScenario, type Outcome, type ScenarioContext, CLIENT_QUOTES, clip, describeReply, errorText, fail, failAnswer, graded, info, isObject, pass, skip } from './scenario.js';

/** Four lines, non-ASCII in each, ending in a newline. */
export const SCRATCH_TEXT = 'line 1 — alpha\nline 2 — βeta\nline 3 — γamma ✓\nline 4 — δelta\n';

const needRead = (c: ClientFacts): string | undefined => c.caps.readTextFile ? undefined : 'the client did not advertise fs.readTextFile: the probe sent no fs/read_text_file';
const needWrite = (c: ClientFacts): string | undefined => c.caps.writeTextFile ? undefined : 'the client did not advertise fs.writeTextFile: the probe sent no fs/write_text_file';

const localDir = (cwd: string): boolean => {
  try { return statSync(cwd).isDirectory(); } catch { return false; }
};

/** Writes a scratch file with the probe's own fs (removed at the end); undefined when the cwd is not on this machine. */
function ownScratch(ctx: ScenarioContext): string | undefined {
  if (!localDir(ctx.cwd)) return undefined;
  const path = join(ctx.cwd, ctx.scratchName());
  writeFileSync(path, SCRATCH_TEXT);
  ctx.atEnd(() => rmSync(path, { force: true }));
  return path;
}

const notLocal = (ctx: ScenarioContext): Outcome => skip(`the session cwd ${ctx.cwd} is not a folder on the probe's machine, so the probe cannot place a file to read`);

/** What the spec says of fs/read_text_file: what it does, with no "must" (advisory); its result's `content` is `req`. */
const READ_SAYS = 'fs/read_text_file: "line integer | null (1-based, minimum 0); limit integer | null (maximum lines, minimum 0)"; result "content string req" (4.2): it says what the client does, with no "must"';
const CONTENT_REQ = CLIENT_QUOTES.req('the fs/read_text_file result: "content string req" (4.2)');

/** The `content` of a read, or why there is none, as an outcome (no answer and no `content` are required failures). */
function contentOf(r: Awaited<ReturnType<ScenarioContext['request']>>): { content: string } | { outcome: Outcome } {
  if (r.kind !== 'result') return { outcome: failAnswer(r, describeReply(M.readTextFile, r)) };
  if (!isObject(r.result) || typeof r.result.content !== 'string') return { outcome: graded(fail(`the answer has no content string: ${describeReply(M.readTextFile, r)}`), 'capability', CONTENT_REQ) };
  return { content: r.result.content };
}

const sameLines = (got: string, want: string): boolean => got === want || got === want.replace(/\n$/, '');

export const FS_SCENARIOS: ClientScenario[] = [
  {
    id: 'fs-write',
    title: 'fs/write_text_file creates the file with exactly the content sent',
    tier: 'advisory', spec: '4.2', group: 'fs', gate: needWrite,
    quote: 'fs/write_text_file "creates or modifies a file" (4.2): it says what the client does, with no "must"',
    async run(ctx) {
      const path = join(ctx.cwd, ctx.scratchName());
      ctx.atEnd(() => rmSync(path, { force: true }));
      const r = await ctx.request(M.writeTextFile, { sessionId: ctx.sessionId, path, content: SCRATCH_TEXT });
      if (r.kind !== 'result') return failAnswer(r, describeReply(M.writeTextFile, r));
      if (!localDir(ctx.cwd)) return pass(`answered; the cwd is not on the probe's machine, so the file was not checked on disk`);
      if (!existsSync(path)) return fail(`answered success, but ${path} does not exist`);
      const disk = readFileSync(path, 'utf8');
      return disk === SCRATCH_TEXT ? pass(`wrote ${path} with the exact ${Buffer.byteLength(SCRATCH_TEXT)} bytes sent`)
        : fail(`answered success, but the file holds ${JSON.stringify(clip(disk))}, not what was sent`);
    },
  },
  {
    id: 'fs-read',
    title: 'fs/read_text_file returns the whole file',
    tier: 'advisory', spec: '4.2', group: 'fs', gate: needRead, quote: READ_SAYS,
    async run(ctx) {
      const path = ownScratch(ctx);
      if (!path) return notLocal(ctx);
      const c = contentOf(await ctx.request(M.readTextFile, { sessionId: ctx.sessionId, path }));
      if ('outcome' in c) return c.outcome;
      return c.content === SCRATCH_TEXT ? pass('the whole file, byte for byte')
        : fail(`returned ${JSON.stringify(clip(c.content))}, not the file's content ${JSON.stringify(clip(SCRATCH_TEXT))}`);
    },
  },
  {
    id: 'fs-read-line-limit',
    title: 'fs/read_text_file honours line (1-based) and limit',
    tier: 'advisory', spec: '4.2', group: 'fs', gate: needRead, quote: READ_SAYS,
    async run(ctx) {
      const path = ownScratch(ctx);
      if (!path) return notLocal(ctx);
      const lines = SCRATCH_TEXT.split(/(?<=\n)/);
      const cases: Array<{ params: Record<string, number>; want: string }> = [
        { params: { line: 2, limit: 2 }, want: lines.slice(1, 3).join('') },
        { params: { line: 4 }, want: lines.slice(3).join('') },
        { params: { limit: 1 }, want: lines[0]! },
      ];
      for (const k of cases) {
        const c = contentOf(await ctx.request(M.readTextFile, { sessionId: ctx.sessionId, path, ...k.params }));
        const asked = Object.entries(k.params).map(([a, b]) => `${a} ${b}`).join(', ');
        if ('outcome' in c) return { ...c.outcome, why: `with ${asked}: ${c.outcome.why}` };
        if (!sameLines(c.content, k.want)) return fail(`with ${asked}: returned ${JSON.stringify(clip(c.content))}, expected ${JSON.stringify(k.want)}`);
      }
      return pass('line 2 limit 2, line 4, and limit 1 each returned exactly those lines');
    },
  },
  {
    id: 'fs-read-missing',
    title: 'Reading a missing file: which answer the client gives (-32002, resource not found, is the code for it)',
    tier: 'info', spec: '7 rule 4', group: 'fs', gate: needRead,
    quote: '"Which other method returns which other error, and the content of `data` for any code, are not shown." (7 rule 4); -32002 is "Resource not found (for example a file)" (7)',
    async run(ctx) {
      const path = join(ctx.cwd, ctx.scratchName().replace(/\.txt$/, '-missing.txt'));
      if (existsSync(path)) return skip(`${path} exists`);
      const r = await ctx.request(M.readTextFile, { sessionId: ctx.sessionId, path });
      if (r.kind === 'error') {
        return info(r.error.code === -32002 ? 'failed with -32002 (resource not found)' : `failed with ${errorText(r.error)} (-32002, resource not found, is the code for it)`);
      }
      if (r.kind === 'result') {
        const content = isObject(r.result) ? r.result.content : undefined;
        return graded(fail(`a missing file was answered as content ${JSON.stringify(clip(String(content ?? '')))}, not an error`), 'advisory', READ_SAYS);
      }
      return failAnswer(r, describeReply(M.readTextFile, r));
    },
  },
];
