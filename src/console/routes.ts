/**
 * The console's HTTP routes, behind the server's guard (loopback Host, same origin, the launch
 * token): the snapshot and event stream the page follows, and what it may ask: send a request, a
 * notification or a raw line to the agent, answer one of the agent's requests, switch terminals on
 * or off, reconnect (the same command again). None of them takes a command to run.
 */
import type { Hono, Context } from 'hono';
import { streamEvents } from '../server/sse.js';
import { ConsoleError, type ConsoleAnswer, type ConsoleSession } from './session.js';
import type { ConsoleEvent, PermissionPolicy } from './contract.js';
import type { Recording } from '../transcript/format.js';
import { attachment, listFiles } from './attach.js';
import { composableMethods, composeNotes, skeleton } from '../spec/compose.js';
import { usePrebuiltValidators } from '../check-run/validators.js';

/** Largest JSON body a console route reads. */
const MAX_BODY = 8 * 1024 * 1024;

async function body(c: Context): Promise<Record<string, unknown>> {
  if (!(c.req.header('content-type') ?? '').startsWith('application/json')) throw new ConsoleError(400, 'send a JSON body (Content-Type: application/json)');
  if (Number(c.req.header('content-length')) > MAX_BODY) throw new ConsoleError(400, `the body is larger than ${MAX_BODY} bytes`);
  let v: unknown;
  try {
    v = await c.req.json();
  } catch {
    throw new ConsoleError(400, 'the body is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConsoleError(400, 'the body must be a JSON object');
  return v as Record<string, unknown>;
}

/** Items 1..seq of a stored recording with its header, or an HTTP-ready refusal (thrown). */
export type ForkSource = (recordingId: number, seq: number) => Recording;

export function registerConsoleRoutes(app: Hono, session: ConsoleSession, forkSource: ForkSource): void {
  app.get('/api/console', (c) => c.json(session.snapshot()));
  app.post('/api/console/request', async (c) => {
    const b = await body(c);
    return c.json({ id: session.request(b.method as string, b.params) });
  });
  app.post('/api/console/notify', async (c) => {
    const b = await body(c);
    session.notify(b.method as string, b.params);
    return c.json({ sent: true });
  });
  app.post('/api/console/raw', async (c) => {
    session.raw((await body(c)).text as string);
    return c.json({ sent: true });
  });
  // The raw composer: the methods a client sends, a method's skeleton (a request with an id of the
  // console's own, not used by anything it sends), and what the schema says about a line as written.
  app.get('/api/console/compose/methods', (c) => c.json(composableMethods()));
  app.post('/api/console/compose/skeleton', async (c) => {
    const b = await body(c);
    if (typeof b.method !== 'string' || b.method === '') throw new ConsoleError(400, 'a skeleton names its "method"');
    const fill = { cwd: session.folder, ...(typeof b.sessionId === 'string' ? { sessionId: b.sessionId } : {}) };
    return c.json({ message: skeleton(b.method, session.reserveId(), fill) });
  });
  app.post('/api/console/compose/notes', async (c) => {
    const b = await body(c);
    if (typeof b.text !== 'string') throw new ConsoleError(400, 'send {"text": the line to look at}');
    await usePrebuiltValidators().catch(() => false); // else the schemas compile on first use
    return c.json({ notes: composeNotes(b.text) });
  });
  app.post('/api/console/answer', async (c) => {
    const b = await body(c);
    if (typeof b.key !== 'string') throw new ConsoleError(400, 'an answer names the request it answers: "key", the JSON of its id');
    const { key, ...answer } = b;
    session.answer(key, answer as ConsoleAnswer);
    return c.json({ answered: key });
  });
  app.post('/api/console/terminals', async (c) => {
    const b = await body(c);
    if (typeof b.on !== 'boolean') throw new ConsoleError(400, 'send {"on": true} or {"on": false}');
    session.setTerminals(b.on);
    return c.json({ terminals: b.on });
  });
  app.post('/api/console/permissions', async (c) => {
    const b = await body(c);
    session.setPermissions(b.policy as PermissionPolicy);
    return c.json({ permissions: b.policy });
  });
  // A terminal auth method of the agent's answer, confirmed: {methodId, shown: {command, env}} as the page showed it.
  app.post('/api/console/terminal-auth', async (c) => {
    const b = await body(c);
    session.runTerminalAuth(b.methodId, b.shown);
    return c.json(session.snapshot().status.authRun);
  });
  app.post('/api/console/terminal-auth/cancel', async (c) => {
    await body(c);
    session.cancelTerminalAuth();
    return c.json({ cancelling: true });
  });
  app.post('/api/console/reconnect', async (c) => {
    await body(c);
    await session.start();
    return c.json(session.snapshot().status);
  });
  // Fork from a frame of a recording of this database: the console's own agent command again, the
  // recording's client side replayed up to that frame, then the page has the session.
  app.post('/api/console/fork', async (c) => {
    const b = await body(c);
    if (!Number.isSafeInteger(b.recordingId) || !Number.isSafeInteger(b.seq) || (b.seq as number) < 1) throw new ConsoleError(400, 'a fork names {"recordingId": ID, "seq": N}, a frame of a recording');
    const rec = forkSource(b.recordingId as number, b.seq as number);
    await session.fork(b.recordingId as number, b.seq as number, rec);
    return c.json(session.snapshot().status);
  });
  // Prompt attachments: the files of the console's folder an `@` may pick, and the content block one becomes.
  app.get('/api/console/files', async (c) => c.json(await listFiles(session.folder, c.req.query('q') ?? '')));
  app.post('/api/console/attachment', async (c) => {
    const b = await body(c);
    return c.json({ block: await attachment(session.folder, b.path, b.as) });
  });
  // The stream starts with the state it follows from (see the `snapshot` event).
  app.get('/api/console/events', (c) => streamEvents<ConsoleEvent>(c, (send) => session.subscribe(send), () => [{ type: 'snapshot', snapshot: session.snapshot() }]));
}
