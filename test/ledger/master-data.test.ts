/**
 * Master-data tables in the ledger, on a real SQLite and a real PostgreSQL ledger: versions stored in
 * order with the file they came from, the same content not stored twice, rows read back by id, old
 * versions pruned, and what a second open (a restart, another node of a cluster) reads.
 */
import { expect, test } from 'vitest';
import { KEEP_VERSIONS } from '../../src/ledger/master-data.js';
import { describeBackends } from './backends.js';

const columns = ['name', 'email'];
const rowsOf = (entries: [string, string, string][]): Map<string, string[]> =>
  new Map(entries.map(([id, n, e]) => [id, [n, e]]));

describeBackends('master-data tables', ({ open, reopen }) => {
  test('versions in order with their file; same content not stored again; rows by id; another open reads the newest', async () => {
    const ledger = await open();
    expect(await ledger.latestMasterVersion('customers')).toBeUndefined();
    const v1 = await ledger.storeMasterVersion(
      {
        table: 'customers',
        file: 'terceros-1.csv',
        sha256: 'a'.repeat(64),
        fileMtime: 1_700_000_000_123,
        columns,
        rows: rowsOf([
          ['900123456', 'Ferretería Andina S.A.S.', 'compras@andina.example'],
          ['1020304050', 'Ana Pérez', ''],
        ]),
      },
      1_000,
    );
    expect(v1.stored).toMatchObject({
      table: 'customers',
      version: 1,
      file: 'terceros-1.csv',
      fileMtime: 1_700_000_000_123,
      loadedAt: 1_000,
      rowCount: 2,
    });
    const same = await ledger.storeMasterVersion(
      {
        table: 'customers',
        file: 'terceros-1-copy.csv',
        sha256: 'a'.repeat(64),
        fileMtime: 1_700_000_999_000,
        columns,
        rows: rowsOf([['900123456', 'x', 'y']]),
      },
      2_000,
    );
    expect(same.stored).toBeUndefined();
    expect(same.latest?.version).toBe(1);
    const v2 = await ledger.storeMasterVersion(
      {
        table: 'customers',
        file: 'terceros-2.csv',
        sha256: 'b'.repeat(64),
        fileMtime: 1_700_100_000_000,
        columns,
        rows: rowsOf([['900123456', 'Ferretería Andina S.A.S.', 'facturas@andina.example']]),
      },
      3_000,
    );
    expect(v2.stored?.version).toBe(2);
    // another table has versions of its own
    const s1 = await ledger.storeMasterVersion(
      {
        table: 'suppliers',
        file: 'prov.csv',
        sha256: 'c'.repeat(64),
        fileMtime: 5,
        columns: ['name'],
        rows: new Map([['800', ['Proveedor']]]),
      },
      3_000,
    );
    expect(s1.stored?.version).toBe(1);

    const t1 = await ledger.readMasterTable('customers', 1);
    expect(t1?.rows['1020304050']).toEqual(['Ana Pérez', '']);
    expect(t1?.columns).toEqual(columns);
    const t2 = await ledger.readMasterTable('customers', 2);
    expect(t2?.rows['900123456']).toEqual(['Ferretería Andina S.A.S.', 'facturas@andina.example']);
    expect(Object.keys(t2!.rows)).toEqual(['900123456']);
    await ledger.close();
    const again = await reopen(ledger);
    expect(await again.latestMasterVersion('customers')).toMatchObject({
      version: 2,
      file: 'terceros-2.csv',
      sha256: 'b'.repeat(64),
      rowCount: 1,
    });
    await again.close();
  });

  test(`only the newest ${KEEP_VERSIONS} versions are kept, with their rows`, async () => {
    const ledger = await open();
    // 450 rows: more than one insert statement's 200
    const many = new Map(
      Array.from({ length: 450 }, (_v, i) => [String(10_000 + i), [`Cliente ${i}`, '']]),
    );
    for (let v = 1; v <= 4; v++) {
      await ledger.storeMasterVersion(
        {
          table: 'employees',
          file: `nomina-${v}.csv`,
          sha256: String(v).repeat(64),
          fileMtime: v,
          columns,
          rows: many,
        },
        v,
      );
    }
    expect(await ledger.readMasterTable('employees', 1)).toBeUndefined();
    expect(await ledger.readMasterTable('employees', 2)).toBeUndefined();
    expect(Object.keys((await ledger.readMasterTable('employees', 3))!.rows)).toHaveLength(450);
    expect((await ledger.readMasterTable('employees', 4))!.rows['10449']).toEqual([
      'Cliente 449',
      '',
    ]);
    await ledger.close();
  });
  test('two stores at once (two nodes loading exports together): no error, no version twice, the newest is one of them', async () => {
    const ledger = await open();
    const store = (sha: string) =>
      ledger.storeMasterVersion({
        table: 'customers',
        file: `${sha}.csv`,
        sha256: sha.repeat(64),
        fileMtime: 1,
        columns,
        rows: rowsOf([['900123456', sha, '']]),
      });
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([store(`a${round}`), store(`b${round}`)]);
      const stored = [a.stored?.version, b.stored?.version].filter((v) => v !== undefined);
      expect(stored.length).toBeGreaterThan(0);
      expect(new Set(stored).size).toBe(stored.length);
      const latest = await ledger.latestMasterVersion('customers');
      expect(latest?.version).toBe(Math.max(...stored));
      expect(
        Object.values((await ledger.readMasterTable('customers', latest!.version))!.rows),
      ).toHaveLength(1);
    }
    await ledger.close();
  });
});
