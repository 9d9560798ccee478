/**
 * The operator listener over real HTTP on a free loopback port: the token (none, wrong, right; as
 * Bearer and as the login form's cookie), CSRF on cookie POSTs, login and logout, limits, errors, and that the token never comes back in an answer.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  startOperatorServer,
  type OperatorServer,
  type OperatorServerOptions,
} from '../../src/http/server.js';
import type { Route } from '../../src/http/route.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';

const TOKEN = 'console-token-0123456789abcdef';

let dir: string;
let logger: AppLogger;
let server: OperatorServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-http-'));
  logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), secrets: [TOKEN] });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await logger.close();
  await rm(dir, { recursive: true, force: true });
});

/** What the routes saw, so a test can tell who called and with which form. */
const seen: { principal?: string; form?: string }[] = [];

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/public',
    access: 'public',
    handle: ({ res }) => {
      res.end('public');
    },
  },
  {
    method: 'GET',
    path: '/secret',
    access: 'token',
    handle: ({ res, principal, csrf }) => {
      res.end(`${principal?.via}:${principal?.name}:${csrf}`);
    },
  },
  {
    method: 'POST',
    path: '/secret/act',
    access: 'token',
    handle: ({ res, principal, form }) => {
      seen.push({
        principal: `${principal?.via}:${principal?.name}`,
        form: form.get('what') ?? '',
      });
      res.end('done');
    },
  },
  {
    method: 'GET',
    path: /^\/item\/(?<key>[^/]+)$/,
    access: 'public',
    handle: ({ res, params }) => {
      res.end(`item ${params.key}`);
    },
  },
  {
    method: 'GET',
    path: '/boom',
    access: 'public',
    handle: () => {
      throw new Error(`exploded holding ${TOKEN}`);
    },
  },
];

