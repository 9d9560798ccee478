/**
 * `edoc-bridge ledger copy` as a child process: a SQLite ledger with something of everything (written
 * through the real ledger API: test/fixtures/ledger/every-state.ts) copied into the harness's real
 * PostgreSQL and compared row by row, column by column; what it refuses (a second copy, a running
 * daemon, another schema version, values PostgreSQL cannot hold, schemas that differ) and that a
 * refused or failed copy leaves the PostgreSQL ledger empty; the password printed nowhere.
 */
import net from 'node:net';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { parse, stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { runCli, spawnCli, type CliRun } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  createProject,
  eventually,
  type Project,
} from '../helpers/daemon-harness.js';
import {
  adminQuery,
  createDatabase,
  describePg,
  pgUrl,
  type PgDatabase,
} from '../helpers/postgres.js';
import {
  everyStateFolder,
  fillEveryState,
  type EveryStateLedger,
} from '../fixtures/ledger/every-state.js';
import { holdLedger, killHard, tempDir } from '../ledger/helpers.js';

const projects: Project[] = [];
const databases: Awaited<ReturnType<typeof createDatabase>>[] = [];
let holder: ChildProcess | undefined;
/** The source every test copies from (read-only: the copy never writes it) and what was put in it. */
let sourceDir: string;
let filled: EveryStateLedger;

beforeAll(async () => {
  await buildCli();
  sourceDir = tempDir('edoc-copy-src-');
  const ledger = Ledger.open(sourceDir);
  try {
    filled = await fillEveryState(ledger, { documents: 700, perFile: 100, bodyBytes: 300 });
    // text the copy must carry exactly: an empty string beside NULLs, a 200 KB document
    const extra = await ledger.recordFile({
      path: '/inbox/main/invoice/big.json',
      name: 'big ñ.json',
      size: 1,
      sha256: 'big',
      kind: 'invoice',
      company: 'main',
      now: 1_750_000_100_000,
    });
    await ledger.insertDocuments(
      extra.fileId,
      [
        { index: 0, source: {}, ownNumber: false, request: { a: '' }, raw: '' },
        {
          index: 1,
          source: { rows: [2, 3], erpKey: 'SETP1' },
          ownNumber: false,
          request: { big: 'x'.repeat(200_000) },
          raw: `{"big":"${'x'.repeat(200_000)}"}`,
        },
      ],
      1_750_000_100_000,
    );
    // a file refused whole: its documents removed, what they were kept (a key, and a keyless one's ERP key)
    const refused = await ledger.recordFile({
      path: '/inbox/main/invoice/ventas.csv',
      name: 'ventas.csv',
      size: 1,
      sha256: 'refused',
      kind: 'invoice',
      company: 'main',
      now: 1_750_000_100_000,
    });
    await ledger.insertDocuments(
      refused.fileId,
      [
        { index: 0, source: {}, number: 'SETP/990000001', ownNumber: true, raw: '' },
        { index: 1, source: {}, ownNumber: false, raw: '', erpKey: '["0","SETP","990000002"]' },
      ],
      1_750_000_100_000,
    );
    await ledger.refuseWhole(
      refused.fileId,
      { code: 'EDOC_MAP_FORMAT_MISMATCH', message: 'ventas.csv row 4: …' },
      1_750_000_100_000,
    );
    // a note naming an invoice of a file still being read: it waits for that read's end
    const held = await ledger.recordFile({
      path: '/inbox/main/invoice/pendiente.csv',
      name: 'pendiente.csv',
      size: 1,
      sha256: 'pendiente',
      kind: 'invoice',
      company: 'main',
      now: 1_750_000_100_000,
    });
    await ledger.insertDocuments(
      held.fileId,
      [{ index: 0, source: {}, number: 'SETP/990000003', ownNumber: true, raw: '' }],
      1_750_000_100_000,
    );
    const notes = await ledger.recordFile({
      path: '/inbox/main/credit-note/nc.csv',
      name: 'nc.csv',
      size: 1,
      sha256: 'nc',
      kind: 'credit-note',
      company: 'main',
      now: 1_750_000_100_000,
    });
    await ledger.insertDocuments(
      notes.fileId,
      [
        {
          index: 0,
          source: {},
          number: 'NC/1',
          ownNumber: true,
          raw: '',
          references: ['SETP990000003'],
        },
      ],
      1_750_000_100_000,
    );
    // master data: two versions of a customers table, accents and an empty cell
    for (const [v, name] of [
      [1, 'Ferretería Andina'],
      [2, 'Ferretería Andina S.A.S.'],
    ] as const) {
      await ledger.storeMasterVersion(
        {
          table: 'customers',
          file: `terceros-${v}.csv`,
          sha256: String(v).repeat(64),
          fileMtime: 1_750_000_000_000 + v,
          columns: ['name', 'email'],
          rows: new Map([
            ['900123456', [name, '']],
            ['79456123', ['Juan Gómez', 'j@g.example']],
          ]),
        },
        1_750_000_100_000,
      );
    }
  } finally {
    await ledger.close();
  }
}, 240_000);

