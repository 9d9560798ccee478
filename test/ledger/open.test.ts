/** openLedger (src/ledger/open.ts): the one place that picks the ledger's backend. */
import { describe, expect, it } from 'vitest';
import { isEdocError } from '../../src/errors.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { openLedger } from '../../src/ledger/open.js';
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

  it('refuses ledger.url (no PostgreSQL backend yet) without quoting the URL, and opens nothing', async () => {
    const state = tempDir();
    const err = await openLedger({ paths: { state }, ledger: { url: 'postgres://edoc:s3cret-pw@db.example:5432/edoc' } })
      .then(() => undefined, (e: unknown) => e);
    expect(isEdocError(err, 'EDOC_CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toMatch(/ledger\.url is set/);
    expect(JSON.stringify({ message: (err as Error).message, context: (err as { context?: unknown }).context })).not.toContain('s3cret');
    const ledger = await openLedger({ paths: { state } }); // the state folder's lock was not taken
    await ledger.close();
  });
});