async function start(options: Partial<OperatorServerOptions> = {}): Promise<OperatorServer> {
  server = await startOperatorServer({
    listen: '127.0.0.1:0',
    token: TOKEN,
    routes: ROUTES,
    logger,
    failureDelayMs: 10,
    ...options,
  });
  return server;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

type Init = Omit<RequestInit, 'headers'> & { headers?: Record<string, string> };

async function call(pathname: string, init: Init = {}): Promise<Answer> {
  const response = await fetch(`${server!.url}${pathname}`, { redirect: 'manual', ...init });
  const text = await response.text();
  expect(text).not.toContain(TOKEN);
  for (const value of response.headers.values()) expect(value).not.toContain(TOKEN);
  return { status: response.status, headers: response.headers, text };
}

const form = (fields: Record<string, string>): Init & { headers: Record<string, string> } => ({
  method: 'POST',
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

/** Logs in through the form; the session cookie and the CSRF token the console page would embed. */
async function login(): Promise<{ cookie: string; csrf: string }> {
  const answer = await call('/login', form({ token: TOKEN, next: '/secret' }));
  expect(answer.status).toBe(303);
  expect(answer.headers.get('location')).toBe('/secret');
  const setCookie = answer.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/^edoc_session=[\w-]{20,}; HttpOnly; SameSite=Strict; Path=\/$/);
  const cookie = setCookie.split(';')[0];
  const page = await call('/secret', { headers: { cookie } });
  expect(page.status).toBe(200);
  const [via, name, csrf] = page.text.split(':');
  expect([via, name]).toEqual(['cookie', 'console']);
  expect(csrf.length).toBeGreaterThan(20);
  return { cookie, csrf };
}

describe('public routes', () => {
  test('answer without a token, with the security headers and a request id', async () => {
    await start();
    const answer = await call('/public');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('public');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f]{12}$/);
  });

  test('a RegExp path gives its decoded named groups', async () => {
    await start();
    expect((await call('/item/a%20b')).text).toBe('item a b');
    expect((await call('/item/%E0%A4%A')).status).toBe(400);
  });

  test('404 and 405 as JSON, or a small page for a browser', async () => {
    await start();
    const missing = await call('/nothing');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ error: 'not-found' });
    const page = await call('/nothing', { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    const wrongMethod = await call('/public', { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  test('a route that throws gives a 500 with a request id and one log line, and the listener keeps serving', async () => {
    await start();
    const answer = await call('/boom');
    expect(answer.status).toBe(500);
    const body = JSON.parse(answer.text) as { requestId: string; message: string };
    expect(body.requestId).toBe(answer.headers.get('x-request-id'));
    expect(answer.text).not.toContain('exploded');
    expect((await call('/public')).status).toBe(200);
    await new Promise<void>((resolve) => {
      logger.flush(() => resolve());
    });
    const lines = (await readFile(path.join(dir, 'edoc-bridge.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const failed = lines.filter((l) => l.msg === 'operator request failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ requestId: body.requestId, path: '/boom' });
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  test('a page of a loopback listener asked for under another host name is refused (DNS rebinding)', async () => {
    await start();
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${server!.url}/public`,
        { headers: { host: 'evil.example:9464' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
  });
});

describe('token routes', () => {
  test('no token: 401 JSON for a program, 303 to /login with next for a browser', async () => {
    await start();
    const program = await call('/secret');
    expect(program.status).toBe(401);
    expect(program.headers.get('www-authenticate')).toContain('Bearer');
    expect(program.headers.get('cache-control')).toBe('no-store');
    const browser = await call('/secret?x=1', {
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toBe('/login?next=%2Fsecret%3Fx%3D1');
  });

  test('a wrong Bearer token is 401, the right one passes and needs no CSRF token to POST', async () => {
    await start();
    expect(
      (await call('/secret', { headers: { authorization: 'Bearer wrong-token-wrong-token' } }))
        .status,
    ).toBe(401);
    expect((await call('/secret', { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(
      401,
    );
    const right = await call('/secret', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(right.text).toBe('bearer:api:');
    seen.length = 0;
    const post = await call('/secret/act', {
      ...form({ what: 'x' }),
      headers: { ...form({}).headers, authorization: `Bearer ${TOKEN}` },
    });
    expect(post.status).toBe(200);
    expect(seen).toEqual([{ principal: 'bearer:api', form: 'x' }]);
  });

  test('login form: GET shows a form keeping a relative next, never another host', async () => {
    await start();
    const page = await call('/login?next=%2Fsecret%3Fa%3D1', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="next" value="/secret?a=1"');
    expect(page.headers.get('cache-control')).toBe('no-store');
    for (const evil of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      '/%0d%0aSet-Cookie:x',
    ]) {
      const answer = await call(`/login?next=${encodeURIComponent(evil)}`);
      expect(answer.text).not.toContain('evil.example');
      expect(answer.text).not.toContain('javascript:');
    }
    const wrong = await call(
      '/login',
      form({ token: 'not-the-token-at-all', next: '//evil.example' }),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(wrong.text).toContain('name="next" value="/"');
  });

  test('login never redirects to another host, even through dot segments that resolve to //host', async () => {
    await start();
    for (const evil of [
      '/.//evil.example',
      '/..//evil.example/x',
      '/a/..//evil.example',
      '/%2e//evil.example',
      '/%2e%2e//evil.example',
    ]) {
      const shown = await call(`/login?next=${encodeURIComponent(evil)}`, {
        headers: { accept: 'text/html' },
      });
      expect(shown.text).not.toMatch(/value="\/\//);
      const answer = await call('/login', form({ token: TOKEN, next: evil }));
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).not.toMatch(/^\/\//);
      expect(answer.headers.get('location')).not.toMatch(/^[a-z]+:/i);
    }
  });

  test("login sets the session cookie; a cookie POST needs the session's CSRF token; logout ends the session", async () => {
    await start();
    const { cookie, csrf } = await login();
    const headers = { ...form({}).headers, cookie };
    seen.length = 0;
    expect((await call('/secret/act', { ...form({ what: 'a' }), headers })).status).toBe(403);
    expect(
      (await call('/secret/act', { ...form({ what: 'b', _csrf: 'wrong' }), headers })).status,
    ).toBe(403);
    expect(
      (await call('/secret/act', { ...form({ what: 'c', _csrf: csrf }), headers })).status,
    ).toBe(200);
    expect(
      (
        await call('/secret/act', {
          ...form({ what: 'd' }),
          headers: { ...headers, 'x-csrf-token': csrf },
        })
      ).status,
    ).toBe(200);
    expect(seen).toEqual([
      { principal: 'cookie:console', form: 'c' },
      { principal: 'cookie:console', form: 'd' },
    ]);

    expect((await call('/logout', { ...form({}), headers })).status).toBe(403);
    const out = await call('/logout', { ...form({ _csrf: csrf }), headers });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await call('/secret', { headers: { cookie } })).status).toBe(401);
  });

  test('the cookie is Secure when a proxy says the browser used https', async () => {
    await start();
    const answer = await call('/login', {
      ...form({ token: TOKEN }),
      headers: { ...form({}).headers, 'x-forwarded-proto': 'https' },
    });
    expect(answer.headers.get('set-cookie')).toContain('; Secure');
  });

  test('an idle session ends; a new token (SIGHUP) ends every session', async () => {
    await start({ sessionIdleMs: 200 });
    const first = await login();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await call('/secret', { headers: { cookie: first.cookie } })).status).toBe(401);
    const second = await login();
    server!.setToken('another-token-0123456789');
    expect((await call('/secret', { headers: { cookie: second.cookie } })).status).toBe(401);
    expect(
      (await call('/secret', { headers: { authorization: 'Bearer another-token-0123456789' } }))
        .status,
    ).toBe(200);
  });

  test('a form body over the limit is 413; a JSON body is 415', async () => {
    await start();
    const auth = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    expect(
      (
        await call('/secret/act', {
          method: 'POST',
          body: `what=${'x'.repeat(100_000)}`,
          headers: auth,
        })
      ).status,
    ).toBe(413);
    expect(
      (
        await call('/secret/act', {
          method: 'POST',
          body: '{"what":1}',
          headers: { ...auth, 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(415);
  });
});

describe('without a token (loopback only)', () => {
  test('token routes are open; a browser gets a session so its POSTs carry a CSRF token; other POSTs are refused', async () => {
    await start({ token: undefined });
    expect((await call('/secret')).text).toBe('bearer:local:');
    const page = await call('/secret', { headers: { accept: 'text/html' } });
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0];
    const csrf = page.text.split(':')[2];
    expect(cookie).toMatch(/^edoc_session=/);
    expect((await call('/secret/act', form({ what: 'x' }))).status).toBe(403);
    expect(
      (
        await call('/secret/act', {
          ...form({ what: 'x', _csrf: csrf }),
          headers: { ...form({}).headers, cookie },
        })
      ).status,
    ).toBe(200);
    expect((await call('/login?next=/secret')).headers.get('location')).toBe('/secret');
  });

  test('a non-loopback listen without a token is refused', async () => {
    await expect(start({ token: undefined, listen: '0.0.0.0:0' })).rejects.toThrow(/http\.token/);
  });
});

describe('listening', () => {
  test('IPv6 loopback [::1] is accepted', async () => {
    try {
      await start({ listen: '[::1]:0' });
    } catch (err) {
      if (/no such address/.test(String(err))) return; // a machine without IPv6
      throw err;
    }
    expect(server!.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await call('/public')).status).toBe(200);
  });

  test('a port in use is one clear error naming http.listen', async () => {
    const first = await start();
    const port = new URL(first.url).port;
    await expect(
      startOperatorServer({ listen: `127.0.0.1:${port}`, token: TOKEN, routes: ROUTES, logger }),
    ).rejects.toMatchObject({
      code: 'EDOC_HTTP_LISTEN',
      message: expect.stringContaining('http.listen') as unknown,
    });
  });

  test('close() is idempotent', async () => {
    const s = await start();
    await Promise.all([s.close(), s.close()]);
    await s.close();
  });
});

describe('hostile peers', () => {
  async function raw(text: string, waitMs = 5_000): Promise<string> {
    const { connect } = await import('node:net');
    const { port } = new URL(server!.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      let got = '';
      socket.on('data', (chunk) => {
        got += chunk.toString();
      });
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
      setTimeout(() => {
        socket.destroy();
        resolve(got);
      }, waitMs).unref();
    });
  }

  test('a request target that is not a path (//host/x, an absolute URL) is 400', async () => {
    await start();
    expect(
      await raw(
        'GET //evil.example/secret HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      ),
    ).toMatch(/^HTTP\/1\.1 400/);
    expect(
      await raw(
        'GET http://evil.example/public HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      ),
    ).toMatch(/^HTTP\/1\.1 400/);
  });

  test('a client that never finishes its headers is cut off (headers timeout), and the listener keeps serving', async () => {
    await start({ headersTimeoutMs: 1_000 });
    const started = Date.now();
    const answer = await raw('GET /public HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 20_000);
    expect(Date.now() - started).toBeLessThan(19_000);
    expect(
      answer === '' || answer.startsWith('HTTP/1.1 408') || answer.startsWith('HTTP/1.1 400'),
    ).toBe(true);
    expect((await call('/public')).status).toBe(200);
  }, 30_000);

  test('HEAD of a GET route answers its headers', async () => {
    await start();
    const answer = await call('/public', { method: 'HEAD' });
    expect(answer.status).toBe(200);
  });
});