afterEach(async () => {
  if (holder) await killHard(holder);
  holder = undefined;
});

afterAll(async () => {
  for (const p of projects) await p.remove();
  for (const db of databases) await db.drop();
});

async function database(): Promise<PgDatabase> {
  const db = await createDatabase();
  databases.push(db);
  return db;
}

/** A project whose configuration names `url` as ledger.url (none when undefined). */
async function project(url?: string): Promise<Project> {
  const p = await createProject({ baseUrl: 'embedded', companies: [COMPANY_MAIN] });
  projects.push(p);
  const config = parse(await readFile(p.configFile, 'utf8')) as Record<string, unknown>;
  if (url !== undefined) config.ledger = { url };
  await writeFile(p.configFile, stringify(config));
  return p;
}

/** `ledger copy` in a folder without a configuration, the password in PGPASSWORD. */
async function copy(db: PgDatabase, args: string[], from = sourceDir): Promise<CliRun> {
  const dir = tempDir('edoc-copy-cwd-');
  return runCli(
    { dir },
    ['ledger', 'copy', '--from', from, '--to', pgUrl(db.server, db.name, null), ...args],
    { env: { PGPASSWORD: db.server.password }, timeoutMs: 120_000 },
  );
}

function printed(run: CliRun): string {
  return `${run.stdout}\n${run.stderr}`;
}

const TABLES = [
  'files',
  'documents',
  'document_bodies',
  'file_counts',
  'events',
  'kv',
  'received',
  'resend_requests',
  'master_versions',
  'master_rows',
  'refused_whole_documents',
  'reference_waits',
];

/** Every row of a table, every column as text (NULL as null), in primary-key byte order, from both sides. */
async function bothSides(
  db: PgDatabase,
  table: string,
  from = sourceDir,
): Promise<{ sqlite: unknown[][]; pg: unknown[][] }> {
  const lite = new Database(path.join(from, 'ledger.sqlite'), { readonly: true });
  try {
    const columns = lite.prepare(`PRAGMA table_info(${table})`).all() as {
      name: string;
      type: string;
      pk: number;
    }[];
    const key = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const sqlite = lite
      .prepare(
        `SELECT ${columns.map((c) => `CAST(${c.name} AS TEXT)`).join(', ')} FROM ${table} ORDER BY ${key.map((k) => k.name).join(', ')}`,
      )
      .raw(true)
      .all() as unknown[][];
    const pgRows = await adminQuery(
      {
        text: `SELECT ${columns.map((c) => `${c.name}::text`).join(', ')} FROM ${table}
      ORDER BY ${key.map((k) => `${table}.${k.name}${k.type === 'TEXT' ? ' COLLATE "C"' : ''}`).join(', ')}`,
        rowMode: 'array',
      } as never,
      [],
      db.name,
    );
    return { sqlite, pg: pgRows.rows as unknown[][] };
  } finally {
    lite.close();
  }
}

async function rowCount(db: PgDatabase, table: string): Promise<number> {
  return Number((await adminQuery(`SELECT count(*) AS n FROM ${table}`, [], db.name)).rows[0].n);
}

