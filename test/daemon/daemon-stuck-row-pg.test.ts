/**
 * The running daemon on the PostgreSQL ledger (every file it records there is claimed, cluster/
 * file-claims.ts), with a mapping whose capture pattern backtracks without end on one row
 * (test/helpers/backtracking.ts): the export read beside the stuck one comes back `again` and its intake
 * is dropped from the ledger. That drop used to fail on the claim's foreign key, so the honest export was
 * never read again nor reported and stayed in the inbox. Now it is issued whole and once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildCli, COMPANY_MAIN } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, fileResources } from '../helpers/daemon-fixture.js';
import { POISON_NAME, salesCsv, writeBacktrackingMapping } from '../helpers/backtracking.js';
import { createDatabase, describePg } from '../helpers/postgres.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describePg('a row that backtracks, in a daemon on the PostgreSQL ledger', () => {
  const resources = fileResources();
  const made: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const db of made) await db.drop();
  }, 60_000);

  it('the export read beside the stuck one is read again and issued whole, once', async () => {
    const db = await createDatabase();
    made.push(db);
    const dir = await resources.tempDir('edoc-stuck-pg-');
    const mapping = writeBacktrackingMapping(dir);
    const { project, emulator } = await resources.daemonProject({
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 5_000, concurrency: 16 } }],
      kinds: { invoice: { mapping } },
      read: { stuckAfter: '2s' },
      ledger: { url: db.url },
    });
    const daemon = await resources.startDaemon(project);
    // 10,000 invoices: still being read when the other export is taken and its row stops the worker
    await project.drop('invoice', 'ventas-lote.csv', salesCsv(990950001, 10_000));
    await daemon.waitForLog((l) => l.msg === 'file taken' && l.file === 'ventas-lote.csv');
    await project.drop('invoice', 'ventas-nombre.csv', salesCsv(990960001, 4, { 3: POISON_NAME }));
    const stuck = await project.finalResult('invoice', 'ventas-nombre.csv', { timeoutMs: 30_000 });
    expect(stuck.error).toMatchObject({ code: 'EDOC_READ_STUCK' });
    const lot = await project.finalResult('invoice', 'ventas-lote.csv', { timeoutMs: 150_000 });
    expect(lot.error).toBeUndefined();
    expect(lot.counts).toMatchObject({ total: 10_000, accepted: 10_000 });
    // read again: the daemon said so, and no intake failed
    expect(
      daemon
        .logLines()
        .filter((l) => l.file === 'ventas-lote.csv' && l.code === 'EDOC_READ_WORKER'),
    ).toHaveLength(1);
    expect(daemon.logLines().filter((l) => l.msg === 'intake failed')).toEqual([]);
    // every invoice of it issued once, none of the refused export's
    const numbers = (await emulator.client.issued()).map((d) => d.documentNumber);
    expect(numbers).toHaveLength(10_000);
    expect(new Set(numbers).size).toBe(10_000);
    expect(numbers.filter((n) => String(n).startsWith('99096'))).toEqual([]);
    expect((await emulator.client.stats()).requests.E1).toEqual({ 200: 10_000 });
  }, 240_000);
});
