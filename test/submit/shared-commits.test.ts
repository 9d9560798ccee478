/**
 * One node, many companies: the senders of every company share one commit batcher (`submissionBatcher`),
 * so the marks of a turn commit in one transaction for all of them rather than one per company. Real
 * ledger in a temp folder, the emulator over real HTTP, two companies, their senders started together.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { ledgerNow } from '../../src/policy/ledger-clock.js';
import { OPEN_GATE } from '../../src/company/company-gate.js';
import { CompanyRate } from '../../src/rate/company-rate.js';
import { ServiceClient } from '../../src/service/client.js';
import { CompanySender } from '../../src/submit/company-sender.js';
import { submissionBatcher } from '../../src/submit/submission-commits.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';
import {
  COMPANY_MAIN,
  COMPANY_OTHER,
  startTestEmulator,
  type TestEmulator,
} from '../helpers/test-emulator.js';

const FIRST = 990_000_001;
const PER_COMPANY = 12;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('the senders of one node share one commit batcher', () => {
  test('two companies sending at once: their marks commit together, each document sent once and accepted', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-shared-commits-'));
    const emulator: TestEmulator = await startTestEmulator([COMPANY_MAIN, COMPANY_OTHER], {
      latencyMs: 20,
    });
    const rate = { requestsPerSecond: 500, concurrency: 2 };
    const config = await resolveConfig(
      {
        service: { baseUrl: emulator.url },
        companies: [COMPANY_MAIN, COMPANY_OTHER].map((c) => ({
          alias: c.alias,
          id: c.id,
          nit: c.nit,
          userId: c.userId,
          apiKey: c.apiKey,
          rate,
        })),
        paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
        retry: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 },
      },
      { file: 'test.yaml', cwd: dir, env: {} },
    );
    const ledger = Ledger.open(config.paths.state);
    const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 10_000 });
    const logger: AppLogger = createLogger({
      file: path.join(dir, 'logs', 'edoc-bridge.log'),
      level: 'info',
    });
    const senders: CompanySender[] = [];
    cleanup = async () => {
      for (const s of senders) await s.close();
      await client.close();
      await emulator.close();
      await ledger.close();
      await logger.close();
      await rm(dir, { recursive: true, force: true });
    };
    const companyOf = new Map<number, string>();
    for (const [k, test] of [COMPANY_MAIN, COMPANY_OTHER].entries()) {
      const { fileId } = await ledger.recordFile({
        path: path.join(dir, 'inbox', `${test.alias}.jsonl`),
        name: `${test.alias}.jsonl`,
        size: 1,
        sha256: `x${k}`,
        kind: 'invoice',
        company: test.alias,
        now: Date.now(),
      });
      await ledger.insertDocuments(
        fileId,
        Array.from({ length: PER_COMPANY }, (_, i) => {
          const request = invoice(FIRST + i, test);
          return {
            index: i,
            source: { lines: [i + 1] },
            number: `SETP/${FIRST + i}`,
            ownNumber: true,
            request,
            raw: jsonText(request),
          };
        }),
      );
      await ledger.finishReading(fileId);
      companyOf.set(fileId, test.alias);
    }
    const commits = submissionBatcher(ledger, {
      onChanged: () => undefined,
      now: ledgerNow,
      lazyMs: 20,
    });
    for (const company of config.companies) {
      senders.push(
        new CompanySender({
          ledger,
          client,
          company,
          rate: new CompanyRate({ requestsPerSecond: rate.requestsPerSecond }),
          retry: config.retry,
          pos: config.kinds.pos,
          logger,
          gate: OPEN_GATE,
          onChanged: () => undefined,
          commits,
        }),
      );
    }
    for (const s of senders) s.start();

    const accepted = async (): Promise<true | undefined> => {
      const issued = await emulator.client.issued();
      return issued.length === 2 * PER_COMPANY ? true : undefined;
    };
    await eventually(accepted, `${2 * PER_COMPANY} documents issued`);
    for (const s of senders) await s.close();

    const db = new Database(path.join(config.paths.state, 'ledger.sqlite'), {
      readonly: true,
      fileMustExist: true,
    });
    let rows: { at: number; type: string; fileId: number; state: string }[];
    try {
      rows = db
        .prepare(
          `SELECT e.at, e.type, d.file_id AS fileId, d.state FROM events e JOIN documents d ON d.id = e.document_id
        WHERE e.type = 'sending'`,
        )
        .all() as typeof rows;
    } finally {
      db.close();
    }
    // every document marked once and accepted: 2 companies × 12 documents
    expect(rows).toHaveLength(2 * PER_COMPANY);
    expect(rows.every((r) => r.state === 'accepted')).toBe(true);
    // the marks of one commit carry its one `at`: the first claims of both feeders (started in the same turn)
    // went in one transaction, so some commit holds marks of both companies
    const companiesByCommit = new Map<number, Set<string>>();
    for (const r of rows) {
      const set = companiesByCommit.get(r.at) ?? new Set<string>();
      set.add(companyOf.get(r.fileId)!);
      companiesByCommit.set(r.at, set);
    }
    expect([...companiesByCommit.values()].some((s) => s.size === 2)).toBe(true);
  });
});
