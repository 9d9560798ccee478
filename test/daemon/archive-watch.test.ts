/**
 * The archive watch in-process, with a real ledger, real files in a temp folder and a clock the test
 * moves: an archived original that changes is flagged EDOC_READ_CHANGED_AFTER_SEND and put back in the
 * inbox; one that does not is left alone; the watch ends after archiveWatchMs; 0 turns it off.
 */
import { EVERY_COMPANY } from '../../src/company/company-view.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ArchiveWatch } from '../../src/daemon/archive-watch.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { settleFile } from '../../src/daemon/file-reports.js';

const CONTENT = '[{"Number":1}]';
const GROWN = '[{"Number":1},{"Number":2}]';

let dir: string | undefined;
let ledger: Ledger | undefined;
let logger: AppLogger | undefined;
let watch: ArchiveWatch | undefined;

afterEach(async () => {
  await watch?.close();
  await ledger?.close();
  await logger?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = watch = ledger = logger = undefined;
});

/** One file of one accepted document, settled: its original is in `outbox/archive/`. */
async function archivedFile(name = 'ventas.json') {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-archive-watch-'));
  const inbox = path.join(dir, 'inbox', 'invoice');
  const outbox = path.join(dir, 'outbox', 'invoice');
  fs.mkdirSync(inbox, { recursive: true });
  const input = path.join(inbox, name);
  fs.writeFileSync(input, CONTENT);
  const l = (ledger = Ledger.open(path.join(dir, 'state')));
  logger = createLogger({ file: path.join(dir, 'logs', 'edoc-bridge.log') });
  const { fileId } = await l.recordFile({
    path: input,
    name,
    size: CONTENT.length,
    archive: true,
    sha256: createHash('sha256').update(CONTENT).digest('hex'),
    kind: 'invoice',
    company: 'main',
    now: Date.now(),
  });
  await l.insertDocuments(fileId, [
    {
      index: 0,
      source: { lines: [1] },
      number: 'SETP1',
      ownNumber: true,
      request: {},
      raw: CONTENT,
    },
  ]);
  await l.finishReading(fileId);
  const [doc] = await l.claimDue('main', Date.now(), 1);
  await l.markSending([doc.id]);
  await l.recordOutcome(doc.id, { state: 'accepted', resultCode: '100', httpStatus: 200 });
  const settled = await settleFile(l, fileId, outbox);
  const archived = settled.archivedPath ?? '';
  expect(archived).toBe(path.join(outbox, 'archive', name));
  return { inbox, outbox, input, archived, fileId, ledger: l, logger };
}

function newWatch(
  l: Ledger,
  log: AppLogger,
  watchMs: number,
  clock: { now: number },
  flagged: number[],
): ArchiveWatch {
  return new ArchiveWatch({
    ledger: l,
    logger: log,
    watchMs: () => watchMs,
    intervalMs: 60_000,
    now: () => clock.now,
    onFlagged: (id) => flagged.push(id),
    companies: EVERY_COMPANY,
  });
}

