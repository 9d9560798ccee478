/**
 * A running daemon whose mapping takes the buyer's name through a pattern that backtracks without end on
 * a long run of `a`s (test/intake/intake-stuck.test.ts): the export with such a name is refused with
 * EDOC_READ_STUCK naming the file and row, after read.stuckAfter (2 s here), nothing of it sent; the
 * export dropped with it is issued whole and once; the daemon takes the next file. A daemon stopped
 * (SIGSTOP) for three times stuckAfter while it reads a file refuses nothing once it runs again.
 */
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  type DaemonProcess,
  type Project,
} from '../helpers/daemon-harness.js';
import { daemonTest as test, fileResources } from '../helpers/daemon-fixture.js';
import { POISON_NAME, salesCsv, writeBacktrackingMapping } from '../helpers/backtracking.js';

beforeAll(buildCli, 240_000);

describe('a mapping that backtracks on one row, in a running daemon', () => {
  let project: Project;
  let daemon: DaemonProcess;
  const resources = fileResources();

  beforeAll(async () => {
    const dir = await resources.tempDir('edoc-stuck-mapping-');
    const mapping = writeBacktrackingMapping(dir);
    ({ project } = await resources.daemonProject({
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 1_000, concurrency: 8 } }],
      kinds: { invoice: { mapping } },
      read: { stuckAfter: '2s' },
    }));
    daemon = await resources.startDaemon(project);
  }, 60_000);

  test('the export with that row is refused naming it; the one dropped with it and the next are issued', async () => {
    await Promise.all([
      project.drop('invoice', 'ventas-lote.csv', salesCsv(990400001, 300)),
      // data row 3 is the file's row 4
      project.drop('invoice', 'ventas-nombre.csv', salesCsv(990500001, 4, { 3: POISON_NAME })),
    ]);
    const stuck = await project.finalResult('invoice', 'ventas-nombre.csv', { timeoutMs: 30_000 });
    expect(stuck.error?.code).toBe('EDOC_READ_STUCK');
    expect(stuck.error?.message).toMatch(/^ventas-nombre\.csv: mapping row 4 took longer than 2 s/);
    expect(stuck.error?.message).not.toContain(POISON_NAME);
    const lot = await project.finalResult('invoice', 'ventas-lote.csv', { timeoutMs: 60_000 });
    expect(lot.counts).toMatchObject({ total: 300, accepted: 300 });
    const line = await daemon.waitForLog((l) => l.code === 'EDOC_READ_STUCK');
    expect(line).toMatchObject({ level: 'error', file: 'ventas-nombre.csv', row: 4 });
    await project.drop('invoice', 'ventas-despues.csv', salesCsv(990600001, 2));
    const after = await project.finalResult('invoice', 'ventas-despues.csv', { timeoutMs: 30_000 });
    expect(after.counts).toMatchObject({ total: 2, accepted: 2 });
    // none of the refused export's numbers was sent
    const sent = daemon.logLines().filter((l) => l.msg === 'document final');
    expect(sent.filter((l) => String(l.doc).includes('/99050000'))).toEqual([]);
    expect(sent.filter((l) => String(l.doc).includes('/99040'))).toHaveLength(300);
  }, 120_000);

  test('stopped for 6 s while it reads a file, then continued: nothing is refused', async () => {
    const before = daemon.logLines().length;
    await project.drop('invoice', 'ventas-pausa.csv', salesCsv(990700001, 3_000));
    await daemon.waitForLog((l) => l.msg === 'file taken' && l.file === 'ventas-pausa.csv');
    daemon.signal('SIGSTOP');
    await new Promise((r) => setTimeout(r, 6_000));
    daemon.signal('SIGCONT');
    const r = await project.finalResult('invoice', 'ventas-pausa.csv', { timeoutMs: 90_000 });
    expect(r.error).toBeUndefined();
    expect(r.counts).toMatchObject({ total: 3_000, accepted: 3_000 });
    const errors = daemon
      .logLines()
      .slice(before)
      .filter((l) => l.code === 'EDOC_READ_STUCK' || l.code === 'EDOC_READ_WORKER');
    expect(errors).toEqual([]);
  }, 120_000);
});
