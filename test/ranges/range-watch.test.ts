/**
 * The numbering-range watch against the emulator over real HTTP and a real ledger: numbers and days
 * left per range from E10 and the ledger's numbers used; a number outside every active range of its
 * prefix refused only after one re-read (one E10 call for many documents); a range registered (E11)
 * after the first read found by that re-read; E10 failing refuses nothing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import { addDays, colombiaToday } from '../../src/policy/dates.js';
import { RangeWatch } from '../../src/ranges/range-watch.js';
import { OPEN_GATE, type CompanyGate } from '../../src/company/company-gate.js';
import { CompanyPause } from '../../src/rate/company-pause.js';
import { CompanyRate } from '../../src/rate/company-rate.js';
import type { RangeRuns } from '../../src/ranges/range-watch.js';
import { ServiceClient } from '../../src/service/client.js';
import {
  COMPANY_MAIN,
  runCompany,
  seedFor,
  startTestEmulator,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { docs, fileInput } from '../ledger/helpers.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const COMPANY = runCompany(COMPANY_MAIN);

const TODAY = colombiaToday();

/** One company run here, its gate (open unless given), with its own rate (as CompanyRuns gives the watch). */
function runsOf(
  company: typeof COMPANY,
  gate: CompanyGate = OPEN_GATE,
  rate = new CompanyRate({ requestsPerSecond: company.rate.requestsPerSecond }),
): RangeRuns {
  const run = { company, gate, rate, pause: new CompanyPause() };
  return { get: (alias) => (alias === company.alias ? run : undefined), list: () => [run] };
}

async function setup(run: { gate?: CompanyGate; rate?: CompanyRate } = {}): Promise<{
  emulator: TestEmulator;
  ledger: Ledger;
  watch: RangeWatch;
  dir: string;
  e10(): Promise<number>;
}> {
  const seed = seedFor([COMPANY_MAIN]);
  (seed.companies as { ranges: Record<string, unknown>[] }[])[0].ranges.push({
    DocumentType: 'Invoice',
    Prefix: 'FE',
    ResolutionNumber: '18764000001',
    ResolutionDate: '2026-01-01',
    TechnicalKey: null,
    FromNumber: 1,
    ToNumber: 100,
    ValidFrom: '2026-01-01T00:00:00',
    ValidTo: `${addDays(TODAY, 10)}T23:59:59`,
    Active: true,
  });
  const emulator = await startTestEmulator(seed);
  cleanups.push(() => emulator.close());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-ranges-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const ledger = Ledger.open(dir);
  cleanups.push(() => ledger.close());
  const { fileId } = await ledger.recordFile(fileInput());
  // FE 40 and FE 7 used; FE 90 refused locally (invalid: never sent, no number used); FE 150 outside the range
  await ledger.insertDocuments(
    fileId,
    docs(4, (i) => ({
      number: ['FE/40', 'FE/7', 'FE/90', 'FE/150'][i],
      ...(i === 2 ? { problems: [{ code: 'EDOC_VALIDATE_TOTALS', message: 'x' }] } : {}),
    })),
  );
  const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 5_000 });
  cleanups.push(() => client.close());
  const logger = createLogger({ file: path.join(dir, 'edoc.log'), level: 'debug' });
  cleanups.push(() => logger.close());
  const watch = new RangeWatch({
    runs: runsOf(COMPANY, run.gate, run.rate),
    client,
    logger,
    stateDir: dir,
    highestUsed: (company, kinds, prefix, from, to) =>
      ledger.highestNumberUsed(company, kinds, prefix, from, to),
    refuse: () => true,
    recheckMs: 60_000,
  });
  cleanups.push(() => watch.close());
  const e10 = async () =>
    Object.values((await emulator.client.stats()).requests.E10 ?? {}).reduce((a, b) => a + b, 0);
  return { emulator, ledger, watch, dir, e10 };
}

