import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EdocError } from '../../src/errors.js';
import {
  isStorageFull,
  storageFullCode,
  storageFullError,
} from '../../src/storage/storage-full.js';
import { StorageWatch } from '../../src/storage/storage-watch.js';
import { writeFileAtomic } from '../../src/report/atomic-write.js';

/** A real ENOSPC: /dev/full refuses every write. */
function enospc(): unknown {
  try {
    writeFileSync('/dev/full', 'x');
  } catch (err) {
    return err;
  }
  throw new Error('/dev/full accepted a write');
}

function lines(): { logger: pino.Logger; seen: { level: number; msg: string; code?: string }[] } {
  const seen: { level: number; msg: string; code?: string }[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        seen.push(JSON.parse(line) as { level: number; msg: string });
      },
    },
  );
  return { logger, seen };
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('storage errors are classified in one place', () => {
  it('a full disk from the file system, from SQLite and wrapped in our own errors; not other failures', async () => {
    expect(storageFullCode(enospc())).toBe('ENOSPC');
    const atomic = await writeFileAtomic('/dev/full/x.json', '{}').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isStorageFull(atomic)).toBe(false); // ENOTDIR: not a full disk
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_IOERR',
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR_FSYNC',
    ]) {
      expect(storageFullCode(new Database.SqliteError('database or disk is full', code))).toBe(
        code,
      );
    }
    expect(isStorageFull(new Database.SqliteError('database is locked', 'SQLITE_BUSY'))).toBe(
      false,
    );
    for (const errno of ['EDQUOT', 'EFBIG'])
      expect(isStorageFull(Object.assign(new Error(errno), { code: errno }))).toBe(true);
    const report = new EdocError(
      'EDOC_REPORT_WRITE',
      'Could not write x',
      { errno: 'ENOSPC' },
      { cause: enospc() },
    );
    expect(storageFullCode(report)).toBe('ENOSPC');
    const wrapped = storageFullError(
      new Error('outer', { cause: new Database.SqliteError('full', 'SQLITE_FULL') }),
      'the ledger',
    );
    expect(wrapped.code).toBe('EDOC_STORAGE_FULL');
    expect(wrapped.context.errno).toBe('SQLITE_FULL');
    expect(storageFullError(wrapped, 'again')).toBe(wrapped);
    expect(
      isStorageFull(
        new Error('EACCES', { cause: Object.assign(new Error('x'), { code: 'EACCES' }) }),
      ),
    ).toBe(false);
  });
});

describe('StorageWatch', () => {
  it('one line per episode, probes with backoff, commits what was held before the pause lifts, one line on resume', async () => {
    const { logger, seen } = lines();
    let full = true;
    let probes = 0;
    const order: string[] = [];
    const watch = new StorageWatch({
      logger,
      minDelayMs: 5,
      maxDelayMs: 20,
      probe: () => {
        probes++;
        if (full) throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
      },
    });
    watch.beforeResume(() => {
      order.push(`before (paused: ${watch.paused})`);
    });
    watch.onResume(() => {
      order.push(`after (paused: ${watch.paused})`);
    });
    expect(watch.report(new Error('a bad document'), 'intake')).toBe(false);
    expect(watch.paused).toBe(false);
    expect(watch.report(enospc(), 'outbox')).toBe(true);
    expect(
      watch.report(new Database.SqliteError('database or disk is full', 'SQLITE_FULL'), 'submit'),
    ).toBe(true);
    expect(watch.paused).toBe(true);
    await until(() => probes >= 4);
    expect(watch.paused).toBe(true);
    full = false;
    await until(() => !watch.paused);
    await until(() => order.length === 2);
    expect(order).toEqual(['before (paused: true)', 'after (paused: false)']);
    expect(
      seen.filter((l) => l.code === 'EDOC_STORAGE_FULL').map((l) => l.msg.split(':')[0]),
    ).toEqual(['the disk is full', 'storage writable again']);
    watch.close();
  });

  it('a step before resuming that still cannot write keeps the pause (held verdicts first, always)', async () => {
    const { logger, seen } = lines();
    let held = 2;
    const watch = new StorageWatch({
      logger,
      minDelayMs: 5,
      maxDelayMs: 10,
      probe: () => undefined,
    });
    watch.beforeResume(() => {
      if (held-- > 0) throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    });
    watch.report(enospc(), 'submit');
    await until(() => held < 0);
    await until(() => !watch.paused);
    expect(seen.filter((l) => l.code === 'EDOC_STORAGE_FULL')).toHaveLength(2);
    // a commit that failed for another reason pauses too when asked to (a verdict is held whatever the reason)
    expect(
      watch.report(new Database.SqliteError('database is locked', 'SQLITE_BUSY'), 'submit', true),
    ).toBe(true);
    expect(seen.at(-1)?.code).toBe('EDOC_LEDGER_WRITE');
    watch.close();
  });
});
