/**
 * Exports in two files (a mapping's `parts`) through the real daemon (a child process) and the
 * emulator over HTTP: SAP Business One's DTW `Documents` + `Document_Lines` with the shipped preset
 * config/mappings/erp/sap-b1-invoice.yaml (its wait shortened to 1.5 s for the test). Every issued
 * document is compared with figures computed by hand below (the arithmetic in the comments).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Project, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { runCli } from '../helpers/cli-runner.js';

const ROOT = path.join(import.meta.dirname, '../..');
const sample = (name: string): Promise<string> =>
  readFile(path.join(ROOT, 'examples/erp/sap-b1', name), 'utf8');

let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  const preset = await readFile(path.join(ROOT, 'config/mappings/erp/sap-b1-invoice.yaml'), 'utf8');
  const dir = await resources.tempDir();
  const mapping = path.join(dir, 'sap-b1-invoice.yaml');
  expect(preset).toContain('waitMs: 600000');
  await writeFile(mapping, preset.replace('waitMs: 600000', 'waitMs: 1500'));
  ({ emulator, project } = await resources.runningDaemon({
    kinds: { invoice: { mapping } },
  }));
}, 240_000);

interface Tax {
  TaxCategory: string;
  TaxPercentage?: string;
  TaxAmount: string;
}
interface Invoice {
  CustomerParty: { Name: string; Identification: { DocumentNumber: string } };
  Lines: {
    Quantity: string;
    UnitPrice: string;
    GrossAmount: string;
    NetAmount: string;
    TaxSubTotals?: Tax[];
  }[];
  TaxTotals?: Tax[];
  Total: { GrossAmount: string; TaxableAmount: string; PayableAmount: string };
}

function figures(r: Invoice): unknown {
  return {
    customer: [r.CustomerParty.Identification.DocumentNumber, r.CustomerParty.Name],
    lines: r.Lines.map((l) => [
      l.Quantity,
      l.UnitPrice,
      l.GrossAmount,
      l.NetAmount,
      (l.TaxSubTotals ?? []).map((t) => `${t.TaxCategory}@${t.TaxPercentage}=${t.TaxAmount}`),
    ]),
    taxes: (r.TaxTotals ?? []).map((t) => `${t.TaxCategory}=${t.TaxAmount}`),
    total: [r.Total.GrossAmount, r.Total.TaxableAmount, r.Total.PayableAmount],
  };
}

/** The sample with its folio numbers moved (each test issues its own numbers). */
async function sampleSet(shift: number): Promise<{ header: string; lines: string }> {
  const header = (await sample('Documents.csv'))
    .replace('990000301', String(990000301 + shift))
    .replace('990000302', String(990000302 + shift));
  return { header, lines: await sample('Document_Lines.csv') };
}

async function issued(numbers: string[]): Promise<Map<string, unknown>> {
  const docs = await emulator.client.documents({ kind: 'invoice', withRequest: true });
  return new Map(
    docs
      .filter((d) => numbers.includes(d.documentNumber))
      .map((d) => [d.documentNumber, figures(d.request as Invoice)]),
  );
}