describe('RangeWatch', () => {
  test('numbers and days left per range, from E10 and the highest number the ledger used in it; stored for status', async () => {
    const { watch, dir } = await setup();
    await watch.readAll();
    const fe = watch.snapshot().find((r) => r.prefix === 'FE');
    expect(fe).toMatchObject({
      company: 'main',
      from: 1,
      to: 100,
      lastUsed: 40,
      numbersLeft: 60,
      daysLeft: 10,
      validUntil: addDays(TODAY, 10),
      documentType: '18',
    });
    const setp = watch.snapshot().find((r) => r.prefix === 'SETP');
    expect(setp).toMatchObject({ from: 990_000_000, to: 995_000_000, numbersLeft: 5_000_001 });
    expect(setp?.lastUsed).toBeUndefined();
    expect(
      watch
        .snapshot()
        .map((r) => r.prefix)
        .sort(),
    ).toEqual(['DS', 'FE', 'NC', 'ND', 'NDS', 'POS', 'SETP']);
    await watch.close();
    const stored = JSON.parse(await readFile(path.join(dir, 'ranges.json'), 'utf8')) as {
      ranges: { prefix: string; numbersLeft: number }[];
    };
    expect(stored.ranges.find((r) => r.prefix === 'FE')?.numbersLeft).toBe(60);
  });

  test('a number outside every range of its prefix is refused after one re-read; many such numbers cost one E10 call', async () => {
    const { watch, e10 } = await setup();
    await watch.readAll();
    expect(await e10()).toBe(1);
    expect(watch.checkNumber('main', 'invoice', { prefix: 'FE', number: '55' })).toBeUndefined(); // inside: answered at once
    const refused = await watch.checkNumber('main', 'invoice', { prefix: 'FE', number: '150' });
    expect(refused).toMatchObject({ code: 'EDOC_VALIDATE_OUT_OF_RANGE' });
    expect(refused?.message).toContain('FE150');
    expect(refused?.message).toContain('FE 1–100 (resolution 18764000001');
    expect(await e10()).toBe(2);
    for (let n = 101; n < 200; n++) {
      expect(
        await watch.checkNumber('main', 'credit-note', { prefix: 'FE', number: String(n) }),
      ).toMatchObject({ code: 'EDOC_VALIDATE_OUT_OF_RANGE' });
    }
    expect(await e10()).toBe(2);
    // a prefix E10 lists no range of, a payroll number, a number that is not one: nothing judged
    expect(
      await watch.checkNumber('main', 'invoice', { prefix: 'ZZ', number: '5' }),
    ).toBeUndefined();
    expect(
      await watch.checkNumber('main', 'payroll', { prefix: 'FE', number: '500' }),
    ).toBeUndefined();
    expect(
      await watch.checkNumber('main', 'invoice', { prefix: 'FE', number: 'A-7' }),
    ).toBeUndefined();
  });

  test('a range registered after the last read is found by the re-read and the number is not refused', async () => {
    const { watch, emulator, e10 } = await setup();
    await watch.readAll();
    const res = await fetch(`${emulator.url}/public/api/numeraciones/v1/create`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': COMPANY_MAIN.apiKey,
        'x-company-id': String(COMPANY_MAIN.id),
      },
      body: JSON.stringify({
        Prefix: 'FE',
        AuthorizationNumber: '18764000002',
        ValidFrom: '2026-01-01T00:00:00',
        ValidTo: `${addDays(TODAY, 300)}T23:59:59`,
        StartValue: 101,
        EndValue: 200,
        DocumentType: 'Invoice',
      }),
    });
    expect(res.status).toBe(200);
    expect(
      await watch.checkNumber('main', 'invoice', { prefix: 'FE', number: '150' }),
    ).toBeUndefined();
    expect(await e10()).toBe(2);
    expect(
      watch
        .snapshot()
        .filter((r) => r.prefix === 'FE')
        .map((r) => [r.from, r.to, r.numbersLeft]),
    ).toEqual([
      [1, 100, 60],
      [101, 200, 50],
    ]);
  });

  test('a read whose rate slot comes after the gate shut asks nothing and is no failure; the next, the gate open, reads', async () => {
    let open = true;
    const gate: CompanyGate = { held: () => true, open: () => open, fenced: () => undefined };
    const rate = new CompanyRate({ requestsPerSecond: COMPANY.rate.requestsPerSecond });
    const { watch, e10 } = await setup({ gate, rate });
    rate.holdFor(500); // the read waits inside the rate (it asked the gate before)
    const read = watch.read('main');
    await new Promise((resolve) => setTimeout(resolve, 100));
    open = false; // shut while it waits (a lease not renewed in time)
    expect(await read).toBe(false);
    expect(await e10()).toBe(0);
    expect(watch.snapshot()).toEqual([]);
    open = true;
    expect(await watch.read('main')).toBe(true);
    expect(await e10()).toBe(1);
  });

  test('where E10 cannot be read, nothing is refused on its account', async () => {
    const { watch, emulator, e10, dir } = await setup();
    await watch.readAll();
    await emulator.client.setFaults({ errorRate: 1, allEndpoints: true });
    expect(
      await watch.checkNumber('main', 'invoice', { prefix: 'FE', number: '150' }),
    ).toBeUndefined();
    expect(await e10()).toBe(2);
    // never read at all (the service down from the start)
    await emulator.close();
    const fresh = new RangeWatch({
      runs: runsOf(COMPANY),
      client: new ServiceClient({ baseUrl: emulator.url, timeoutMs: 2_000 }),
      logger: createLogger({ file: path.join(dir, 'b.log') }),
      highestUsed: async () => undefined,
      refuse: () => true,
    });
    cleanups.push(() => fresh.close());
    fresh.start();
    expect(
      await fresh.checkNumber('main', 'invoice', { prefix: 'FE', number: '150' }),
    ).toBeUndefined();
    expect(fresh.snapshot()).toEqual([]);
    const log = await readFile(path.join(dir, 'edoc.log'), 'utf8');
    expect(log).toContain('EDOC_RANGES_UNREADABLE');
    expect(log).not.toContain(COMPANY_MAIN.apiKey);
  });
});
