/**
 * Master data across the nodes of a cluster: two nodes, each with its own MasterData on its own
 * connection to one real PostgreSQL ledger. The table one node loads from its folder is what the other
 * maps with, though its own folder is empty; an older export on the second node does not replace the
 * newer version; a newer one does, and the first node maps with it next.
 */
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { MasterData } from '../../src/intake/master-data.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { postgresBackend } from '../ledger/backends.js';
import { tempDir } from '../ledger/helpers.js';
import { describePg } from '../helpers/postgres.js';

const HEADER = 'Identificación;Razón social\n';

function node(ledger: Ledger, dir: string): { master: MasterData; folder: string; log: string } {
  const folder = path.join(dir, 'customers');
  const log = path.join(dir, 'node.log');
  const config = {
    masterData: {
      every: 60_000,
      tables: {
        customers: {
          folder,
          key: 'Identificación',
          columns: ['Razón social'],
          maxAge: 86_400_000,
          encoding: 'auto',
          delimiter: 'auto',
        },
      },
    },
    watch: { stableMs: 0 },
    read: { maxRecordBytes: 1_048_576 },
  } as unknown as Config;
  return {
    master: new MasterData({
      ledger,
      logger: createLogger({ file: log, level: 'info' }),
      config: () => config,
    }),
    folder,
    log,
  };
}

const mapping = { masterTables: { customers: ['Razón social'] } } as unknown as Mapping;

async function exportFile(
  folder: string,
  name: string,
  text: string,
  ageMs: number,
): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, name), text);
  const at = new Date(Date.now() - ageMs);
  await utimes(path.join(folder, name), at, at);
}

describePg('master data on the nodes of a cluster', () => {
  const backend = postgresBackend();
  const nodes: MasterData[] = [];
  afterAll(async () => {
    for (const n of nodes) await n.close();
  });

  test('one node loads the export; every node maps with the newest version', async () => {
    const place = await backend.place();
    const a = node(await backend.openAt(place), tempDir('edoc-node-a-'));
    const b = node(await backend.openAt(place), tempDir('edoc-node-b-'));
    nodes.push(a.master, b.master);
    await exportFile(
      a.folder,
      'terceros-27.csv',
      `${HEADER}900123456;Ferretería Andina S.A.S.\n`,
      60_000,
    );
    await a.master.lookNow();
    await b.master.lookNow(); // its folder is empty
    const onB = await b.master.tablesFor(mapping);
    expect(onB?.customers).toMatchObject({
      version: 1,
      file: 'terceros-27.csv',
      rows: { 900123456: ['Ferretería Andina S.A.S.'] },
    });

    // node B's folder holds an older export (a day before): the newer version in use stays
    await exportFile(
      b.folder,
      'terceros-26.csv',
      `${HEADER}900123456;Ferretería Andina\n`,
      86_400_000,
    );
    await b.master.lookNow();
    expect((await a.master.tablesFor(mapping))?.customers.version).toBe(1);
    expect(await readFile(b.log, 'utf8')).toContain(
      'master table: not taken, the version in use was exported later',
    );

    // a newer export on node B: version 2, and node A maps with it
    await exportFile(
      b.folder,
      'terceros-28.csv',
      `${HEADER}900123456;Ferretería Andina S.A.S.\n79456123;Juan Gómez\n`,
      1_000,
    );
    await b.master.lookNow();
    const onA = await a.master.tablesFor(mapping);
    expect(onA?.customers).toMatchObject({
      version: 2,
      file: 'terceros-28.csv',
      rows: { 79456123: ['Juan Gómez'] },
    });
  }, 120_000);
});
