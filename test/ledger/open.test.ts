/** openLedger (src/ledger/open.ts): the one place that picks the ledger's backend. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEdocError } from '../../src/errors.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { openLedger } from '../../src/ledger/open.js';
import { PG_SCHEMA_VERSION } from '../../src/ledger/sql/pg-migrations.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';
import { tempDir } from './helpers.js';

describe('openLedger', () => {
  it('opens the SQLite ledger of paths.state without ledger.url', async () => {
    const ledger = await openLedger({ paths: { state: tempDir() }, ledger: {} });
    try {
      expect(ledger).toBeInstanceOf(Ledger);
      expect(await ledger.openFiles()).toEqual([]);
    } finally {
      await ledger.close();
    }
  });

  it("an unreachable ledger.url fails without quoting the URL's password, and opens nothing in the state folder", async () => {
    const state = tempDir();
    const err = await openLedger({
      paths: { state },
      ledger: { url: 'postgres://edoc:s3cret-pw@127.0.0.1:1/edoc' },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isEdocError(err, 'EDOC_LEDGER_UNREACHABLE')).toBe(true);
    expect(
      JSON.stringify({
        message: (err as Error).message,
        context: (err as { context?: unknown }).context,
      }),
    ).not.toContain('s3cret');
    expect(fs.readdirSync(state)).toEqual([]);
  });
});

describePg('openLedger with ledger.url', () => {
  const pg = usePgDatabase();

  it('opens the PostgreSQL ledger, migrated at open; status and retry beside it need no migration and take no lock', async () => {
    const state = path.join(tempDir(), 'state');
    const config = { paths: { state }, ledger: { url: pg().url } };
    const readOnly = await openLedger(config, { readOnly: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isEdocError(readOnly, 'EDOC_LEDGER_NOT_FOUND')).toBe(true);
    expect((readOnly as Error).message).toMatch(/no ledger in the PostgreSQL database/);
    const ledger = await openLedger(config);
    try {
      expect(ledger.notes).toEqual([
        expect.stringMatching(new RegExp(`from version 0 to ${PG_SCHEMA_VERSION}`)) as unknown,
      ]);
      expect(ledger.notes.join()).not.toContain(pg().server.password);
      const { fileId } = await ledger.recordFile({
        path: '/i/a.json',
        name: 'a.json',
        size: 1,
        sha256: 'a',
        kind: 'invoice',
        company: 'main',
        now: 1,
      });
      const again = await openLedger(config, { shared: true });
      expect(again.notes).toEqual([]);
      expect((await again.getFile(fileId))?.name).toBe('a.json');
      await again.close();
      expect(fs.existsSync(state)).toBe(false);
    } finally {
      await ledger.close();
    }
  });
});
