/** One company's resolved configuration in a temporary folder, and its invoice inbox (made), for intake tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { IntakeContext } from '../../src/intake/intake.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import type { DocumentBatches, ReadJob } from '../../src/intake/intake-documents.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { invoice } from './documents.js';

export async function invoiceIntakeConfig(
  root: string,
): Promise<{ config: Readonly<Config>; inbox: string }> {
  const config = await resolveConfig(
    {
      companies: [
        { alias: 'main', id: 1001, nit: '900123456', apiKey: 'demo-key-1001', userId: 7 },
      ],
      paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
    },
    { file: 'edoc-bridge.yaml', cwd: root, env: {} },
  );
  const inbox = path.join(config.paths.inbox, 'invoice');
  fs.mkdirSync(inbox, { recursive: true });
  return { config, inbox };
}

/**
 * A temporary folder with invoiceIntakeConfig's company, a real SQLite ledger and a log file; `closers`
 * gets what closes them (run in reverse order).
 */
export async function intakeSetUp(
  prefix: string,
  closers: (() => Promise<unknown> | unknown)[],
): Promise<{
  dir: string;
  config: Readonly<Config>;
  inbox: string;
  ledger: Ledger;
  logger: AppLogger;
}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { config, inbox } = await invoiceIntakeConfig(dir);
  const ledger = Ledger.open(config.paths.state);
  closers.push(() => ledger.close());
  const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'info' });
  closers.push(() => logger.close());
  return { dir, config, inbox, ledger, logger };
}

/** What intakeFile is given in these tests: no mapping (JSON), no callbacks, a fixed day. */
export function testIntakeContext(
  parts: Pick<IntakeContext, 'ledger' | 'config' | 'logger' | 'reader'>,
): IntakeContext {
  return {
    ...parts,
    today: '2026-11-22',
    mapping: async () => undefined,
    onDocuments: () => undefined,
    onFileChanged: () => undefined,
  };
}

/** The read job of an invoice file (JSON or JSONL) for company main, as the pipeline makes it. */
export function readJob(file: string): ReadJob {
  const st = fs.statSync(file);
  return {
    path: file,
    kind: 'invoice',
    company: { alias: 'main', nit: '900123456' },
    expect: { size: st.size, mtimeMs: st.mtimeMs },
    maxRecordBytes: 1 << 20,
    today: '2026-11-22',
  };
}

/** The read job of an invoice CSV `file` read with `mapping` for company main (as the pipeline makes it). */
export function csvReadJob(file: string, mapping: Mapping): ReadJob {
  return { ...readJob(file), mapping };
}

/** Writes a JSONL file of `count` numbered invoices (990000001 on); its path. */
export function invoicesJsonl(file: string, count: number): string {
  fs.writeFileSync(
    file,
    Array.from({ length: count }, (_, j) => JSON.stringify(invoice(990000001 + j))).join('\n'),
  );
  return file;
}

/** How many documents a read hands over, read to its end. */
export async function countDocuments(read: DocumentBatches): Promise<number> {
  let n = 0;
  for await (const batch of read.batches) n += batch.length;
  return n;
}