describe('exports in two files through the daemon (SAP Business One preset)', () => {
  test('the header waits for its lines; the set is issued as one unit, one result.json, both parts archived', async () => {
    const set = await sampleSet(0);
    await project.drop('invoice', 'Documents.csv', set.header);
    // the header alone is never taken
    await sleep(800);
    expect(await emulator.client.documents({ kind: 'invoice' })).toEqual([]);
    await project.drop('invoice', 'Document_Lines.csv', set.lines);
    const result = await project.finalResult('invoice', 'Documents+Document_Lines.csv', {
      timeoutMs: 60_000,
    });
    expect(result.file).toBe('Documents+Document_Lines.csv');
    expect(result.documents.map((d) => [d.key, d.status, d.source])).toEqual([
      // rows of Document_Lines.csv (data from row 3: two header rows)
      ['main/invoice/SETP/990000301', 'accepted', { rows: [3, 4, 5] }],
      ['main/invoice/SETP/990000302', 'accepted', { rows: [6] }],
    ]);
    const byNumber = await issued(['SETP990000301', 'SETP990000302']);
    expect(byNumber.get('SETP990000301')).toEqual({
      customer: ['800197268', 'Distribuidora Andina S.A.S.'], // FederalTaxID "800197268-4" without its check digit
      lines: [
        // 10 × 12,500.00 = 125,000.00, no discount; IVA19: 19 % = 23,750.00
        ['10', '12500.00', '125000.00', '125000.00', ['01@19.00=23750.00']],
        // 4 × 21,900.00 = 87,600.00 − 10 % (8,760.00) = 78,840.00 = 4 × 19,710.00; IVA5: 5 % = 3,942.00
        ['4', '19710.00', '87600.00', '78840.00', ['01@5.00=3942.00']],
        // 2 × 45,000.00 = 90,000.00; IVAEX: exempt, 0 %
        ['2', '45000.00', '90000.00', '90000.00', ['01@0.00=0.00']],
      ],
      // IVA 23,750.00 + 3,942.00 + 0.00 = 27,692.00
      taxes: ['01=27692.00'],
      // 125,000.00 + 78,840.00 + 90,000.00 = 293,840.00; + 27,692.00 = 321,532.00
      total: ['293840.00', '293840.00', '321532.00'],
    });
    expect(byNumber.get('SETP990000302')).toEqual({
      customer: ['1020304050', 'Muñoz Peña, José'],
      lines: [
        // 1 × 12,500.00, no line discount, the document's 5 %: 625.00 → 11,875.00; IVA 19 % = 2,256.25
        ['1', '11875.00', '12500.00', '11875.00', ['01@19.00=2256.25']],
      ],
      taxes: ['01=2256.25'],
      // 11,875.00 + 2,256.25 = 14,131.25
      total: ['11875.00', '11875.00', '14131.25'],
    });
    // both parts archived, none left in the inbox; one report set, named after the set
    await expect.poll(() => readdir(project.inbox('invoice')), { timeout: 20_000 }).toEqual([]);
    const archive = await readdir(path.join(project.outbox('invoice'), 'archive'));
    expect(archive.sort()).toEqual(['Document_Lines.csv', 'Documents.csv']);
    expect(existsSync(path.join(project.outbox('invoice'), 'Documents.result.json'))).toBe(false);
  }, 120_000);

  test('a part waiting longer than waitMs is reported once and stays waiting; its partner completes it', async () => {
    const set = await sampleSet(100);
    const since = project.logLines().length;
    await project.drop('invoice', 'Document_Lines_7.csv', set.lines);
    const warning = await project.waitForLog((l) => l.code === 'EDOC_READ_SET_WAITING', {
      since,
      timeoutMs: 20_000,
    });
    expect(warning).toMatchObject({ file: 'Document_Lines_7.csv', waitsFor: 'header' });
    await sleep(2_000);
    // once, and nothing of it taken
    expect(
      project
        .logLines()
        .slice(since)
        .filter((l) => l.code === 'EDOC_READ_SET_WAITING'),
    ).toHaveLength(1);
    expect(await issued(['SETP990000401', 'SETP990000402'])).toEqual(new Map());
    // status beside the daemon lists it
    const shown = await runCli(project, ['status']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /^WAITING: Document_Lines_7\.csv \(company main, invoice\) waits since \d{4}-[^ ]+ for its header file \(EDOC_READ_SET_WAITING\)/m,
    );
    const json = JSON.parse((await runCli(project, ['status', '--json'])).stdout) as {
      waitingParts: unknown[];
    };
    expect(json.waitingParts).toMatchObject([
      { company: 'main', kind: 'invoice', file: 'Document_Lines_7.csv', waitsFor: 'header' },
    ]);
    await project.drop('invoice', 'Documents_7.csv', set.header);
    const result = await project.finalResult('invoice', 'Documents_7+Document_Lines_7.csv', {
      timeoutMs: 60_000,
    });
    expect(result.documents.map((d) => [d.key, d.status])).toEqual([
      ['main/invoice/SETP/990000401', 'accepted'],
      ['main/invoice/SETP/990000402', 'accepted'],
    ]);
    // no longer waiting
    await expect
      .poll(
        async () =>
          (
            JSON.parse((await runCli(project, ['status', '--json'])).stdout) as {
              waitingParts: unknown[];
            }
          ).waitingParts,
        { timeout: 10_000 },
      )
      .toEqual([]);
  }, 120_000);

  test('parts that do not join are refused whole, naming file, row and column', async () => {
    const set = await sampleSet(200);
    // a line of document 3, which the header file does not have (row 7 of the lines file)
    await project.drop('invoice', 'Documents_x.csv', set.header);
    await project.drop(
      'invoice',
      'Document_Lines_x.csv',
      `${set.lines}3,0,7702001,Café molido premium 500 g,1,12500,0,IVA19,01\n`,
    );
    const orphan = await project.finalResult('invoice', 'Documents_x+Document_Lines_x.csv', {
      timeoutMs: 60_000,
    });
    expect(orphan.error?.code).toBe('EDOC_READ_SET_JOIN');
    expect(orphan.error?.message).toContain('Document_Lines_x.csv row 7');
    expect(orphan.error?.message).toContain('ParentKey 3 has no header row in Documents_x.csv');
    expect(orphan.documents).toEqual([]);
    // a header row (row 4, RecordKey 2) no line joins
    await project.drop('invoice', 'Documents_y.csv', set.header);
    await project.drop(
      'invoice',
      'Document_Lines_y.csv',
      set.lines
        .split('\n')
        .filter((l) => !l.startsWith('2,'))
        .join('\n'),
    );
    const lonely = await project.finalResult('invoice', 'Documents_y+Document_Lines_y.csv', {
      timeoutMs: 60_000,
    });
    expect(lonely.error?.code).toBe('EDOC_READ_SET_JOIN');
    expect(lonely.error?.message).toContain('Documents_y.csv row 4');
    expect(lonely.error?.message).toContain('RecordKey 2 has no lines in Document_Lines_y.csv');
    expect(await issued(['SETP990000501', 'SETP990000502'])).toEqual(new Map());
  }, 120_000);

  test('the same two files again are a duplicate set; a change to either part makes a new set', async () => {
    const set = await sampleSet(300);
    await project.drop('invoice', 'Documents_r1.csv', set.header);
    await project.drop('invoice', 'Document_Lines_r1.csv', set.lines);
    const first = await project.finalResult('invoice', 'Documents_r1+Document_Lines_r1.csv', {
      timeoutMs: 60_000,
    });
    expect(first.counts).toMatchObject({ total: 2, accepted: 2 });
    // the same content under other names: the set's hash is over the parts' contents, not their names
    await project.drop('invoice', 'Documents_r2.csv', set.header);
    await project.drop('invoice', 'Document_Lines_r2.csv', set.lines);
    const again = await project.finalResult('invoice', 'Documents_r2+Document_Lines_r2.csv', {
      timeoutMs: 60_000,
    });
    expect(again.error?.code).toBe('EDOC_LEDGER_DUPLICATE_FILE');
    expect(again.sha256).toBe(first.sha256);
    // the lines part changed (a price): a new set, whose documents carry numbers issued with other content
    await project.drop('invoice', 'Documents_r3.csv', set.header);
    await project.drop(
      'invoice',
      'Document_Lines_r3.csv',
      set.lines.replace(',12500,0,IVA19', ',12600,0,IVA19'),
    );
    const changedLines = await project.finalResult(
      'invoice',
      'Documents_r3+Document_Lines_r3.csv',
      {
        timeoutMs: 60_000,
      },
    );
    expect(changedLines.sha256).not.toBe(first.sha256);
    expect(changedLines.error).toBeUndefined();
    expect(changedLines.documents.map((d) => [d.status, d.errors.map((e) => e.code)])).toEqual([
      // document 1's first line now 10 × 12,600.00: other content than issued under its number
      ['duplicate', ['EDOC_ISSUED_OTHER_CONTENT']],
      // document 2 unchanged (replace() changed the first 12500 only): the same content, a quiet duplicate
      ['duplicate', ['EDOC_LEDGER_DUPLICATE_KEY']],
    ]);
    // the header part changed alone (the customer's name): a new set too
    await project.drop(
      'invoice',
      'Documents_r4.csv',
      set.header.replace('Distribuidora Andina', 'Distribuidora Andes'),
    );
    await project.drop('invoice', 'Document_Lines_r4.csv', set.lines);
    const changedHeader = await project.finalResult(
      'invoice',
      'Documents_r4+Document_Lines_r4.csv',
      {
        timeoutMs: 60_000,
      },
    );
    expect([first.sha256, changedLines.sha256]).not.toContain(changedHeader.sha256);
    expect(changedHeader.error).toBeUndefined();
    expect(changedHeader.counts.total).toBe(2);
    // issued once each, with the first set's content
    expect([...(await issued(['SETP990000601', 'SETP990000602'])).keys()].sort()).toEqual([
      'SETP990000601',
      'SETP990000602',
    ]);
  }, 180_000);

  test('a refused document of a set: the other is issued; the retry file holds its joined rows', async () => {
    const set = await sampleSet(400);
    await project.drop('invoice', 'Documents_i.csv', set.header);
    // document 2's only line (row 6) names a tax code the preset's lookup does not know
    const lines = set.lines.replace(
      '\n2,0,7702001,Café molido premium 500 g,1,12500,0,IVA19,01',
      '\n2,0,7702001,Café molido premium 500 g,1,12500,0,IVA99,01',
    );
    expect(lines).not.toBe(set.lines);
    await project.drop('invoice', 'Document_Lines_i.csv', lines);
    const result = await project.finalResult('invoice', 'Documents_i+Document_Lines_i.csv', {
      timeoutMs: 60_000,
    });
    expect(result.documents.map((d) => [d.key, d.status, d.source])).toEqual([
      ['main/invoice/SETP/990000701', 'accepted', { rows: [3, 4, 5] }],
      // no request built, so no number of its own: known by its RecordKey
      [null, 'invalid', { rows: [6], erpKey: '2' }],
    ]);
    // one CSV under the joined header (the header file's columns, then the lines file's; DiscountPercent,
    // in both, qualified), then the refused document's row: its header row's cells and its line's
    const retry = await readFile(
      path.join(project.outbox('invoice'), 'Documents_i+Document_Lines_i.retry.csv'),
      'utf8',
    );
    expect(retry.split('\r\n')).toEqual([
      'RecordKey,DocNum,DocType,HandWritten,DocDate,DocDueDate,TaxDate,CardCode,CardName,FederalTaxID,NumAtCard,DocCurrency,Comments,header.DiscountPercent,FolioPrefixString,FolioNumber,' +
        'ParentKey,LineNum,ItemCode,ItemDescription,Quantity,UnitPrice,lines.DiscountPercent,TaxCode,WarehouseCode',
      '2,,dDocument_Items,tYES,20261118,20261118,20261118,C1020304050,"Muñoz Peña, José",1020304050,,COP,,5,SETP,990000702,' +
        '2,0,7702001,Café molido premium 500 g,1,12500,0,IVA99,01',
      '',
    ]);
  }, 120_000);

  test('a file that is no part of a set is refused, never read alone', async () => {
    await project.drop('invoice', 'facturas.csv', await sample('Documents.csv'));
    const result = await project.finalResult('invoice', 'facturas.csv', { timeoutMs: 30_000 });
    expect(result.error?.code).toBe('EDOC_READ_SET_NOT_A_PART');
    expect(result.documents).toEqual([]);
  }, 60_000);
});
