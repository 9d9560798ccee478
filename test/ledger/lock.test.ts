import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { LOCK_FILE } from '../../src/ledger/lock.js';
import { isEdocError } from '../../src/errors.js';
import { holdLedger, killHard, tempDir } from './helpers.js';
import type { ChildProcess } from 'node:child_process';

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child) await killHard(child);
  child = undefined;
});

describe('ledger lock: one process per state folder', () => {
  it('refuses with EDOC_LEDGER_LOCKED naming the pid while a live process holds the folder', async () => {
    const dir = tempDir();
    child = await holdLedger(dir);
    let caught: unknown;
    try {
      Ledger.open(dir);
    } catch (err) {
      caught = err;
    }
    expect(isEdocError(caught, 'EDOC_LEDGER_LOCKED')).toBe(true);
    expect((caught as Error).message).toContain(`pid ${child.pid}`);
  });

  it('lets a read-only open (status) in beside the running daemon', async () => {
    const dir = tempDir();
    child = await holdLedger(dir, 3);
    const ro = Ledger.open(dir, { readOnly: true });
    try {
      expect((await ro.statusSummary()).byCompanyKind[0].counts.sending).toBe(3);
    } finally {
      await ro.close();
    }
  });

  it('takes over the lock of a process that died, with a note', async () => {
    const dir = tempDir();
    child = await holdLedger(dir);
    const deadPid = child.pid;
    await killHard(child);
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true);
    const ledger = Ledger.open(dir);
    try {
      expect(ledger.notes.join('\n')).toContain(`stale lock of pid ${deadPid}`);
      const info = JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as {
        pid: number;
        startedAt: string;
      };
      expect(info.pid).toBe(process.pid);
      expect(Date.parse(info.startedAt)).toBeGreaterThan(0);
    } finally {
      await ledger.close();
    }
  });

  it('treats an empty lock file (writer died before writing) and its own reused pid as stale', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, LOCK_FILE), '');
    await Ledger.open(dir).close();
    fs.writeFileSync(
      path.join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, startedAt: 'earlier boot' }),
    );
    const ledger = Ledger.open(dir);
    expect(ledger.notes.some((n) => n.includes('stale lock'))).toBe(true);
    await ledger.close();
  });

  it('refuses a second open in the same process and releases the lock on close, twice safely', async () => {
    const dir = tempDir();
    const ledger = Ledger.open(dir);
    expect(() => Ledger.open(dir)).toThrow(/in use/);
    await ledger.close();
    await ledger.close();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    await Ledger.open(dir).close();
  });

  it('read-only open of a folder with no ledger says so', () => {
    expect(() => Ledger.open(tempDir(), { readOnly: true })).toThrow(
      expect.objectContaining({ code: 'EDOC_LEDGER_NOT_FOUND' }),
    );
  });
});

describe('a damaged ledger file', () => {
  it('is reported as EDOC_LEDGER_OPEN and the lock is released', () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'ledger.sqlite'),
      'this is not a database, just text that is long enough'.repeat(20),
    );
    expect(() => Ledger.open(dir)).toThrow(expect.objectContaining({ code: 'EDOC_LEDGER_OPEN' }));
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });
});
