import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import { makeDb } from './fixture.js';

const TOKEN = 'test-token-0123456789abcdef';
const HOST = '127.0.0.1:4555';
let app: InspectorApp;
let db: ReturnType<typeof makeDb>;

beforeAll(() => {
  db = makeDb();
  app = createApp({ dbPath: db.dbPath, token: TOKEN, allowedHosts: [HOST, 'localhost:4555'], cookieName: 'acp_inspect_4555' });
});
afterAll(() => {
  app.close();
  db.cleanup();
});

const req = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  app.request(`http://${HOST}${path}`, { ...init, headers: { host: HOST, ...headers } });
const authed = { cookie: `acp_inspect_4555=${TOKEN}` };

const ROUTES: [string, string][] = [
  ['GET', '/'], ['GET', '/index.html'], ['GET', '/assets/index.js'], ['GET', '/api/recordings'], ['GET', '/api/recordings/1'],
  ['GET', '/api/recordings/1/items'], ['GET', '/api/recordings/1/items/1'], ['GET', '/api/recordings/1/export'],
  ['GET', '/api/events'], ['DELETE', '/api/recordings/1'], ['POST', '/api/import'], ['GET', '/api/no-such-route'],
  ['GET', '/api/recordings/1/groups'], ['GET', '/api/compare?a=1&b=1'],
];

describe('the guard', () => {
  it.each(ROUTES)('answers 401 to %s %s without the token or cookie', async (method, path) => {
    const res = await req(path, {}, { method });
    expect(res.status).toBe(401);
  });

  it.each(ROUTES)('answers 401 to %s %s with a wrong cookie or bearer token', async (method, path) => {
    expect((await req(path, { cookie: 'acp_inspect_4555=wrong' }, { method })).status).toBe(401);
    expect((await req(path, { authorization: 'Bearer wrong' }, { method })).status).toBe(401);
    expect((await req(path, { cookie: `acp_inspect_9999=${TOKEN}` }, { method })).status).toBe(401);
  });

  it('answers 401 to a wrong ?token=', async () => {
    const res = await req('/?token=nope');
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it.each(ROUTES)('answers 403 to %s %s when the Host header is another name (DNS rebinding), even with the token', async (method, path) => {
    for (const host of ['evil.example:4555', '127.0.0.1:80', '127.0.0.1', 'localhost', '127.0.0.1:4556', '0.0.0.0:4555', '']) {
      const res = await app.request(`http://${HOST}${path}`, { method, headers: { host, ...authed } });
      expect(res.status, `Host: ${host}`).toBe(403);
    }
  });

  it('answers 403 when there is no Host header at all', async () => {
    const res = await app.request(`http://${HOST}/api/recordings`, { headers: authed });
    expect(res.status).toBe(403);
  });

  it.each(ROUTES)('answers 403 to %s %s when Origin names another origin, even with the cookie', async (method, path) => {
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:4556', 'https://127.0.0.1:4555', 'http://localhost:4555.evil.example']) {
      const res = await req(path, { ...authed, origin }, { method });
      expect(res.status, `Origin: ${origin}`).toBe(403);
    }
  });

  it('accepts the same origin, by either loopback name', async () => {
    expect((await req('/api/recordings', { ...authed, origin: `http://${HOST}` })).status).toBe(200);
    const res = await app.request('http://localhost:4555/api/recordings', { headers: { host: 'localhost:4555', ...authed, origin: 'http://localhost:4555' } });
    expect(res.status).toBe(200);
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie and redirects to drop it from the URL', async () => {
    const res = await req(`/?token=${TOKEN}&rec=1&q=method%3Ainitialize`);
    expect(res.status).toBe(302);
    const loc = res.headers.get('location')!;
    expect(loc).not.toContain('token');
    expect(loc).toContain('rec=1');
    expect(new URLSearchParams(loc.split('?')[1]).get('q')).toBe('method:initialize');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toContain(`acp_inspect_4555=${TOKEN}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const next = await req(loc, { cookie: cookie.split(';')[0]! });
    expect(next.status).not.toBe(401);
  });

  it('answers 403 to subresource requests from another site or another local port, even with the cookie', async () => {
    for (const site of ['cross-site', 'same-site']) {
      for (const mode of ['no-cors', 'cors']) {
        const res = await req('/api/recordings/1/export', { ...authed, 'sec-fetch-site': site, 'sec-fetch-mode': mode });
        expect(res.status, `${site} ${mode}`).toBe(403);
      }
    }
    expect((await req('/api/recordings', { ...authed, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })).status).toBe(200);
    // Opening the printed URL from a terminal or another page is a navigation: allowed.
    expect((await req(`/?token=${TOKEN}`, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).status).toBe(302);
  });

  it('never redirects to another host after the token exchange', async () => {
    for (const p of [`//evil.example/?token=${TOKEN}`, `/\\evil.example/?token=${TOKEN}`]) {
      const res = await req(p);
      const loc = res.headers.get('location');
      if (loc !== null) expect(loc.startsWith('/') && !loc.startsWith('//') && !loc.startsWith('/\\'), `${p} → ${loc}`).toBe(true);
    }
  });

  it('accepts the token as a bearer header or query on the API (no redirect)', async () => {
    expect((await req('/api/recordings', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await req(`/api/recordings?token=${TOKEN}`)).status).toBe(200);
  });

  it('sets headers that keep the page out of frames and the token out of referrers', async () => {
    const res = await req('/api/recordings', authed);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('refuses everything when no host is allowed', async () => {
    const locked = createApp({ dbPath: db.dbPath, token: TOKEN });
    try {
      const res = await locked.request(`http://${HOST}/api/recordings`, { headers: { host: HOST, ...authed } });
      expect(res.status).toBe(403);
    } finally {
      locked.close();
    }
  });

  it('serves no file outside the built UI, whatever the path', async () => {
    for (const p of ['/assets/../../package.json', '/assets/%2e%2e/%2e%2e/package.json', '/package.json', '/assets/..%2f..%2fpackage.json', '/../recordings.sqlite']) {
      const res = await req(p, authed);
      expect(res.status, p).toBe(404);
    }
  });
});
