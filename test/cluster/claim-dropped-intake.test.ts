/**
 * An intake dropped from the PostgreSQL ledger (ledger/superseded-files.ts `dropIntake`: a file read
 * again because the intake worker was replaced for another file's sake, a file that changed while it was
 * read) whose file this node claimed (cluster/file-claims.ts: every file recorded on PostgreSQL is
 * claimed, the claim pointing at its `files` row). The drop used to fail on the claim's foreign key
 * ("update or delete on table files violates foreign key constraint file_claims_file_id_fkey"), so the
 * intake failed and the file was never read again nor reported. Now the claim goes with the intake, and
 * the file is claimed and recorded anew when it is taken again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { attachClaim, claimFile } from '../../src/cluster/file-claims.js';
import type { SqlExecutor } from '../../src/ledger/sql/executor.js';
import { migratePostgres } from '../../src/ledger/sql/pg-migrations.js';
import { openPostgresExecutor } from '../../src/ledger/sql/postgres.js';
import { dropIntake } from '../../src/ledger/superseded-files.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

describePg('a dropped intake and its file claim, on PostgreSQL', () => {
  const pgDb = usePgDatabase();
  let db: SqlExecutor;

  beforeAll(async () => {
    db = openPostgresExecutor(pgDb().url);
    await migratePostgres(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('the intake leaves the ledger with its claim, and the same file is claimed again by this node', async () => {
    const claim = { path: 'main/invoice/ventas.csv', sha256: 'a'.repeat(64), company: 'main' };
    const record = async (id: number): Promise<void> => {
      await db.run(
        `INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, state, started_at)
        VALUES (?, '/in/main/invoice/ventas.csv', 'ventas.csv', 'ventas', 10, ?, 'invoice', 'main', 'reading', 0)`,
        [id, claim.sha256],
      );
      await db.transaction(async (tx) => {
        expect(await claimFile(tx, 'node-a', 1, claim)).toEqual({ claimed: true });
        await attachClaim(tx, claim, id);
      });
    };
    await record(7);
    expect(await dropIntake(db, 7, 1_000, { reason: 'the intake worker was replaced' })).toBe(true);
    expect(await db.all('SELECT id FROM files')).toEqual([]);
    // taken again: claimed and recorded as a new file, its claim pointing at the new row
    await record(8);
    expect(await db.all('SELECT file_id, node FROM file_claims')).toEqual([
      { file_id: 8, node: 'node-a' },
    ]);
  });
});
