/**
 * The idle probe against the emulator over real HTTP: a probe takes a slot of its company's rate, and
 * one whose slot comes after the company's gate shut (cluster: a lease not renewed in time) asks nothing
 * and is no failure; the next one, the gate open, asks.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { CompanyGate } from '../../src/company/company-gate.js';
import type { CompanyRuns } from '../../src/company/company-runs.js';
import type { Config } from '../../src/config/schema.js';
import { ServiceProbe } from '../../src/daemon/service-probe.js';
import { createLogger } from '../../src/log/logger.js';
import { CompanyRate } from '../../src/rate/company-rate.js';
import { ServiceClient } from '../../src/service/client.js';
import { COMPANY_MAIN, runCompany, seedFor, startTestEmulator } from '../helpers/daemon-harness.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const COMPANY = runCompany(COMPANY_MAIN);

test('a probe whose rate slot comes after the gate shut asks nothing and is no failure; the next, the gate open, asks', async () => {
  const emulator = await startTestEmulator(seedFor([COMPANY_MAIN]));
  cleanups.push(() => emulator.close());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-probe-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 5_000 });
  cleanups.push(() => client.close());
  const logFile = path.join(dir, 'edoc.log');
  const logger = createLogger({ file: logFile, level: 'debug' });
  cleanups.push(() => logger.close());
  let open = true;
  const gate: CompanyGate = { held: () => true, open: () => open, fenced: () => undefined };
  const rate = new CompanyRate({ requestsPerSecond: COMPANY.rate.requestsPerSecond });
  const run = { company: COMPANY, gate, rate };
  const probe = new ServiceProbe({
    client,
    runs: { get: (alias: string) => (alias === 'main' ? run : undefined) } as Pick<
      CompanyRuns,
      'get'
    >,
    config: () => ({ companies: [COMPANY] }) as unknown as Config,
    logger,
    idleMs: 1_500,
  });
  cleanups.push(() => probe.close());
  const e10 = async (): Promise<number> =>
    Object.values((await emulator.client.stats()).requests.E10 ?? {}).reduce((a, b) => a + b, 0);

  rate.holdFor(500); // the first probe (at start) waits inside the rate: it asked the gate before
  probe.start();
  await new Promise((resolve) => setTimeout(resolve, 100));
  open = false; // shut while it waits
  await new Promise((resolve) => setTimeout(resolve, 900));
  expect(await e10()).toBe(0);
  open = true;
  // the next probe comes idleMs after the first began
  for (const end = Date.now() + 10_000; (await e10()) === 0 && Date.now() < end;)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await e10()).toBe(1);
  await probe.close();
  await logger.close();
  const lines = (await readFile(logFile, 'utf8')).split('\n').filter((l) => l !== '');
  expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).not.toContain(
    'service probe failed',
  );
});
