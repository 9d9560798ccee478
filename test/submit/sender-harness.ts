/**
 * One company's CompanySender in-process: a real ledger in a temp folder holding one read file of
 * numbered invoices, a real emulator on 127.0.0.1, a real ServiceClient, a real log file.
 */
import { readFileSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { resolveConfig } from '../../src/config/load.js';
import type { CompanyConfig, Config } from '../../src/config/schema.js';
import { Ledger } from '../../src/ledger/ledger.js';
import type { DocumentRow } from '../../src/ledger/types.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { OPEN_GATE, type CompanyGate } from '../../src/company/company-gate.js';
import { CompanyRate } from '../../src/rate/company-rate.js';
import { ServiceClient } from '../../src/service/client.js';
import { CompanySender, type CompanySenderTuning } from '../../src/submit/company-sender.js';
import { COMPANY_MAIN, startTestEmulator, type TestEmulator } from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';
import { collect } from '../ledger/helpers.js';
import type { FaultSet } from '../helpers/emulator-client.js';

export const FIRST_NUMBER = 990_000_001;

export interface SenderSetup {
  documents: number;
  rate?: { requestsPerSecond: number; concurrency: number };
  faults?: FaultSet;
  /** The key the sender uses (the emulator knows COMPANY_MAIN's). */
  apiKey?: string;
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  tuning?: Partial<CompanySenderTuning>;
  /** The company's gate (cluster: open while its lease is held and renewed in time). */
  gate?: CompanyGate;
}

export type LogLine = Record<string, unknown> & { msg: string };

export class SenderHarness {
  private constructor(
    readonly dir: string,
    readonly config: Readonly<Config>,
    readonly company: CompanyConfig,
    readonly emulator: TestEmulator,
    readonly ledger: Ledger,
    readonly client: ServiceClient,
    readonly logger: AppLogger,
    readonly rate: CompanyRate,
    readonly sender: CompanySender,
    readonly fileId: number,
  ) {}

  static async start(o: SenderSetup): Promise<SenderHarness> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-sender-'));
    const emulator = await startTestEmulator([COMPANY_MAIN], o.faults ?? {});
    const config = await resolveConfig(
      {
        service: { baseUrl: emulator.url },
        companies: [
          {
            alias: COMPANY_MAIN.alias,
            id: COMPANY_MAIN.id,
            nit: COMPANY_MAIN.nit,
            userId: COMPANY_MAIN.userId,
            apiKey: o.apiKey ?? COMPANY_MAIN.apiKey,
            rate: o.rate ?? { requestsPerSecond: 200, concurrency: 4 },
          },
        ],
        paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
        retry: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50, ...o.retry },
      },
      { file: 'test.yaml', cwd: dir, env: {} },
    );
    const company = config.companies[0]!;
    const ledger = Ledger.open(config.paths.state);
    const { fileId } = await ledger.recordFile({
      path: path.join(dir, 'inbox', 'a.jsonl'),
      name: 'a.jsonl',
      size: 1,
      sha256: 'x',
      kind: 'invoice',
      company: company.alias,
      now: Date.now(),
    });
    await ledger.insertDocuments(
      fileId,
      Array.from({ length: o.documents }, (_, i) => {
        const request = invoice(FIRST_NUMBER + i);
        return {
          index: i,
          source: { lines: [i + 1] },
          number: `SETP/${FIRST_NUMBER + i}`,
          ownNumber: true,
          request,
          raw: jsonText(request),
        };
      }),
    );
    await ledger.finishReading(fileId);
    const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 10_000 });
    const logger = createLogger({
      file: path.join(dir, 'logs', 'edoc-bridge.log'),
      level: 'debug',
    });
    const rate = new CompanyRate({ requestsPerSecond: company.rate.requestsPerSecond });
    const sender = new CompanySender({
      ledger,
      client,
      company,
      rate,
      retry: config.retry,
      pos: config.kinds.pos,
      logger,
      gate: o.gate ?? OPEN_GATE,
      onChanged: () => undefined,
      ...o.tuning,
    });
    return new SenderHarness(
      dir,
      config,
      company,
      emulator,
      ledger,
      client,
      logger,
      rate,
      sender,
      fileId,
    );
  }

  documents(): Promise<DocumentRow[]> {
    return collect(this.ledger.iterateFileDocuments(this.fileId));
  }

  async states(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const d of await this.documents()) counts[d.state] = (counts[d.state] ?? 0) + 1;
    return counts;
  }

  /** The ledger's events, read beside the open ledger. */
  events(): { at: number; documentId: number | null; type: string }[] {
    const db = new Database(path.join(this.config.paths.state, 'ledger.sqlite'), {
      readonly: true,
      fileMustExist: true,
    });
    try {
      return db
        .prepare('SELECT at, document_id AS documentId, type FROM events ORDER BY id')
        .all() as { at: number; documentId: number | null; type: string }[];
    } finally {
      db.close();
    }
  }

  logLines(): LogLine[] {
    const file = path.join(this.dir, 'logs', 'edoc-bridge.log');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as LogLine);
  }

  async close(): Promise<void> {
    await this.sender.close();
    await this.client.close();
    await this.emulator.close();
    await this.ledger.close();
    await this.logger.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
