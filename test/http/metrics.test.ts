/**
 * The metrics in-process over real HTTP: a real ledger in a temp folder, the real service client
 * against the emulator, the numbering ranges as the range watch would give them. Labels carry the
 * company alias, never its id or key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createOperatorMetrics, type OperatorMetrics } from '../../src/http/metrics.js';
import { startOperatorServer, type OperatorServer } from '../../src/http/server.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import type { RangeState } from '../../src/ranges/range-state.js';
import { ServiceClient } from '../../src/service/client.js';
import { COMPANY_MAIN, startTestEmulator, type TestEmulator } from '../helpers/daemon-harness.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const cleanups: (() => Promise<unknown> | unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Rig {
  url: string;
  ledger: Ledger;
  client: ServiceClient;
  emulator: TestEmulator;
  metrics: OperatorMetrics;
}

async function rig(ranges?: () => readonly RangeState[]): Promise<Rig> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-metrics-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const logger: AppLogger = createLogger({ file: path.join(dir, 'edoc-bridge.log') });
  cleanups.push(() => logger.close());
  const ledger = Ledger.open(path.join(dir, 'state'));
  cleanups.push(() => ledger.close());
  const emulator = await startTestEmulator([COMPANY_MAIN]);
  cleanups.push(() => emulator.close());
  const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 2_000 });
  cleanups.push(() => client.close());
  const metrics = createOperatorMetrics({
    counts: () => ledger.operatorCounts(),
    companies: () => [{ alias: COMPANY_MAIN.alias, id: COMPANY_MAIN.id }],
    observe: (observer) => client.observe(observer),
    ...(ranges === undefined ? {} : { ranges }),
  });
  cleanups.push(() => metrics.close());
  const server: OperatorServer = await startOperatorServer({
    listen: '127.0.0.1:0',
    token: TOKEN,
    routes: [metrics.route],
    logger,
  });
  cleanups.push(() => server.close());
  return { url: server.url, ledger, client, emulator, metrics };
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  const text = await response.text();
  for (const secret of [TOKEN, COMPANY_MAIN.apiKey]) expect(text).not.toContain(secret);
  return text;
}

test('requests are counted by company alias, endpoint and status (none when no answer came), with their durations', async () => {
  const { url, client, emulator } = await rig();
  await client.listRanges(COMPANY_MAIN, { nit: COMPANY_MAIN.nit });
  await client.listRanges(
    { ...COMPANY_MAIN, apiKey: 'wrong-key-wrong-key' },
    { nit: COMPANY_MAIN.nit },
  );
  await emulator.close();
  await client.listRanges(COMPANY_MAIN, { nit: COMPANY_MAIN.nit });
  const text = await scrape(url);
  expect(text).toContain('edoc_requests_total{company="main",endpoint="E10",code="200"} 1');
  expect(text).toContain('edoc_requests_total{company="main",endpoint="E10",code="403"} 1'); // a wrong key, for E10
  expect(text).toContain('edoc_requests_total{company="main",endpoint="E10",code="none"} 1');
  expect(text).toContain('edoc_request_duration_seconds_count{company="main",endpoint="E10"} 3');
  expect(text).not.toContain(`company="${COMPANY_MAIN.id}"`);
});

test('received documents and files come from the ledger; the range gauges from the range watch', async () => {
  const ranges: RangeState[] = [
    {
      company: 'main',
      prefix: 'SETP',
      documentType: 'Invoice',
      from: 1,
      to: 1_000,
      validUntil: '2027-01-31',
      lastUsed: 900,
      numbersLeft: 100,
      daysLeft: 42,
      readAt: Date.now(),
    },
  ];
  const { url, ledger } = await rig(() => ranges);
  for (const id of ['a', 'b', 'c'])
    await ledger.recordReceived({ company: 'main', documentId: id, files: [], at: Date.now() });
  const text = await scrape(url);
  expect(text).toContain('edoc_received_documents_total{company="main"} 3');
  expect(text).toContain('# TYPE edoc_received_documents_total counter');
  expect(text).toContain('edoc_range_numbers_left{company="main",prefix="SETP"} 100');
  expect(text).toContain('edoc_range_days_left{company="main",prefix="SETP"} 42');
  expect(text).toContain('edoc_queue_depth{company="main"} 0');
  expect(text).toContain('edoc_in_doubt_documents{company="main"} 0');
});

test('without the range watch the range gauges have no samples; without the token /metrics is 401', async () => {
  const { url } = await rig();
  const text = await scrape(url);
  expect(text).toContain('# TYPE edoc_range_numbers_left gauge');
  expect(text).not.toMatch(/^edoc_range_numbers_left\{/m);
  expect((await fetch(`${url}/metrics`)).status).toBe(401);
});
