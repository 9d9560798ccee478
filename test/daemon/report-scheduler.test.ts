/**
 * The report scheduler in-process with a real ledger and a real outbox folder:
 * reports keep being rewritten as documents finish, also after an explicit
 * flush (the submit command and tests flush in the middle of a run); a file
 * that changed after sending began is told by what became of its documents.
 */
import { EVERY_COMPANY } from '../../src/company/company-view.js';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ReportScheduler } from '../../src/daemon/report-scheduler.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { eventually } from '../helpers/daemon-harness.js';

let dir: string | undefined;
let ledger: Ledger | undefined;
let logger: AppLogger | undefined;
let reports: ReportScheduler | undefined;

afterEach(async () => {
  await reports?.close();
  await ledger?.close();
  await logger?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
  reports = undefined;
  ledger = undefined;
  logger = undefined;
});

async function counts(outbox: string): Promise<Record<string, number> | undefined> {
  try {
    return (
      JSON.parse(await readFile(path.join(outbox, 'a.result.json'), 'utf8')) as {
        counts: Record<string, number>;
      }
    ).counts;
  } catch {
    return undefined;
  }
}

/** A read file of two numbered documents, in a fresh ledger beside a fresh outbox. */
async function twoDocumentFile(): Promise<{
  outbox: string;
  fileId: number;
  ledger: Ledger;
  logger: AppLogger;
}> {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-reports-'));
  const l = Ledger.open(path.join(dir, 'state'));
  ledger = l;
  logger = createLogger({ file: path.join(dir, 'logs', 'edoc-bridge.log') });
  const { fileId } = await l.recordFile({
    path: path.join(dir, 'a.json'),
    name: 'a.json',
    size: 2,
    sha256: 'abc',
    kind: 'invoice',
    company: 'main',
    now: Date.now(),
  });
  await l.insertDocuments(
    fileId,
    [0, 1].map((i) => ({
      index: i,
      source: { lines: [i + 1] },
      number: `SETP/${i}`,
      ownNumber: true,
      request: {},
      raw: '{}',
    })),
  );
  await l.finishReading(fileId);
  return { outbox: path.join(dir, 'outbox', 'invoice'), fileId, ledger: l, logger };
}

test('reports are still rewritten as documents finish after an explicit flush', async () => {
  const { outbox, fileId, ledger, logger: log } = await twoDocumentFile();
  reports = new ReportScheduler({
    ledger,
    logger: log,
    outboxDir: () => outbox,
    intervalMs: 20,
    companies: EVERY_COMPANY,
  });

  reports.touch(fileId);
  await reports.flush();
  expect(await counts(outbox)).toMatchObject({ total: 2, accepted: 0 });

  const [first] = await ledger.claimDue('main', Date.now(), 1);
  await ledger.markSending([first.id]);
  await ledger.recordOutcome(first.id, { state: 'accepted' });
  reports.touch(fileId);
  await eventually(
    async () => ((await counts(outbox))?.accepted === 1 ? true : undefined),
    'the report after the flush',
    // a progress report waits ten times the pass before it (report-progress.ts): ≈ 2.5 s after a flush
    // that took 250 ms on a loaded machine
    15_000,
  );
});

test('a file whose documents are all final is settled at once, not after the interval of partial reports', async () => {
  const { outbox, fileId, ledger, logger: log } = await twoDocumentFile();
  reports = new ReportScheduler({
    ledger,
    logger: log,
    outboxDir: () => outbox,
    intervalMs: 60_000,
    archives: () => false,
    companies: EVERY_COMPANY,
  });
  const due = await ledger.claimDue('main', Date.now(), 2);
  await ledger.markSending(due.map((d) => d.id));
  await ledger.recordOutcome(due[0]!.id, { state: 'accepted' });
  reports.touch(fileId); // partial: waits for the (long) interval
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await counts(outbox)).toBeUndefined();

  await ledger.recordOutcome(due[1]!.id, { state: 'accepted' });
  const touched = Date.now();
  reports.touch(fileId); // now complete: the final report does not wait for the minute
  await eventually(
    async () => ((await counts(outbox))?.accepted === 2 ? true : undefined),
    'the final report',
    3_000,
  );
  expect(Date.now() - touched).toBeLessThan(2_000);
  expect((await ledger.getFile(fileId))?.reportState).toBe('final');
});

// noticed when every document is final, before its original is archived: counted, none called "sent"
test('three documents, one accepted, one in doubt, one invalid, then the file changes: the line counts them, none is called sent', async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-changed-'));
  const inbox = path.join(dir, 'inbox', 'invoice');
  const outbox = path.join(dir, 'outbox', 'invoice');
  const original = `${JSON.stringify([{ n: 1 }, { n: 2 }, { n: 3 }])}\n`;
  const file = path.join(inbox, 'cambia.json');
  await mkdir(inbox, { recursive: true });
  await writeFile(file, original);
  ledger = Ledger.open(path.join(dir, 'state'));
  const logFile = path.join(dir, 'logs', 'edoc-bridge.log');
  logger = createLogger({ file: logFile });
  const { fileId } = await ledger.recordFile({
    path: file,
    name: 'cambia.json',
    size: Buffer.byteLength(original),
    sha256: createHash('sha256').update(original).digest('hex'),
    kind: 'invoice',
    company: 'main',
    now: Date.now(),
  });
  await ledger.insertDocuments(
    fileId,
    [0, 1, 2].map((i) => ({
      index: i,
      source: { lines: [1] },
      number: `SETP/99000000${i}`,
      ownNumber: true,
      request: {},
      raw: '{}',
      ...(i === 2 ? { problems: [{ code: 'EDOC_VALIDATE_SCHEMA', message: 'not valid' }] } : {}),
    })),
  );
  await ledger.finishReading(fileId);
  const due = await ledger.claimDue('main', Date.now(), 2);
  expect(due).toHaveLength(2);
  await ledger.markSending(due.map((d) => d.id));
  await ledger.recordOutcome(due[0].id, { state: 'accepted' });
  await ledger.recordOutcome(due[1].id, {
    state: 'in-doubt',
    doubt: 'no-answer',
    maybeDelivered: true,
  });
  // the ERP writes the file again before its original is archived
  await writeFile(file, `${JSON.stringify([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }])}\n`);

  reports = new ReportScheduler({
    ledger,
    logger,
    outboxDir: () => outbox,
    intervalMs: 20,
    companies: EVERY_COMPANY,
  });
  reports.touch(fileId);
  await reports.flush();
  const line = await eventually(async () => {
    const text = await readFile(logFile, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { code?: string; msg: string })
      .find((l) => l.code === 'EDOC_READ_CHANGED_AFTER_SEND');
  }, 'the changed-after-send line');
  expect(line.msg).toBe(
    'FILE CHANGED AFTER SENDING BEGAN, of its 3 document(s) read from the earlier content: 1 accepted, ' +
      '1 in doubt (it may be issued: check on the service, then edoc-bridge resolve), 1 invalid (not sent); ' +
      'the changed file is not archived and is taken as a new file',
  );
  const report = JSON.parse(await readFile(path.join(outbox, 'cambia.result.json'), 'utf8')) as {
    error: { code: string; message: string };
  };
  expect(report.error.code).toBe('EDOC_READ_CHANGED_AFTER_SEND');
  expect(report.error.message).toBe(
    'cambia.json changed after its documents were released for sending, of its 3 document(s) read from the ' +
      'earlier content: 1 accepted, 1 in doubt (it may be issued: check on the service, then edoc-bridge resolve), ' +
      '1 invalid (not sent). The changed file was not archived; it stays in the inbox and is taken as a new file.',
  );
});
