/**
 * The rationing of token comparisons (http/login-guard.ts) over real HTTP on loopback, from many
 * source addresses (127.0.0.2 …, all this machine's on Linux): wrong tokens spend one budget
 * whatever address they come from, and the right token or a live session is never refused because
 * of someone else's wrong tokens, whoever sent them and from where.
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startOperatorServer, type OperatorServer } from '../../src/http/server.js';
import type { Route } from '../../src/http/route.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';

const TOKEN = 'console-token-0123456789abcdef';
const WRONG = 'guess-guess-guess-guess';
/** Rationed comparisons: one every 40 ms once 5 wrong tokens were tried. */
const GUARD = { freeAttempts: 5, spacingMs: 40, maxSpacingMs: 40 };

let dir: string;
let logger: AppLogger;
let server: OperatorServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-guard-'));
  logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), secrets: [TOKEN] });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await logger.close();
  await rm(dir, { recursive: true, force: true });
});

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/secret',
    access: 'token',
    handle: ({ res, principal }) => {
      res.end(`${principal?.via}:${principal?.name}`);
    },
  },
];

async function start(): Promise<string> {
  server = await startOperatorServer({
    listen: '127.0.0.1:0',
    token: TOKEN,
    routes: ROUTES,
    logger,
    failureDelayMs: 10,
    guard: GUARD,
  });
  return server.url;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request from the source address `from` (any 127.x.y.z). */
function callFrom(
  from: string,
  pathname: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const url = new URL(pathname, server!.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress: from,
        agent: false,
        method: body === undefined ? 'GET' : 'POST',
        headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const loginForm = (token: string): Record<string, string> => ({
  'content-type': 'application/x-www-form-urlencoded',
  'content-length': String(`token=${token}`.length),
});

describe('one budget of wrong tokens for the whole listener', () => {
  test('40 source addresses, 2 wrong tokens each: 5 are answered 401, the other 75 wait their turn and get 429', async () => {
    await start();
    const addresses = Array.from({ length: 40 }, (_, i) => `127.0.0.${i + 2}`);
    const started = Date.now();
    const answers = await Promise.all(
      [...addresses, ...addresses].map((from) => callFrom(from, '/secret', bearer(WRONG))),
    );
    const ms = Date.now() - started;
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(75);
    expect(answers.find((a) => a.status === 429)?.headers['retry-after']).toBe('1');
    // 75 comparisons one per 40 ms: at least 74 gaps = 2,960 ms (the first may come at once)
    expect(ms).toBeGreaterThanOrEqual(74 * 40);
  });
});

describe("never refuse the right token or a live session for someone else's wrong tokens", () => {
  test('after 30 wrong tokens from 127.0.0.1 the right Bearer token and the login form from 127.0.0.1 get in', async () => {
    await start();
    for (let i = 0; i < 30; i += 1)
      expect([401, 429]).toContain((await callFrom('127.0.0.1', '/secret', bearer(WRONG))).status);
    const right = await callFrom('127.0.0.1', '/secret', bearer(TOKEN));
    expect(right).toMatchObject({ status: 200, body: 'bearer:api' });
    const login = await callFrom('127.0.0.1', '/login', loginForm(TOKEN), `token=${TOKEN}`);
    expect(login.status).toBe(303);
    expect(String(login.headers['set-cookie'])).toMatch(/^edoc_session=/);
  });

  test('a live session is not held behind another address with 20 wrong tokens waiting, and the right token waits at most a few turns', async () => {
    await start();
    const login = await callFrom('127.0.0.1', '/login', loginForm(TOKEN), `token=${TOKEN}`);
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    for (let i = 0; i < 5; i += 1) await callFrom('127.0.0.9', '/secret', bearer(WRONG));
    // the order of the answers, not the clock: the guard hands out one turn per 40 ms of its own timer,
    // so a stalled machine delays the turns as much as anything else and the order stays
    const answered: string[] = [];
    let firstTurn = (): void => undefined;
    const turned = new Promise<void>((resolve) => (firstTurn = resolve));
    const flood = Promise.all(
      Array.from({ length: 20 }, () =>
        callFrom('127.0.0.9', '/secret', bearer(WRONG)).then((a) => {
          answered.push('flood');
          firstTurn();
          return a;
        }),
      ),
    );
    await turned; // rationing under way: the flood waits its turns
    expect(await callFrom('127.0.0.1', '/secret', { cookie })).toMatchObject({
      status: 200,
      body: 'cookie:console',
    });
    answered.push('session');
    const token = callFrom('127.0.0.1', '/secret', bearer(TOKEN));
    answered.push('token sent');
    expect(await token).toMatchObject({ status: 200, body: 'bearer:api' });
    answered.push('token');
    expect((await flood).every((a) => a.status === 429)).toBe(true);
    const order = answered.join(' ');
    // behind the flood, the session would come after all 20 of its answers; it comes with most still waiting
    expect(answered.indexOf('session'), order).toBeLessThanOrEqual(10);
    // first in line, the right token would wait for all of 127.0.0.9's remaining turns; going round, for one
    // (and those given while its request was on the way): a few, with the flood still waiting after it
    expect(
      answered.indexOf('token') - answered.indexOf('token sent') - 1,
      order,
    ).toBeLessThanOrEqual(5);
    expect(answered.length - answered.indexOf('token') - 1, order).toBeGreaterThanOrEqual(5);
  });
});
