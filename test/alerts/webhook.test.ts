/**
 * The alert webhook over real HTTP (a node:http receiver on 127.0.0.1): one JSON message per alert,
 * delivered once; a receiver that is down then up gets it once, retried with backoff; a full queue drops
 * the oldest and says how many; the URL's token travels as a header and never reaches the log.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, test } from 'vitest';
import { Alerter } from '../../src/alerts/alerter.js';
import { WebhookDelivery } from '../../src/alerts/webhook.js';
import { redactedWebhook, webhookSecrets } from '../../src/config/webhook-url.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { SecretScrubber } from '../../src/log/secrets.js';
import { eventually } from '../helpers/daemon-harness.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  url: (r: WebhookReceiver) => string,
  options: { queue?: number; receiver?: WebhookReceiver; timeoutMs?: number } = {},
) {
  const receiver = options.receiver ?? (await WebhookReceiver.start());
  cleanups.push(() => receiver.close());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-webhook-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const target = url(receiver);
  const logFile = path.join(dir, 'edoc.log');
  const logger: AppLogger = createLogger({
    file: logFile,
    level: 'debug',
    secrets: [...webhookSecrets(target), 'api-key-secret-1001'],
  });
  cleanups.push(() => logger.close());
  const scrubber = new SecretScrubber([...webhookSecrets(target), 'api-key-secret-1001']);
  const webhook = new WebhookDelivery({
    url: target,
    shownAs: redactedWebhook(target),
    logger,
    scrub: (t) => scrubber.scrub(t),
    queue: options.queue ?? 50,
    timeoutMs: options.timeoutMs ?? 2_000,
    baseDelayMs: 20,
    maxDelayMs: 100,
  });
  cleanups.push(() => webhook.close());
  const alerter = new Alerter({ logger, deliver: (r) => webhook.send(r), stateDir: dir });
  // its last alerts.json written before the folder is removed (a write in flight made rm fail ENOTEMPTY)
  cleanups.push(() => alerter.flush());
  return { receiver, webhook, alerter, logFile, dir, target };
}

/** A full garbage collection (V8's gc(), exposed at run time: the test process has no --expose-gc). */
const collectGarbage = ((): (() => void) => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** A receiver on loopback that accepts every connection, reads the request and never answers; counts the connections. */
async function silentReceiver(): Promise<{
  url: string;
  connections: number[];
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const connections: number[] = [];
  const server: Server = createServer((socket) => {
    connections.push(Date.now());
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('alert webhook', () => {
  test('one message per episode, in the AlertRecord shape with a version; the token travels as a header, never in a log line', async () => {
    const { receiver, alerter, logFile, dir } = await setup(
      (r) => `http://hookuser:s3cr3t-hook-pass@127.0.0.1:${r.port}/hook?token=tok-0123456789abcdef`,
    );
    expect(
      alerter.raise('range-low:main:FE', {
        kind: 'range-low',
        severity: 'warning',
        company: 'main',
        message: 'only 12 numbers left',
        details: { prefix: 'FE', numbersLeft: 12 },
      }),
    ).toBe(true);
    // the condition is seen again while the episode is open: nothing more
    expect(
      alerter.raise('range-low:main:FE', {
        kind: 'range-low',
        severity: 'warning',
        company: 'main',
        message: 'only 11 numbers left',
      }),
    ).toBe(false);
    alerter.end('range-low:main:FE', { kind: 'range-low', company: 'main', message: 'fine again' });
    await eventually(() => (receiver.messages.length === 2 ? true : undefined), 'two messages');
    const [opened, ended] = receiver.messages;
    expect(opened.body).toMatchObject({
      version: 1,
      source: 'edoc-bridge',
      kind: 'range-low',
      severity: 'warning',
      company: 'main',
      message: 'only 12 numbers left',
      details: { prefix: 'FE', numbersLeft: 12 },
    });
    expect(typeof opened.body.id).toBe('string');
    expect(typeof opened.body.at).toBe('number');
    expect(ended.body).toMatchObject({ id: opened.body.id, kind: 'range-low', severity: 'info' });
    expect(opened.headers.authorization).toBe(
      `Basic ${Buffer.from('hookuser:s3cr3t-hook-pass').toString('base64')}`,
    );
    expect(opened.url).toBe('/hook?token=tok-0123456789abcdef');
    expect(opened.headers['content-type']).toBe('application/json');
    // survives a restart for the console
    await alerter.flush();
    expect(JSON.parse(await readFile(path.join(dir, 'alerts.json'), 'utf8')).alerts).toHaveLength(
      2,
    );
    expect(
      new Alerter({ logger: createLogger({ file: path.join(dir, 'b.log') }), stateDir: dir })
        .recent(10)
        .map((a) => a.severity),
    ).toEqual(['info', 'warning']);
    const log = await readFile(logFile, 'utf8');
    expect(log).toContain('only 12 numbers left');
    expect(log).not.toContain('s3cr3t-hook-pass');
    expect(log).not.toContain('tok-0123456789abcdef');
  });

  test('a receiver that is down, then up: the alert is retried with backoff and delivered exactly once', async () => {
    const receiver = await WebhookReceiver.start();
    const port = receiver.port;
    await receiver.close();
    const { webhook, alerter, logFile } = await setup((r) => r.url('/hook'), { receiver });
    alerter.raise('service', {
      kind: 'service-down',
      severity: 'error',
      message: 'the service has not answered for 60 s',
    });
    await eventually(
      async () =>
        (await readFile(logFile, 'utf8')).includes('EDOC_ALERT_UNDELIVERED') ? true : undefined,
      'the failure logged',
    );
    expect(webhook.pending).toBe(1);
    await receiver.listen(port);
    await eventually(
      () => (receiver.messages.length > 0 ? true : undefined),
      'delivered once the receiver is back',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.of('service-down')).toHaveLength(1);
    expect(webhook.pending).toBe(0);
    expect(await readFile(logFile, 'utf8')).toContain('the receiver takes alerts again');
  });

  test('a receiver answering 503 is retried; one answering 400 is not (the others are not held back)', async () => {
    const { receiver, alerter } = await setup((r) => r.url());
    receiver.status = 503;
    alerter.raise('a', {
      kind: 'rejection-burst',
      severity: 'error',
      company: 'main',
      message: 'first',
    });
    await eventually(() => (receiver.refusedCount >= 2 ? true : undefined), 'retried');
    receiver.status = 200;
    await eventually(
      () => (receiver.messages.length === 1 ? true : undefined),
      'delivered after the 503s',
    );
    receiver.status = 400;
    const before = receiver.refusedCount;
    alerter.raise('b', {
      kind: 'rejection-burst',
      severity: 'error',
      company: 'other',
      message: 'refused one',
    });
    await eventually(() => (receiver.refusedCount > before ? true : undefined), 'refused');
    receiver.status = 200;
    alerter.raise('c', {
      kind: 'company-paused',
      severity: 'error',
      company: 'main',
      message: 'next one',
    });
    await eventually(
      () => (receiver.messages.length === 2 ? true : undefined),
      'the next one delivered',
    );
    expect(receiver.messages.map((m) => m.body.message)).toEqual(['first', 'next one']);
  });

  test('while the receiver stays down, the queue keeps the newest and the next message says how many were dropped', async () => {
    const receiver = await WebhookReceiver.start();
    const port = receiver.port;
    await receiver.close();
    const { alerter, logFile } = await setup((r) => r.url(), { receiver, queue: 3 });
    for (let i = 0; i < 10; i++)
      alerter.raise(`e${i}`, {
        kind: 'document-in-doubt',
        severity: 'error',
        company: 'main',
        message: `alert ${i}`,
      });
    await eventually(
      async () =>
        (await readFile(logFile, 'utf8')).includes('EDOC_ALERT_DROPPED') ? true : undefined,
      'drops logged',
    );
    await receiver.listen(port);
    await eventually(
      () => (receiver.messages.length === 3 ? true : undefined),
      'the kept ones delivered',
    );
    // the first one in the queue when it went down may have been in flight: the newest three arrive
    expect(receiver.messages.map((m) => m.body.message)).toEqual(['alert 7', 'alert 8', 'alert 9']);
    expect(receiver.messages[0].body.dropped).toBe(7);
    expect(receiver.messages[1].body.dropped).toBeUndefined();
  });

  test("a key that slipped into an alert's text is scrubbed from the message", async () => {
    const { receiver, alerter } = await setup((r) => r.url());
    alerter.raise('x', {
      kind: 'company-paused',
      severity: 'error',
      company: 'main',
      message: 'refused api-key-secret-1001 of main',
      details: { reason: 'key api-key-secret-1001' },
    });
    await eventually(() => (receiver.messages.length === 1 ? true : undefined), 'delivered');
    expect(receiver.messages[0].text).not.toContain('api-key-secret-1001');
    expect(receiver.messages[0].body.message).toBe('refused [redacted] of main');
  });

  test('a receiver that accepts and never answers: every attempt ends at timeoutMs, even with garbage collections meanwhile', async () => {
    const silent = await silentReceiver();
    cleanups.push(() => silent.close());
    const { webhook, alerter, logFile } = await setup(() => silent.url, { timeoutMs: 300 });
    alerter.raise('s', {
      kind: 'service-down',
      severity: 'error',
      message: 'the service has not answered for 60 s',
    });
    // full collections all along: a timeout held only weakly (AbortSignal.timeout inside AbortSignal.any on
    // Node 20) is freed by one before it fires, and the attempt then waits for undici's 300 s headers timeout.
    // Each attempt takes 300 ms of timeout + a backoff of 20-100 ms on an idle machine; the collections go on
    // until 6 attempts came, however slow the machine: a stalled attempt never gives the next one
    const started = Date.now();
    while (silent.connections.length < 6 && Date.now() - started < 20_000) {
      collectGarbage();
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(silent.connections.length).toBeGreaterThanOrEqual(6);
    // no gap near the 300 s a stalled attempt waits (an idle machine: ~400 ms; frozen often: a few s)
    const gaps = silent.connections.slice(1).map((t, i) => t - silent.connections[i]);
    expect(Math.max(...gaps)).toBeLessThan(10_000);
    // the attempts end at the webhook's own timer, as the log says
    expect(await readFile(logFile, 'utf8')).toContain('no answer within 300 ms');
    expect(webhook.pending).toBe(1);
    expect(await readFile(logFile, 'utf8')).toContain('EDOC_ALERT_UNDELIVERED');
  });

  test('a receiver answering a redirect (3xx) is a refusal: one error line, not retried, the next alert goes', async () => {
    const { receiver, alerter, logFile } = await setup((r) => r.url());
    receiver.status = 302;
    alerter.raise('r', {
      kind: 'rejection-burst',
      severity: 'error',
      company: 'main',
      message: 'redirected one',
    });
    await eventually(
      async () =>
        (await readFile(logFile, 'utf8')).includes('refused an alert') ? true : undefined,
      'refusal logged',
    );
    await new Promise((r) => setTimeout(r, 400)); // backoff 20-100 ms: a retry would have come by now
    expect(receiver.refusedCount).toBe(1);
    const lines = (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter((l) => l.includes('refused an alert'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ code: 'EDOC_ALERT_UNDELIVERED', httpStatus: 302 });
    receiver.status = 200;
    alerter.raise('n', {
      kind: 'company-paused',
      severity: 'error',
      company: 'main',
      message: 'next one',
    });
    await eventually(
      () => (receiver.messages.length === 1 ? true : undefined),
      'the next one delivered',
    );
    expect(receiver.messages[0].body.message).toBe('next one');
  });
});
