/**
 * The PostgreSQL ledger schema against the real server: the SQLite ledger's latest schema translated
 * faithfully (compared column by column and index by index with a real SQLite ledger), its trigger,
 * the cluster's tables, and migrations that run exactly once when several nodes start together.
 */
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import {
  migratePostgres,
  PG_MIGRATIONS,
  PG_SCHEMA_VERSION,
  postgresSchemaVersion,
} from '../../src/ledger/sql/pg-migrations.js';
import { openPostgresExecutor } from '../../src/ledger/sql/postgres.js';
import { createDatabase, describePg } from '../helpers/postgres.js';

/** The SQLite ledger's tables at its latest version: table → column → NOT NULL, and its index names. */
function sqliteSchema(): { columns: Map<string, Map<string, boolean>>; indexes: Set<string> } {
  const db = new Database(':memory:');
  for (const step of MIGRATIONS) db.exec(step);
  const columns = new Map<string, Map<string, boolean>>();
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
    .pluck()
    .all() as string[];
  for (const table of tables) {
    const cols = db
      .prepare(`SELECT name, "notnull" AS nn, pk FROM pragma_table_info(?)`)
      .all(table) as Array<{ name: string; nn: number; pk: number }>;
    // an INTEGER PRIMARY KEY is never NULL in SQLite either (it is the rowid)
    columns.set(table, new Map(cols.map((c) => [c.name, c.nn === 1 || c.pk > 0])));
  }
  const indexes = new Set(
    db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
      .pluck()
      .all() as string[],
  );
  db.close();
  return { columns, indexes };
}

