/**
 * Progress reports of many files at once (one per company, hundreds of companies): each file's own
 * spacing keeps its writes to a tenth of the time, and the files' progress reports together wait ten
 * times what a pass of them took (src/daemon/report-scheduler.ts), so they never add up to most of
 * the daemon's time. In-process with a real ledger and a real outbox folder.
 */
import { EVERY_COMPANY } from '../../src/company/company-view.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ReportScheduler } from '../../src/daemon/report-scheduler.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import { eventually } from '../helpers/daemon-harness.js';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const FILES = 40;

test('the progress reports of forty files wait ten times what their pass took, then are written again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-report-pacing-'));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ledger = Ledger.open(path.join(dir, 'state'));
  closers.push(() => ledger.close());
  const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'silent' });
  closers.push(() => logger.close());
  const outbox = path.join(dir, 'outbox');
  const ids: number[] = [];
  for (let f = 0; f < FILES; f++) {
    const { fileId } = await ledger.recordFile({
      path: path.join(dir, `f${f}.json`),
      name: `f${f}.json`,
      size: 2,
      sha256: `s${f}`,
      kind: 'invoice',
      company: 'main',
      now: Date.now(),
    });
    await ledger.insertDocuments(
      fileId,
      [0, 1].map((i) => ({
        index: i,
        source: { lines: [i + 1] },
        number: `SETP/${f * 2 + i}`,
        ownNumber: true,
        request: {},
        raw: '{}',
      })),
    );
    await ledger.finishReading(fileId);
    ids.push(fileId);
  }
  // one document of each file accepted: every file stays partial
  const due = await ledger.claimDue('main', Date.now(), FILES * 2);
  await ledger.markSending(due.map((d) => d.id));
  for (const fileId of ids) {
    const first = due.find((d) => d.fileId === fileId)!;
    await ledger.recordOutcome(first.id, { state: 'accepted' });
  }
  const reports = new ReportScheduler({
    ledger,
    logger,
    outboxDir: () => outbox,
    intervalMs: 10,
    companies: EVERY_COMPANY,
    // each report costs at least 3 ms, so what a pass took is measured well above the timers' jitter
    scrub: (text) => {
      const until = performance.now() + 3;
      while (performance.now() < until);
      return text;
    },
  });
  closers.push(() => reports.close());
  const written = (f: number): number | undefined => {
    try {
      return fs.statSync(path.join(outbox, `f${f}.result.json`)).mtimeMs;
    } catch {
      return undefined;
    }
  };
  const started = performance.now();
  for (const fileId of ids) reports.touch(fileId);
  // Looked at every millisecond: from the first report seen to the last is within the pass, which writes
  // one file after another, so ten times the pass is more than three times that after the last.
  let firstSeen: number | undefined;
  while (!ids.every((_, f) => written(f) !== undefined)) {
    expect(performance.now() - started).toBeLessThan(10_000);
    if (firstSeen === undefined && ids.some((_, f) => written(f) !== undefined))
      firstSeen = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const took = performance.now() - (firstSeen ?? started);
  const first = ids.map((_, f) => written(f));
  for (const fileId of ids) reports.touch(fileId);
  // Each file's own spacing alone (ten times its own report, about took ÷ 40) would write them all
  // again within took ÷ 4; together they wait ten times the pass.
  expect(took).toBeGreaterThan(3 * (FILES - 2));
  await new Promise((resolve) => setTimeout(resolve, 3 * took));
  expect(ids.filter((_, f) => written(f) !== first[f])).toEqual([]);
  await eventually(
    () => (ids.every((_, f) => written(f) !== first[f]) ? true : undefined),
    'the progress reports written again',
    30 * took + 5_000,
  );
});