describe('the archive watch', () => {
  test('an archived original that grows is flagged EDOC_READ_CHANGED_AFTER_SEND and put back in the inbox under its name', async () => {
    const f = await archivedFile();
    const clock = { now: Date.now() };
    const flagged: number[] = [];
    watch = newWatch(f.ledger, f.logger, 600_000, clock, flagged);
    await watch.add(f.fileId, f.archived);
    await watch.check();
    expect(flagged).toEqual([]);
    fs.writeFileSync(f.archived, GROWN);
    await watch.check();
    expect(flagged).toEqual([f.fileId]);
    expect(watch.size).toBe(0);
    const file = await f.ledger.getFile(f.fileId);
    expect(file?.error?.code).toBe('EDOC_READ_CHANGED_AFTER_SEND');
    expect(file?.error?.message).toMatch(/after it was sent and archived/);
    expect(file?.reportState).toBe('none');
    expect(fs.existsSync(f.archived)).toBe(false);
    expect(fs.readFileSync(f.input, 'utf8')).toBe(GROWN);
    await f.logger.close();
    const lines = (await readFile(path.join(dir ?? '', 'logs', 'edoc-bridge.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = lines.find((l) => l.code === 'EDOC_READ_CHANGED_AFTER_SEND');
    expect(line).toMatchObject({ level: 'error', file: 'ventas.json', inbox: f.input });
    // a second look does nothing more
    await watch.check();
    expect(flagged).toEqual([f.fileId]);
  });

  test('a file of that name in the inbox is never overwritten: the changed copy comes back as NAME (2).ext', async () => {
    const f = await archivedFile();
    const clock = { now: Date.now() };
    watch = newWatch(f.ledger, f.logger, 600_000, clock, []);
    await watch.add(f.fileId, f.archived);
    fs.writeFileSync(f.input, 'the next export');
    fs.appendFileSync(f.archived, '\n');
    await watch.check();
    expect(fs.readFileSync(f.input, 'utf8')).toBe('the next export');
    expect(fs.readFileSync(path.join(f.inbox, 'ventas (2).json'), 'utf8')).toBe(`${CONTENT}\n`);
  });

  test('an archived original left as it was, or only touched, is left alone', async () => {
    const f = await archivedFile();
    const clock = { now: Date.now() };
    const flagged: number[] = [];
    watch = newWatch(f.ledger, f.logger, 600_000, clock, flagged);
    await watch.add(f.fileId, f.archived);
    await watch.check();
    fs.utimesSync(f.archived, new Date(), new Date(Date.now() + 5_000));
    await watch.check();
    fs.writeFileSync(f.archived, CONTENT); // rewritten with the same bytes
    await watch.check();
    expect(flagged).toEqual([]);
    expect(watch.size).toBe(1);
    expect((await f.ledger.getFile(f.fileId))?.error).toBeNull();
    expect(fs.readFileSync(f.archived, 'utf8')).toBe(CONTENT);
  });

  test('the watch ends after archiveWatchMs: a later change is not looked at', async () => {
    const f = await archivedFile();
    const clock = { now: Date.now() };
    const flagged: number[] = [];
    watch = newWatch(f.ledger, f.logger, 1_000, clock, flagged);
    await watch.add(f.fileId, f.archived);
    clock.now += 1_000;
    fs.writeFileSync(f.archived, GROWN);
    await watch.check();
    expect(watch.size).toBe(0);
    expect(flagged).toEqual([]);
    expect((await f.ledger.getFile(f.fileId))?.error).toBeNull();
    expect(fs.existsSync(f.archived)).toBe(true);
  });

  test('archiveWatchMs 0 turns the watch off', async () => {
    const f = await archivedFile();
    const flagged: number[] = [];
    watch = newWatch(f.ledger, f.logger, 0, { now: Date.now() }, flagged);
    await watch.start();
    await watch.add(f.fileId, f.archived);
    expect(watch.size).toBe(0);
    fs.writeFileSync(f.archived, GROWN);
    await watch.check();
    expect(flagged).toEqual([]);
  });

  test('after a restart the watch is re-armed for files archived less than archiveWatchMs ago, and a grown copy is caught', async () => {
    const f = await archivedFile();
    const finished = (await f.ledger.getFile(f.fileId))?.finishedAt ?? 0;
    const flagged: number[] = [];
    // too old to watch
    const old = newWatch(f.ledger, f.logger, 1_000, { now: finished + 1_001 }, flagged);
    await old.start();
    expect(old.size).toBe(0);
    await old.close();
    watch = newWatch(f.ledger, f.logger, 600_000, { now: finished + 1_000 }, flagged);
    await watch.start();
    expect(watch.size).toBe(1);
    fs.appendFileSync(f.archived, 'more');
    await watch.check();
    expect(flagged).toEqual([f.fileId]);
    expect(fs.readFileSync(f.input, 'utf8')).toBe(`${CONTENT}more`);
  });
});