describePg('the PostgreSQL ledger schema', () => {
  it("has every table, column, NOT NULL and index of the SQLite ledger at its latest version, plus the cluster's", async () => {
    const database = await createDatabase();
    const db = openPostgresExecutor(database.url);
    try {
      expect(await migratePostgres(db)).toEqual({ from: 0, to: PG_SCHEMA_VERSION });
      const sqlite = sqliteSchema();
      const rows = await db.all<{ table_name: string; column_name: string; is_nullable: string }>(
        `SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = current_schema()`,
      );
      const pg = new Map<string, Map<string, boolean>>();
      for (const r of rows) {
        if (!pg.has(r.table_name)) pg.set(r.table_name, new Map());
        pg.get(r.table_name)?.set(r.column_name, r.is_nullable === 'NO');
      }
      for (const [table, columns] of sqlite.columns)
        expect({ table, columns: pg.get(table) }).toEqual({ table, columns });
      expect([...pg.keys()].filter((t) => !sqlite.columns.has(t)).sort()).toEqual([
        'company_leases',
        'file_claims',
        'nodes',
        'schema_version',
      ]);
      const pgIndexes = await db.all<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()`,
      );
      const names = new Set(pgIndexes.map((i) => i.indexname));
      for (const name of sqlite.indexes) expect(names).toContain(name);
      const def = (name: string): string =>
        pgIndexes.find((i) => i.indexname === name)?.indexdef ?? '';
      expect(def('documents_due')).toMatch(
        /\(company, next_attempt_at, id\) WHERE \(state = 'pending'::text\)/,
      );
      expect(def('files_unsettled')).toMatch(
        /WHERE \(\(report_state <> 'final'::text\) OR \(archived_path IS NULL\)\)/,
      );
      expect(def('documents_attention')).toMatch(
        /WHERE \(state = ANY \(ARRAY\['in-doubt'::text, 'failed'::text\]\)\)/,
      );
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('enforces the same CHECKs and keeps file_counts by trigger, as the SQLite ledger does', async () => {
    const database = await createDatabase();
    const db = openPostgresExecutor(database.url);
    try {
      await migratePostgres(db);
      const file = await db.get<{
        id: number;
      }>(`INSERT INTO files(path, name, report_name, size, sha256, kind, company, state, started_at)
        VALUES ('/in/a.csv', 'a.csv', 'a', 10, 'abc', 'invoice', 'main', 'open', 1) RETURNING id`);
      const fileId = file?.id ?? 0;
      await db.run(
        `INSERT INTO documents(file_id, idx, company, kind, source, state, updated_at) VALUES (?, 0, 'main', 'invoice', 's', 'pending', 1)`,
        [fileId],
      );
      await db.run(`INSERT INTO file_counts(file_id, state, n) VALUES (?, 'pending', 1)`, [fileId]);
      await db.run(`UPDATE documents SET state = 'sending' WHERE file_id = ?`, [fileId]);
      await db.run(`UPDATE documents SET state = 'sending' WHERE file_id = ?`, [fileId]);
      await db.run(`UPDATE documents SET state = 'accepted' WHERE file_id = ?`, [fileId]);
      expect(
        await db.all('SELECT state, n FROM file_counts WHERE file_id = ? ORDER BY state', [fileId]),
      ).toEqual([
        { state: 'accepted', n: 1 },
        { state: 'pending', n: 0 },
        { state: 'sending', n: 0 },
      ]);
      await expect(
        db.run(`UPDATE documents SET state = 'lost' WHERE file_id = ?`, [fileId]),
      ).rejects.toThrow(/check constraint/);
      await expect(
        db.run(`UPDATE documents SET own_number = 2 WHERE file_id = ?`, [fileId]),
      ).rejects.toThrow(/check constraint/);
      await expect(
        db.run(`UPDATE files SET report_state = 'half' WHERE id = ?`, [fileId]),
      ).rejects.toThrow(/check constraint/);
      await expect(
        db.run(
          `INSERT INTO documents(file_id, idx, company, kind, source, state, updated_at) VALUES (?, 0, 'main', 'invoice', 's', 'pending', 1)`,
          [fileId],
        ),
      ).rejects.toThrow(/duplicate key/);
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('migrates exactly once when two nodes start at the same moment, and a second run finds nothing to do', async () => {
    const database = await createDatabase();
    const nodes = [
      openPostgresExecutor(database.url),
      openPostgresExecutor(database.url),
      openPostgresExecutor(database.url),
    ];
    try {
      const results = await Promise.all(
        nodes.map((db) => migratePostgres(db, `node-${nodes.indexOf(db)}`)),
      );
      expect(results.filter((r) => r.from === 0)).toHaveLength(1);
      expect(results.filter((r) => r.from === PG_SCHEMA_VERSION)).toHaveLength(2);
      expect(await nodes[0].all('SELECT version FROM schema_version ORDER BY version')).toEqual(
        Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
      );
      expect(await migratePostgres(nodes[1])).toEqual({
        from: PG_SCHEMA_VERSION,
        to: PG_SCHEMA_VERSION,
      });
      expect(await postgresSchemaVersion(nodes[2])).toBe(PG_SCHEMA_VERSION);
    } finally {
      await Promise.all(nodes.map((db) => db.close()));
      await database.drop();
    }
  });

  it('step 11 brings a version-10 ledger what a file refused whole keeps, its rows untouched', async () => {
    const database = await createDatabase();
    const db = openPostgresExecutor(database.url);
    try {
      // a ledger as the program before this step left it
      await db.transaction(async (tx) => {
        await tx.exec(
          'CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), program TEXT NOT NULL)',
        );
        for (let v = 0; v < 10; v++) {
          await tx.exec(PG_MIGRATIONS[v]);
          await tx.run(`INSERT INTO schema_version(version, program) VALUES (?, 'before')`, [
            v + 1,
          ]);
        }
        await tx.run(
          `INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, state, started_at)
          VALUES (1, '/inbox/invoice/ventas.csv', 'ventas.csv', 'ventas', 1, 'aaa', 'invoice', 'main', 'failed-read', 1000)`,
        );
      });
      expect(await migratePostgres(db)).toEqual({ from: 10, to: PG_SCHEMA_VERSION });
      expect(await db.all('SELECT id, state FROM files')).toEqual([
        { id: 1, state: 'failed-read' },
      ]);
      await db.run(
        `INSERT INTO refused_whole_documents(file_id, idx, company, kind, key)
        VALUES (1, 0, 'main', 'invoice', 'main/invoice/SETP/1')`,
      );
      expect(await db.all('SELECT file_id, key, erp_key FROM refused_whole_documents')).toEqual([
        { file_id: 1, key: 'main/invoice/SETP/1', erp_key: null },
      ]);
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('refuses a ledger of a newer version, and a failed step leaves the schema as it was', async () => {
    const database = await createDatabase();
    const db = openPostgresExecutor(database.url);
    try {
      expect(await postgresSchemaVersion(db)).toBe(0);
      await db.exec(`CREATE TABLE nodes (name TEXT PRIMARY KEY)`);
      // step 1 runs, step 2 fails on the table in its way: nothing of either stays
      await expect(migratePostgres(db)).rejects.toMatchObject({
        code: 'EDOC_LEDGER_MIGRATION',
        message: /nodes.*already exists/,
      });
      expect(await postgresSchemaVersion(db)).toBe(0);
      expect(await db.get(`SELECT to_regclass('files')::text AS t`)).toEqual({ t: null });
      await db.exec('DROP TABLE nodes');
      await migratePostgres(db);
      await db.run(`INSERT INTO schema_version(version, program) VALUES (?, 'future')`, [
        PG_SCHEMA_VERSION + 1,
      ]);
      await expect(migratePostgres(db)).rejects.toMatchObject({
        code: 'EDOC_LEDGER_MIGRATION',
        message: /newer than this program knows/,
      });
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
