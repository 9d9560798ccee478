/** Shared helpers of the received-documents tests: a seeded emulator, a real config, ledger and log in a temp folder. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { resolveConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { SeedInput } from '../../src/emulator/seed.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { OPEN_GATE } from '../../src/company/company-gate.js';
import { CompanyPull } from '../../src/received/company-pull.js';
import { ReceivedPuller, type PullResult } from '../../src/received/puller.js';
import { ServiceClient } from '../../src/service/client.js';
import { seedFile, startTestEmulator } from '../helpers/daemon-harness.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SEED_FILE = path.join(ROOT, 'test/fixtures/received/seed.json');
export const TODAY = '2026-05-20';
export const MAIN_NIT = '900123456';

type Json = Record<string, unknown>;
export type SeedDoc = Json & {
  cufe: string;
  documentId: string;
  documentNumber: string;
  documentDate: string;
  pdfDocument: string;
};

export function seed(): SeedInput & { companies: (Json & { receivedDocuments: SeedDoc[] })[] } {
  return seedFile<SeedInput & { companies: (Json & { receivedDocuments: SeedDoc[] })[] }>(
    SEED_FILE,
  );
}

export function seedDocs(company = 0): SeedDoc[] {
  return seed().companies[company].receivedDocuments;
}

export function tempDir(prefix = 'edoc-received-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface Harness {
  dir: string;
  emulator: RunningEmulator;
  config: Readonly<Config>;
  ledger: Ledger;
  client: ServiceClient;
  logger: AppLogger;
  logFile: string;
  outbox: string;
  close(): Promise<void>;
}

/** Every configured company's pull (CompanyPull), as the daemon's company runs own them, with one shared puller. */
export interface CompanyPulls {
  /** Starts every company's timer. */
  start(): void;
  /** Pulls one company (or each) now; the results of the pulls that ran. */
  pullNow(alias?: string): Promise<PullResult[]>;
  isPaused(alias: string): boolean;
  /** A new configuration: the puller's settings, then each company's pull reloaded. */
  reload(config: Readonly<Config>): void;
  close(): Promise<void>;
}

export function companyPulls(x: Harness, options: { today?: () => string } = {}): CompanyPulls {
  let config = x.config;
  const puller = new ReceivedPuller({
    ledger: x.ledger,
    client: x.client,
    config,
    logger: x.logger,
    ...(options.today ? { today: options.today } : {}),
  });
  const pulls = config.companies.map(
    (company) =>
      new CompanyPull({
        ledger: x.ledger,
        puller,
        logger: x.logger,
        company: () => config.companies.find((c) => c.alias === company.alias) ?? company,
        config: () => config,
        gate: OPEN_GATE,
        ...(options.today ? { today: options.today } : {}),
      }),
  );
  return {
    start: () => pulls.forEach((p) => p.start()),
    pullNow: async (alias) => {
      const results = await Promise.all(
        pulls.filter((p) => alias === undefined || p.alias === alias).map((p) => p.pullNow()),
      );
      return results.filter((r): r is PullResult => r !== undefined);
    },
    isPaused: (alias) => pulls.find((p) => p.alias === alias)?.isPaused === true,
    reload: (next) => {
      config = next;
      puller.setConfig(next);
      for (const p of pulls) p.reload();
    },
    close: async () => {
      await Promise.all(pulls.map((p) => p.stop()));
    },
  };
}

export interface HarnessOptions {
  /** Overrides of the `received` section. */
  received?: Json;
  /** API key of the second company (`other`); a wrong one makes it 401. */
  otherKey?: string;
}

export async function makeConfig(
  dir: string,
  baseUrl: string,
  options: HarnessOptions = {},
): Promise<Readonly<Config>> {
  return resolveConfig(
    {
      service: { baseUrl },
      companies: [
        { alias: 'main', id: 1001, nit: MAIN_NIT, apiKey: 'key-1001' },
        { alias: 'other', id: 2002, nit: '800555666', apiKey: options.otherKey ?? 'key-2002' },
      ],
      paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
      retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
      received: {
        every: '1h',
        lookbackDays: 3,
        perPage: 7,
        startDate: '2026-03-01',
        ...options.received,
      },
    },
    { file: 'test.yaml', cwd: dir, env: {} },
  );
}

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = tempDir();
  const { running: emulator } = await startTestEmulator(SEED_FILE);
  const config = await makeConfig(dir, emulator.url, options);
  const ledger = Ledger.open(config.paths.state);
  const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 5000 });
  const logFile = path.join(dir, 'logs', 'edoc-bridge.log');
  const logger = createLogger({ file: logFile, level: 'debug', secrets: ['key-1001', 'key-2002'] });
  return {
    dir,
    emulator,
    config,
    ledger,
    client,
    logger,
    logFile,
    outbox: path.join(config.paths.outbox, 'received'),
    async close() {
      await client.close();
      await emulator.close();
      await ledger.close();
      await logger.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Adds received documents to a running emulator through its runtime route. */
export async function addReceived(
  emulator: { url: string },
  company: number,
  documents: Json[],
): Promise<void> {
  const res = await fetch(`${emulator.url}/_emulator/received`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ company, documents }),
  });
  if (res.status !== 200)
    throw new Error(`POST /_emulator/received answered ${res.status}: ${await res.text()}`);
}

/** A received document in the spec's shape, dated `iso` (yyyy-MM-dd). */
export function receivedDoc(number: string, iso: string, nit = MAIN_NIT): SeedDoc {
  const cufe = createHash('sha384').update(`${nit}-${number}`).digest('hex');
  return {
    cufe,
    documentId: cufe,
    documentCurrency: 'COP',
    documentDate: new Date(`${iso}T00:00:00Z`).toUTCString(),
    documentNumber: number,
    documentType: 'Factura electrónica de venta',
    typeCode: '01',
    event: null,
    issueTime: '09:00:00-05:00',
    nit,
    providerIdentification: '811000111',
    providerName: 'Proveedor Tardío SAS',
    providerTaxSchemaId: '01',
    taxSchemaId: '01',
    paymentMeans: 'Contado',
    paymentMeansCode: null,
    paymentMeansDescription: null,
    receiptService: null,
    receivedDate: new Date().toUTCString(),
    value: 5000,
    pdfDocument: '',
  };
}

/** Every file under `dir`, relative, with `/`, sorted. */
export function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

export interface IndexFile {
  raw: Buffer;
  header: string[];
  rows: Record<string, string>[];
}

export function readIndex(companyDir: string): IndexFile {
  const raw = fs.readFileSync(path.join(companyDir, 'received.csv'));
  const records = parse(raw.toString('utf8'), { delimiter: ';', bom: true }) as string[][];
  const [header, ...body] = records;
  return {
    raw,
    header,
    rows: body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))),
  };
}

export function readLog(file: string): Json[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
}

export function counts<T>(values: readonly T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
}
