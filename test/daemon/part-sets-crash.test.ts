/**
 * Exactly-once for an export in two files: a SAP Business One set (the shipped preset) of 60
 * invoices is taken while the emulator answers 500s, 502s, resets and drops answers after it
 * committed, and the daemon is killed with SIGKILL at seeded moments and restarted. In the end every
 * folio was issued once, the set has one result.json (one ledger unit: not taken twice across the
 * restarts), and both parts are archived.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { mulberry32 } from '../../src/emulator/faults.js';
import { buildCli, COMPANY_MAIN, type DaemonProcess, sleep } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';

const ROOT = path.join(import.meta.dirname, '../..');
const FIRST = 990_000_601;
const DOCS = 60;

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** DTW Documents + Document_Lines: invoice k has two lines (1 × 10,000.00 IVA19, 2 × 5,000.00 IVAEX). */
function dtwSet(): { header: string; lines: string } {
  const header = [
    'RecordKey,DocDate,DocDueDate,CardName,FederalTaxID,DocCurrency,DiscountPercent,FolioPrefixString,FolioNumber',
    'RecordKey,DocDate,DocDueDate,CardName,LicTradNum,DocCur,DiscPrcnt,FolioPref,FolioNum',
    ...Array.from(
      { length: DOCS },
      (_, k) => `${k + 1},20261118,20261118,Cliente ${k + 1},800197268-4,COP,0,SETP,${FIRST + k}`,
    ),
  ];
  const lines = [
    'ParentKey,LineNum,ItemCode,ItemDescription,Quantity,UnitPrice,DiscountPercent,TaxCode',
    'DocNum,LineNum,ItemCode,Dscription,Quantity,PriceBefDi,DiscPrcnt,TaxCode',
    ...Array.from({ length: DOCS }, (_, k) => [
      `${k + 1},0,A1,Producto A,1,10000,0,IVA19`,
      `${k + 1},1,B2,Producto B,2,5000,0,IVAEX`,
    ]).flat(),
  ];
  return { header: `${header.join('\n')}\n`, lines: `${lines.join('\n')}\n` };
}

describe('an export in two files under crashes', () => {
  test('killed with SIGKILL 4 times mid-set: every folio issued once, one result.json, both parts archived', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: {
        errorRate: 0.1,
        badGatewayRate: 0.1,
        resetRate: 0.1,
        dropAfterCommitRate: 0.1,
        latencyMs: 5,
        randomSeed: 77,
      },
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 40, concurrency: 4 } }],
      retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 200 },
      kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/erp/sap-b1-invoice.yaml') } },
    });
    const set = dtwSet();
    await project.drop('invoice', 'Documents_crash.csv', set.header);
    await project.drop('invoice', 'Document_Lines_crash.csv', set.lines);
    const random = mulberry32(20261128);
    const SET = 'Documents_crash+Document_Lines_crash.csv';
    let daemon: DaemonProcess | undefined;
    let restartsMidSet = 0;
    for (let run = 0; run < 4; run++) {
      const since = project.logLines().length;
      daemon = await startDaemon();
      // killed mid-set: the first run once it took the set (while it reads it), the later ones once its
      // documents were released (read whole, or resumed from the ledger) while they are being sent
      const moments =
        run === 0 ? ['file taken'] : ['file read', 'resuming a file from an earlier run'];
      const seen = await project
        .waitForLog((l) => moments.includes(l.msg) && l.file === SET, {
          since,
          timeoutMs: 30_000,
        })
        .catch(() => undefined);
      if (seen === undefined) break; // settled and archived already: nothing left to take
      if (run > 0) restartsMidSet++;
      await sleep(Math.floor(random() * 400));
      await daemon.kill();
      daemon = undefined;
    }
    await emulator.client.setFaults({});
    daemon ??= await startDaemon();
    const result = await project.finalResult(
      'invoice',
      'Documents_crash+Document_Lines_crash.csv',
      {
        timeoutMs: 60_000,
      },
    );
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    // restarts found the set unfinished (killed mid-set), and one resumed it from the ledger
    expect(restartsMidSet).toBeGreaterThan(0);
    expect(
      project
        .logLines()
        .some((l) => l.msg === 'resuming a file from an earlier run' && l.file === SET),
    ).toBe(true);
    expect(result.counts).toMatchObject({
      total: DOCS,
      rejected: 0,
      invalid: 0,
      failed: 0,
      duplicate: 0,
    });
    expect(result.counts.accepted + result.counts.inDoubt).toBe(DOCS);
    expect(result.documents.map((d) => d.key)).toEqual(
      Array.from({ length: DOCS }, (_, k) => `main/invoice/SETP/${FIRST + k}`),
    );
    // every folio held once by the service; 10,000.00 + 19 % + 10,000.00 exempt = 21,900.00 each
    const issued = (await emulator.client.documents({ kind: 'invoice', withRequest: true })).filter(
      (d) => d.accepted,
    );
    expect(issued.map((d) => Number(d.number)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: DOCS }, (_, k) => FIRST + k),
    );
    for (const d of issued)
      expect((d.request as { Total: { PayableAmount: string } }).Total.PayableAmount).toBe(
        '21900.00',
      );
    // one report set for the set, both parts archived, the inbox empty
    const outbox = await readdir(project.outbox('invoice'));
    expect(outbox.filter((f) => f.endsWith('.result.json'))).toEqual([
      'Documents_crash+Document_Lines_crash.result.json',
    ]);
    expect((await readdir(path.join(project.outbox('invoice'), 'archive'))).sort()).toEqual([
      'Document_Lines_crash.csv',
      'Documents_crash.csv',
    ]);
    expect(await readdir(project.inbox('invoice'))).toEqual([]);
  }, 240_000);
});
