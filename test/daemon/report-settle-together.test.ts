/**
 * Files whose documents all became final by the same report pass are marked done together (the report
 * scheduler's finishTogether): their `done` shares one commit, and each is still done before its final
 * report is written; their reports' records, and their archive records, likewise (WritesTogether). What a crash between that commit and the reports leaves — files done, not reported —
 * is settled at the next start as before. A file of a company this process does not run is left alone.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { EVERY_COMPANY, type CompanyView } from '../../src/company/company-view.js';
import { ReportScheduler } from '../../src/daemon/report-scheduler.js';
import { Ledger } from '../../src/ledger/ledger.js';
import type { SqliteExecutor } from '../../src/ledger/sql/sqlite.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { eventually } from '../helpers/daemon-harness.js';

let dir: string | undefined;
const closing: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Three files (companies a, b, c) of one numbered document each, every document accepted. */
async function threeCompleteFiles(): Promise<{ ledger: Ledger; fileIds: number[] }> {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-settle-together-'));
  const ledger = Ledger.open(path.join(dir, 'state'));
  const fileIds: number[] = [];
  for (const company of ['a', 'b', 'c']) {
    const { fileId } = await ledger.recordFile({
      path: path.join(dir, `${company}.json`),
      name: `${company}.json`,
      size: 2,
      sha256: `sha-${company}`,
      kind: 'invoice',
      company,
      now: Date.now(),
    });
    await ledger.insertDocuments(fileId, [
      {
        index: 0,
        source: { lines: [1] },
        number: 'SETP1',
        ownNumber: true,
        request: {},
        raw: '{}',
      },
    ]);
    await ledger.finishReading(fileId);
    const [doc] = await ledger.claimDue(company, Date.now(), 1);
    await ledger.markSending([doc!.id]);
    await ledger.recordOutcome(doc!.id, { state: 'accepted' });
    fileIds.push(fileId);
  }
  return { ledger, fileIds };
}

function scheduler(ledger: Ledger, companies: CompanyView = EVERY_COMPANY): ReportScheduler {
  const logger: AppLogger = createLogger({ file: path.join(dir!, 'logs', 'edoc-bridge.log') });
  const reports = new ReportScheduler({
    ledger,
    logger,
    outboxDir: (company, kind) => path.join(dir!, 'outbox', company, kind),
    intervalMs: 60_000,
    archives: () => false,
    companies,
  });
  closing.push(logger, reports);
  return reports;
}

/** After each COMMIT of the ledger's connection: how many files are done, reported final, archived. */
function commitsOf(ledger: Ledger): [done: number, final: number, archived: number][] {
  const db = (ledger.sql as SqliteExecutor).db;
  const exec = db.exec.bind(db);
  const after: [number, number, number][] = [];
  db.exec = (sql: string) => {
    const out = exec(sql);
    if (sql === 'COMMIT')
      after.push(
        db
          .prepare(
            `SELECT sum(state = 'done'), sum(report_state = 'final'), sum(archived_path IS NOT NULL) FROM files`,
          )
          .raw()
          .get() as [number, number, number],
      );
    return out;
  };
  return after;
}

async function settledCount(ledger: Ledger, fileIds: number[]): Promise<number> {
  const files = await Promise.all(fileIds.map((id) => ledger.getFile(id)));
  return files.filter((f) => f?.reportState === 'final').length;
}

async function finalCounts(company: string): Promise<unknown> {
  const text = await readFile(
    path.join(dir!, 'outbox', company, 'invoice', `${company}.result.json`),
    'utf8',
  );
  return (JSON.parse(text) as { counts: unknown }).counts;
}

test('files complete together are marked done in one commit, each before its final report', async () => {
  const { ledger, fileIds } = await threeCompleteFiles();
  closing.push(ledger);
  const after = commitsOf(ledger);
  const reports = scheduler(ledger);
  // the pass a complete file starts at once (not a flush: that writes what is dirty before it is known complete)
  for (const fileId of fileIds) reports.touch(fileId);
  await eventually(
    async () => ((await settledCount(ledger, fileIds)) === 3 ? true : undefined),
    'the three files settled',
    5_000,
  );
  for (const company of ['a', 'b', 'c'])
    expect(await finalCounts(company)).toMatchObject({ total: 1, accepted: 1 });
  for (const fileId of fileIds) {
    const file = await ledger.getFile(fileId);
    expect([file?.state, file?.reportState]).toEqual(['done', 'final']);
  }
  // the three `done` in one commit, before any report was recorded final; then the three reports
  // recorded in one commit, and the three originals' archive records in one
  expect(after.find(([done]) => done > 0)).toEqual([3, 0, 0]);
  expect(after.find(([, final]) => final > 0)).toEqual([3, 3, 0]);
  expect(after.find(([, , archived]) => archived > 0)).toEqual([3, 3, 3]);
});

test('files done together but not reported (a crash after their commit) are settled at the next start', async () => {
  const first = await threeCompleteFiles();
  await Promise.all(first.fileIds.map((fileId) => first.ledger.finishFile(fileId)));
  await first.ledger.close();
  const ledger = Ledger.open(path.join(dir!, 'state'));
  closing.push(ledger);
  for (const fileId of first.fileIds) expect((await ledger.getFile(fileId))?.state).toBe('done');
  const reports = scheduler(ledger);
  for (const fileId of first.fileIds) reports.touch(fileId);
  await reports.flush();
  for (const company of ['a', 'b', 'c'])
    expect(await finalCounts(company)).toMatchObject({ total: 1, accepted: 1 });
  for (const fileId of first.fileIds)
    expect((await ledger.getFile(fileId))?.reportState).toBe('final');
});

test('a complete file of a company this process does not run is not finished by the others', async () => {
  const { ledger, fileIds } = await threeCompleteFiles();
  closing.push(ledger);
  const reports = scheduler(ledger, { owns: (company) => company !== 'b' });
  for (const fileId of fileIds) reports.touch(fileId);
  await eventually(
    async () => ((await settledCount(ledger, fileIds)) === 2 ? true : undefined),
    'the two files of ours settled',
    5_000,
  );
  await reports.flush();
  const states = await Promise.all(fileIds.map(async (id) => (await ledger.getFile(id))?.state));
  expect(states).toEqual(['done', 'open', 'done']);
});
