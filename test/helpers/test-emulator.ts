/**
 * The emulator of the tests, in the test process on 127.0.0.1 and a free port:
 * the test companies, the seed built for them (every range the request
 * fixtures need), and `startTestEmulator`, the one way tests start one.
 * Re-exported by daemon-harness.ts, where tests import it from.
 */
import { readFileSync } from 'node:fs';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import type { SeedInput } from '../../src/emulator/seed.js';
import type { CompanyConfig } from '../../src/config/schema.js';
import { EmulatorClient, type FaultSet } from './emulator-client.js';

export interface TestCompany {
  alias: string;
  id: number;
  nit: string;
  checkDigit: string;
  apiKey: string;
  userId: number;
  rate?: { requestsPerSecond: number; concurrency: number };
}

export const COMPANY_MAIN: TestCompany = {
  alias: 'main',
  id: 1001,
  nit: '900123456',
  checkDigit: '8',
  apiKey: 'test-key-1001',
  userId: 7,
};
export const COMPANY_OTHER: TestCompany = {
  alias: 'other',
  id: 1002,
  nit: '800197268',
  checkDigit: '4',
  apiKey: 'test-key-1002',
  userId: 8,
};

/** A test company as the configuration hands it to its run: alias, id, NIT, key, user and rate. */
export function runCompany(
  c: TestCompany,
  rate = { requestsPerSecond: 50, concurrency: 4 },
): CompanyConfig {
  const { alias, id, nit, apiKey, userId } = c;
  return { alias, id, nit, apiKey, userId, rate } as CompanyConfig;
}

function range(type: string, prefix: string, from: number, to: number): Record<string, unknown> {
  return {
    DocumentType: type,
    Prefix: prefix,
    ResolutionNumber: `1876${prefix.length}${from}`,
    ResolutionDate: '2019-01-19',
    TechnicalKey: null,
    FromNumber: from,
    ToNumber: to,
    ValidFrom: '2019-01-19T00:00:00',
    ValidTo: '2030-01-19T23:59:59',
    Active: true,
  };
}

/** A seed with every range the request fixtures (and numbered variants of them) need. */
export function seedFor(companies: readonly TestCompany[], faults: FaultSet = {}): SeedInput {
  return {
    today: null,
    faults: { ...faults },
    companies: companies.map((c) => ({
      id: c.id,
      nit: c.nit,
      checkDigit: c.checkDigit,
      name: `Empresa ${c.alias}`,
      apiKey: c.apiKey,
      userIds: [c.userId],
      payrollPrefix: 'NOM',
      ranges: [
        range('Invoice', 'SETP', 990_000_000, 995_000_000),
        range('CreditNote', 'NC', 1, 999_999),
        range('DebitNote', 'ND', 1, 999_999),
        range('SupportDocument', 'DS', 1, 999_999_999),
        range('SupportAdjustmentNote', 'NDS', 1, 999_999),
        range('Pos', 'POS', 1, 9_999_999),
      ],
    })) as SeedInput['companies'],
  };
}

export interface TestEmulator {
  running: RunningEmulator;
  client: EmulatorClient;
  url: string;
  close(): Promise<void>;
}

/**
 * What a test emulator starts from: the companies a test asks for (seeded by
 * `seedFor` with every range the fixtures need), a seed object, or the path of
 * a seed file (the shipped one, the received-documents one).
 */
export type TestSeed = readonly TestCompany[] | SeedInput | string;

export interface TestEmulatorOptions {
  /** A fixed port, to bring the service back on the same address. @defaultValue 0 (a free port) */
  port?: number;
  /** The emulator's state file: what was issued survives a restart. */
  stateFile?: string;
  /** Pins the emulator's "today" (yyyy-MM-dd), e.g. the last day of a range. */
  today?: string;
}

function isCompanies(seed: TestSeed): seed is readonly TestCompany[] {
  return Array.isArray(seed);
}

/** A seed file as an object, changed by `edit` (the one builder for seeds kept as files). */
export function seedFile<T = SeedInput>(file: string, edit?: (seed: T) => void): T {
  const seed = JSON.parse(readFileSync(file, 'utf8')) as T;
  edit?.(seed);
  return seed;
}

function seedInput(
  seed: TestSeed,
  faults: FaultSet,
  today: string | undefined,
): SeedInput | string {
  // a seed file with nothing to change is read by the emulator itself (its errors name the file)
  if (typeof seed === 'string' && Object.keys(faults).length === 0 && today === undefined)
    return seed;
  const base = isCompanies(seed)
    ? seedFor(seed, faults)
    : typeof seed === 'string'
      ? seedFile(seed)
      : seed;
  const withFaults =
    isCompanies(seed) || Object.keys(faults).length === 0
      ? base
      : { ...base, faults: { ...base.faults, ...faults } };
  return today === undefined ? withFaults : { ...withFaults, today };
}

/** The emulator on 127.0.0.1 (a free port unless `options.port`), in this process; the only way tests start one. */
export async function startTestEmulator(
  seed: TestSeed,
  faults: FaultSet = {},
  options: TestEmulatorOptions = {},
): Promise<TestEmulator> {
  const running = await startEmulator({
    host: '127.0.0.1',
    port: options.port ?? 0,
    seed: seedInput(seed, faults, options.today),
    ...(options.stateFile === undefined ? {} : { stateFile: options.stateFile }),
  });
  return {
    running,
    client: new EmulatorClient(running.url),
    url: running.url,
    close: () => running.close(),
  };
}