describePg('edoc-bridge ledger copy', () => {
  test('copies every table, row and column exactly (documents in every state), sets the sequences, and a second copy is refused', async () => {
    expect(Object.values(filled.byState).every((n) => n > 0)).toBe(true);
    const db = await database();
    const run = await copy(db, []);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `into the PostgreSQL ledger postgres://${db.server.user}@${db.server.host}:${db.server.port}/${db.name} (schema migrated from version 0 to`,
    );
    expect(run.stdout).toMatch(
      /12 tables, [\d,]+ rows in [\d.]+ s \([\d,]+ rows\/s\); every table's row count and checksum agree/,
    );
    expect(printed(run)).not.toContain(db.server.password);
    for (const table of TABLES) {
      const { sqlite, pg } = await bothSides(db, table);
      expect(sqlite.length, table).toBeGreaterThan(0);
      expect(pg, table).toEqual(sqlite);
    }
    const states = await adminQuery(
      'SELECT state, count(*)::int AS n FROM documents GROUP BY state ORDER BY state',
      [],
      db.name,
    );
    expect(
      Object.fromEntries(states.rows.map((r: { state: string; n: number }) => [r.state, r.n])),
    ).toMatchObject(
      Object.fromEntries(Object.entries(filled.byState).filter(([state]) => state !== 'pending')),
    );
    // a new row takes the next id after the copied ones
    for (const table of ['files', 'documents', 'events', 'resend_requests']) {
      const max = Number(
        (await adminQuery(`SELECT max(id) AS m FROM ${table}`, [], db.name)).rows[0].m,
      );
      const next = Number(
        (
          await adminQuery(
            `SELECT nextval(pg_get_serial_sequence('${table}', 'id')) AS v`,
            [],
            db.name,
          )
        ).rows[0].v,
      );
      expect(next, table).toBe(max + 1);
    }

    const again = await copy(db, []);
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(
      new RegExp(
        `is not empty: it holds ${filled.files + 4} files, ${filled.documents + 4} documents, \\d+ document_bodies rows.*never merges two.*\\[EDOC_LEDGER_COPY_REFUSED\\]`,
      ),
    );
    expect(printed(again)).not.toContain(db.server.password);
  });

  test('with --config: from paths.state to ledger.url (the password from ${ENV}), never printed', async () => {
    const db = await database();
    const p = await project(
      `postgres://${db.server.user}:\${EDOC_PG_PASSWORD}@${db.server.host}:${db.server.port}/${db.name}`,
    );
    mkdirSync(p.stateDir, { recursive: true });
    copyFileSync(path.join(sourceDir, 'ledger.sqlite'), path.join(p.stateDir, 'ledger.sqlite'));
    const run = await runCli(p, ['ledger', 'copy'], {
      env: { EDOC_PG_PASSWORD: encodeURIComponent(db.server.password) },
      timeoutMs: 120_000,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain(
      `Copied the SQLite ledger ${path.join(p.stateDir, 'ledger.sqlite')}`,
    );
    expect(printed(run)).not.toContain(db.server.password);
    expect(await rowCount(db, 'documents')).toBe(filled.documents + 4);

    // nowhere to go: no --to and no ledger.url; and copy's options are not migrate's
    const plain = await project();
    const nowhere = await runCli(plain, ['ledger', 'copy', '--from', sourceDir]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain(
      'where to? give --to postgres://USER@HOST:PORT/DATABASE, or set ledger.url in the configuration',
    );
    const mixed = await runCli(plain, ['ledger', 'migrate', '--from', sourceDir]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--from is an option of ledger copy');
  });

  test('refuses while a daemon holds the state folder; --force-snapshot copies it as of one instant and says so', async () => {
    const dir = tempDir('edoc-copy-held-');
    holder = await holdLedger(dir, 4);
    const db = await database();
    const refused = await copy(db, [], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `in use by a running edoc-bridge \\(pid ${holder.pid}.*stop it first.*--force-snapshot.*\\[EDOC_LEDGER_COPY_REFUSED\\]`,
      ),
    );
    expect(await rowCount(db, 'documents').catch(() => 0)).toBe(0);
    const snapshot = await copy(db, ['--force-snapshot'], dir);
    expect(snapshot.code).toBe(0);
    expect(snapshot.stderr).toMatch(
      new RegExp(
        `^note: this is a snapshot of the ledger of a running edoc-bridge \\(pid ${holder.pid}`,
      ),
    );
    const { sqlite, pg } = await bothSides(db, 'documents', dir);
    expect(pg).toEqual(sqlite);
    expect(sqlite).toHaveLength(4);
  });

  test('refuses a ledger of another schema version, a missing ledger, and a schema that differs, naming what differs', async () => {
    const old = tempDir('edoc-copy-old-');
    copyFileSync(path.join(sourceDir, 'ledger.sqlite'), path.join(old, 'ledger.sqlite'));
    const lite = new Database(path.join(old, 'ledger.sqlite'));
    lite.pragma('user_version = 7');
    lite.close();
    const db = await database();
    const older = await copy(db, [], old);
    expect(older.code).toBe(2);
    expect(older.stderr).toMatch(
      /has schema version 7; this edoc-bridge copies version \d+\. Upgrade it first.*\[EDOC_LEDGER_COPY_REFUSED\]/,
    );
    const missing = await copy(db, [], path.join(old, 'nothing-here'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /There is no SQLite ledger at .*nothing-here.*\[EDOC_LEDGER_COPY_REFUSED\]/,
    );

    const extra = tempDir('edoc-copy-extra-');
    copyFileSync(path.join(sourceDir, 'ledger.sqlite'), path.join(extra, 'ledger.sqlite'));
    const widened = new Database(path.join(extra, 'ledger.sqlite'));
    widened.exec(
      'ALTER TABLE documents ADD COLUMN priority INTEGER; CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)',
    );
    widened.close();
    await adminQuery('CREATE TABLE leftovers (id BIGINT PRIMARY KEY)', [], db.name);
    await adminQuery(`ALTER TABLE leftovers OWNER TO ${db.server.user}`, [], db.name);
    const differ = await copy(db, [], extra);
    expect(differ.code).toBe(2);
    expect(differ.stderr).toContain('tables missing in PostgreSQL: notes');
    expect(differ.stderr).toContain('tables missing in the SQLite ledger: leftovers');
    expect(differ.stderr).toContain('columns missing in PostgreSQL: documents.priority');
    expect(differ.stderr).toContain('[EDOC_LEDGER_COPY_SCHEMA]');
    expect(await rowCount(db, 'documents')).toBe(0);
  });

  test('a value PostgreSQL text cannot hold (a NUL character) names its row and column; nothing is copied', async () => {
    const dir = tempDir('edoc-copy-nul-');
    const ledger = Ledger.open(dir);
    try {
      const file = await ledger.recordFile({
        path: '/inbox/main/pos/nul.jsonl',
        name: 'nul.jsonl',
        size: 1,
        sha256: 'nul',
        kind: 'pos',
        company: 'main',
        now: 1,
      });
      await ledger.insertDocuments(
        file.fileId,
        [
          { index: 0, source: {}, ownNumber: false, request: { a: 1 }, raw: '{"a":1}' },
          { index: 1, source: {}, ownNumber: false, request: { a: 2 }, raw: '{"a":"\u0000"}' },
        ],
        1,
      );
    } finally {
      await ledger.close();
    }
    const db = await database();
    const run = await copy(db, [], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /The SQLite ledger's document_bodies id=2, column raw, holds a NUL character.*nothing was copied \[EDOC_LEDGER_COPY_VALUE\]/,
    );
    for (const table of ['files', 'documents', 'document_bodies'])
      expect(await rowCount(db, table)).toBe(0);
  });

  test('a copy that does not read back as it was written is rolled back (a trigger altering rows in the target)', async () => {
    const db = await database();
    const url = pgUrl(db.server, db.name, null);
    // the schema first (ledger migrate, as an operator may run it before the copy), then the tampering trigger
    const migrated = await runCli(await project(url), ['ledger', 'migrate'], {
      env: { PGPASSWORD: db.server.password },
    });
    expect(migrated.code).toBe(0);
    await adminQuery(
      `CREATE FUNCTION tamper() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id = 7 THEN NEW.raw := NEW.raw || ' '; END IF; RETURN NEW; END $$;
      CREATE TRIGGER tamper BEFORE INSERT ON document_bodies FOR EACH ROW EXECUTE FUNCTION tamper()`,
      [],
      db.name,
    );
    const run = await copy(db, []);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /The copy differs from the SQLite ledger, rolled back: document_bodies: the checksums differ.*\[EDOC_LEDGER_COPY_VERIFY\]/,
    );
    expect(run.stderr).not.toMatch(/documents: the checksums differ/);
    for (const table of TABLES) expect(await rowCount(db, table)).toBe(0);
  });

  test('two copies at once into one database: exactly one copies, the other is refused', async () => {
    const second = tempDir('edoc-copy-second-');
    copyFileSync(path.join(sourceDir, 'ledger.sqlite'), path.join(second, 'ledger.sqlite'));
    const db = await database();
    const runs = await Promise.all([copy(db, []), copy(db, [], second)]);
    expect(runs.map((r) => r.code).sort()).toEqual([0, 2]);
    expect(runs.find((r) => r.code === 2)?.stderr).toMatch(
      /(is not empty|Another session holds the tables).*\[EDOC_LEDGER_COPY_REFUSED\]/,
    );
    expect(await rowCount(db, 'documents')).toBe(filled.documents + 4);
  });

  test('the connection cut mid-copy (pg_terminate_backend), then the copy SIGKILLed mid-copy: nothing committed, then it copies', async () => {
    const dir = tempDir('edoc-copy-cut-');
    await everyStateFolder(dir, { documents: 20_000, perFile: 2_000, bodyBytes: 1_000 });
    const db = await database();
    // the copy's session, once it inserts rows: its INSERTs quote the table's name, the migration's do not
    const whenInserting = async (act: (pid: number) => Promise<void>): Promise<void> => {
      for (;;) {
        const r = await adminQuery(
          `SELECT pid FROM pg_stat_activity
          WHERE datname = $1 AND application_name = 'edoc-bridge ledger copy' AND query LIKE 'INSERT INTO "%'`,
          [db.name],
        );
        if (r.rows.length > 0) return act(r.rows[0].pid as number);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const running = copy(db, [], dir);
    await whenInserting(async (pid) => {
      await adminQuery('SELECT pg_terminate_backend($1)', [pid]);
    });
    const run = await running;
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /The connection to the PostgreSQL ledger postgres:\/\/.* broke while in use.*\[EDOC_LEDGER_CONNECTION_LOST\]/,
    );
    expect(printed(run)).not.toContain(db.server.password);
    for (const table of TABLES) expect(await rowCount(db, table)).toBe(0);

    // killed outright: the server rolls back, and the lock it left in the state folder is a dead process's
    const killed = spawnCli({ dir }, [
      'ledger',
      'copy',
      '--from',
      dir,
      '--to',
      pgUrl(db.server, db.name),
    ]);
    await whenInserting(async () => {
      killed.process.kill('SIGKILL');
    });
    await killed.done;
    await eventually(
      async () =>
        (await rowCount(db, 'documents')) === 0 &&
        (
          await adminQuery(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'edoc-bridge ledger copy'`,
            [db.name],
          )
        ).rows[0].n === 0
          ? true
          : undefined,
      "the killed copy's session gone, nothing committed",
      30_000,
    );
    expect(existsSync(path.join(dir, 'edoc-bridge.lock'))).toBe(true);

    const again = await copy(db, [], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(await rowCount(db, 'documents')).toBe(20_000);
    expect(existsSync(path.join(dir, 'edoc-bridge.lock'))).toBe(false);
  }, 180_000);

  test('a --to that is not a postgres URL, and a --from that is not a ledger, are usage errors that quote neither', async () => {
    const db = await database();
    const bad = await runCli({ dir: tempDir() }, [
      'ledger',
      'copy',
      '--from',
      sourceDir,
      '--to',
      'mysql://root:Hunter2pass@db/x',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to must be a postgres:// URL, not mysql://');
    expect(bad.stderr).not.toContain('Hunter2pass');
    const notLedger = tempDir('edoc-copy-text-');
    await writeFile(path.join(notLedger, 'ledger.sqlite'), 'just some text\n');
    const run = await copy(db, [], notLedger);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /ledger\.sqlite is not a SQLite database, so not an edoc-bridge ledger \[EDOC_LEDGER_COPY_REFUSED\]/,
    );
    expect(existsSync(path.join(notLedger, 'edoc-bridge.lock'))).toBe(false);
  });

  test('no server at that address: exit 3, the password nowhere (--verbose too)', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const secret = 'S3cret-pass:word/x';
    const run = await runCli({ dir: tempDir() }, [
      'ledger',
      'copy',
      '--verbose',
      '--from',
      sourceDir,
      '--to',
      `postgres://someone:${encodeURIComponent(secret)}@127.0.0.1:${port}/nothing`,
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      `The PostgreSQL ledger postgres://someone@127.0.0.1:${port}/nothing could not be reached`,
    );
    expect(run.stderr).toContain('[EDOC_LEDGER_UNREACHABLE]');
    expect(printed(run)).not.toContain(secret);
    expect(printed(run)).not.toContain(encodeURIComponent(secret));
  });
});
