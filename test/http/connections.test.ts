/**
 * Connections to the operator listener when they run short (http/connection-gate.ts), with real
 * sockets on loopback from many source addresses (127.0.0.x): idle connections, reopened as they
 * are closed, never keep a health probe out; one address holds at most its share; a listener full
 * of requests still being received answers probes from a reserve, and nothing else there.
 * Every socket a test opens is destroyed at its end; the reopening loop stops on a flag and a cap.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Route } from '../../src/http/route.js';
import {
  startOperatorServer,
  type OperatorServer,
  type OperatorServerOptions,
} from '../../src/http/server.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';

let dir: string;
let logger: AppLogger;
let server: OperatorServer | undefined;
const sockets = new Set<Socket>();

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-conn-'));
  logger = createLogger({ file: path.join(dir, 'edoc-bridge.log') });
});

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await server?.close();
  server = undefined;
  await logger.close();
  await rm(dir, { recursive: true, force: true });
});

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/healthz',
    access: 'public',
    probe: true,
    handle: ({ res }) => {
      res.end('{"status":"ok"}\n');
    },
  },
  {
    method: 'GET',
    path: '/public',
    access: 'public',
    handle: ({ res }) => {
      res.end('public');
    },
  },
];

async function start(options: Partial<OperatorServerOptions> = {}): Promise<number> {
  server = await startOperatorServer({ listen: '127.0.0.1:0', routes: ROUTES, logger, ...options });
  return Number(new URL(server.url).port);
}

/** A connection from `from` that sends `first` (nothing: idle) and then waits; resolves once connected. */
function open(port: number, from: string, first = ''): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => {
      if (first !== '') socket.write(first);
      resolve(socket);
    });
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
}

/** A GET from `from` on a fresh connection; status 0 when the connection was closed unanswered. */
function get(
  port: number,
  from: string,
  pathname: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: pathname, localAddress: from, agent: false, timeout: 5_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('idle connections never keep a probe out', () => {
  test('300 idle connections (100 from 127.0.0.1, 200 from 20 other addresses), reopened as they close: 20 /healthz probes all answered', async ({
    annotate,
  }) => {
    const port = await start();
    const attackers = ['127.0.0.1', ...Array.from({ length: 20 }, (_, i) => `127.0.0.${i + 2}`)];
    const from = (i: number): string => (i < 100 ? attackers[0] : attackers[1 + (i % 20)]);
    await Promise.all(Array.from({ length: 300 }, (_, i) => open(port, from(i))));
    // the attacker reopens each connection the listener closes; stops on the flag, or after 3,000 opens
    let running = true;
    let opened = 300;
    const reopen = (async () => {
      while (running && opened < 3_000) {
        const missing = 300 - sockets.size;
        await Promise.all(
          Array.from({ length: Math.max(0, missing) }, (_, i) =>
            open(port, from((opened + i) % 300)),
          ),
        );
        opened += Math.max(0, missing);
        await sleep(20);
      }
    })();
    try {
      const probes: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        probes.push((await get(port, '127.0.0.1', '/healthz')).status);
        await sleep(25);
      }
      expect(probes).toEqual(Array.from({ length: 20 }, () => 200));
    } finally {
      running = false;
      await reopen;
    }
    // what the listener kept: one address at most 32 places (127.0.0.1's others were closed), all of them at most 256
    await sleep(300);
    const kept = [...sockets].filter((s) => !s.destroyed);
    expect(kept.filter((s) => s.localAddress === '127.0.0.1').length).toBeLessThanOrEqual(32);
    expect(kept.length).toBeLessThanOrEqual(256);
    await annotate(`${opened} connections opened in all; ${kept.length} kept open by the listener`);
  }, 60_000);

  test('one address holds at most perAddress connections; its next one still gets in by closing its oldest idle one', async () => {
    const port = await start({ connections: { perAddress: 8 } });
    const idle = await Promise.all(Array.from({ length: 8 }, () => open(port, '127.0.0.7')));
    const closed: Socket[] = [];
    for (const socket of idle) socket.once('close', () => closed.push(socket));
    expect(await get(port, '127.0.0.7', '/public')).toEqual({ status: 200, body: 'public' });
    await sleep(100);
    expect(closed).toEqual([idle[0]]);
    // another address is not touched by 127.0.0.7's share
    expect((await get(port, '127.0.0.8', '/public')).status).toBe(200);
  });
});

describe('a reserve for probes when every place holds a request being received', () => {
  test('10 places full of slow bodies: /healthz is answered from the reserve, /public there gets 503, past the reserve nothing', async () => {
    const port = await start({ connections: { maxConnections: 10, perAddress: 4, reserve: 2 } });
    const slowBody =
      'POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken=';
    const addresses = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
    await Promise.all(Array.from({ length: 10 }, (_, i) => open(port, addresses[i % 3], slowBody)));
    await sleep(200); // the listener has read their headers: each is a request in progress, not idle
    expect(await get(port, '127.0.0.1', '/healthz')).toEqual({
      status: 200,
      body: '{"status":"ok"}\n',
    });
    const other = await get(port, '127.0.0.5', '/public');
    expect(other.status).toBe(503);
    expect(other.body).toContain('only /healthz and /readyz');
    // the reserve held by two idle connections that never send: a probe still gets in (the idle one goes)
    await open(port, '127.0.0.6');
    await open(port, '127.0.0.6');
    expect((await get(port, '127.0.0.1', '/healthz')).status).toBe(200);
  });
});
