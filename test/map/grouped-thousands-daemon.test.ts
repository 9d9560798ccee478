/**
 * A column read like whole amounts grouped in the other convention, through the real CLI (`validate`,
 * a child process) and the real daemon over the emulator: the shipped Siigo Nube and SAP Business One
 * presets (no thousands separator) given exports grouped in thousands with their decimal separator are
 * refused whole, naming the column and both fixes, and nothing reaches the emulator; a copy of the
 * preset that states the column's three decimals (`format.threeDecimals`) reads them. Figures by hand.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { siigoCsv, siigoInvoice } from './siigo-export.js';
import { tempFile } from './helpers.js';

const root = path.join(import.meta.dirname, '../..');
const run = promisify(execFile);
const preset = (name: string): string => path.join(root, 'config/mappings/erp', name);
const resources = fileResources();

interface Line {
  file?: string;
  source?: { rows: number[] };
  request?: { Lines: { Quantity: string }[]; Total: { PayableAmount: string } } | null;
  error?: {
    code: string;
    file: string;
    row: number;
    column: string;
    value: string;
    message: string;
  };
}

async function validate(args: string[]): Promise<{ code: number; lines: Line[] }> {
  const out = await run(process.execPath, ['bin/edoc-bridge.js', 'validate', ...args], {
    cwd: root,
    env: { ...process.env, EDOC_API_KEY: 'test-key' },
  })
    .then((r) => ({ code: 0, stdout: r.stdout }))
    .catch((e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }));
  const lines = out.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
  return { code: out.code, lines };
}

/** A copy of a preset whose format (no thousands separator) says `column` has three decimals. */
async function stating(name: string, column: string): Promise<string> {
  const yaml = await readFile(preset(name), 'utf8');
  const edited = yaml.replace(
    '  thousands: ""\n',
    `  thousands: ""\n  threeDecimals: [${column}]\n`,
  );
  expect(edited).not.toBe(yaml);
  return tempFile(name, edited);
}

/** An en-US export of whole pesos under Siigo Nube's decimal comma: 164,710 beside 98000. */
const EN_US = siigoCsv([
  siigoInvoice('990000701', [['1', '164,710']], '164,710'), // rows 2, 3
  siigoInvoice('990000702', [['2', '98000']], '196000'), // rows 4, 5
]);
/** Kilograms with three decimals: 2 × 10000,00 = 20000,00 and 1,375 × 8000,00 = 11000,00 (VAT 0 %). */
const KILOS = siigoCsv([
  siigoInvoice('990000711', [['2', '10000,00']], '20000,00'),
  siigoInvoice('990000712', [['1,375', '8000,00']], '11000,00'),
]);

/** SAP B1's sample lines with document 1's prices grouped with dots: 12.500 (12500) beside 500. */
async function sapGrouped(dir: string): Promise<[string, string]> {
  const header = path.join(dir, 'Documents.csv');
  const lines = path.join(dir, 'Document_Lines.csv');
  await writeFile(header, await readFile(path.join(root, 'examples/erp/sap-b1/Documents.csv')));
  const sample = await readFile(path.join(root, 'examples/erp/sap-b1/Document_Lines.csv'), 'utf8');
  const [names, sapNames] = sample.split('\n');
  await writeFile(
    lines,
    [
      names,
      sapNames,
      '1,0,7702001,Café molido premium 500 g,10,12.500,0,IVA19,01', // row 3
      '1,1,7702002,Sal refinada 500 g,4,500,0,IVAEX,01', // row 4
      '2,0,7702001,Café molido premium 500 g,1,12500,0,IVA19,01', // row 5
      '',
    ].join('\n'),
  );
  return [header, lines];
}

describe('validate', () => {
  beforeAll(async () => {
    await buildCli();
  }, 240_000);

  test('Siigo Nube: 164,710 beside 98000 ends with the file refused naming the column and both fixes', async () => {
    const file = await tempFile('ventas.csv', EN_US);
    const { code, lines } = await validate([
      file,
      '--kind',
      'invoice',
      '--mapping',
      preset('siigo-nube-invoice.yaml'),
    ]);
    expect(code).toBe(1);
    expect(lines.at(-1)).toMatchObject({
      file,
      error: {
        code: 'EDOC_MAP_FORMAT_MISMATCH',
        file: 'ventas.csv',
        row: 2,
        column: 'Valor unitario',
        value: '164,710',
      },
    });
    const message = lines.at(-1)!.error!.message;
    expect(message).toContain('row 4 holds "98000", a whole number written without a separator');
    expect(message).toContain('fix the mapping\'s format (decimal: ".", thousands: ",")');
    expect(message).toContain("say so in the mapping's format (threeDecimals: [Valor unitario])");
  }, 60_000);

  test('SAP B1, two files: 12.500 beside 500 under a decimal point is refused; stated, it is 12.5', async () => {
    const dir = path.dirname(await tempFile('x', ''));
    const [header, lines] = await sapGrouped(dir);
    const refused = await validate([
      lines,
      header,
      '--kind',
      'invoice',
      '--mapping',
      preset('sap-b1-invoice.yaml'),
    ]);
    expect(refused.code).toBe(1);
    // the lines file and its row: 12.500 on row 3, 500 on row 4
    expect(refused.lines.at(-1)!.error).toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      file: 'Document_Lines.csv',
      row: 3,
      column: 'UnitPrice',
      value: '12.500',
    });
    expect(refused.lines.at(-1)!.error!.message).toMatch(
      /"12\.500" reads as 12\.5 in the mapping's format \(decimal "\.", thousands ""\) and as 12500 with decimal ",", thousands "\.".*row 4 holds "500".*\(decimal: ",", thousands: "\."\).*\(threeDecimals: \[UnitPrice\]\)/,
    );
    const read = await validate([
      lines,
      header,
      '--kind',
      'invoice',
      '--mapping',
      await stating('sap-b1-invoice.yaml', 'UnitPrice'),
    ]);
    // document 1: 10 × 12.50 = 125.00 + 19 % = 23.75; 4 × 500 = 2000.00 at 0 %: 2148.75
    // document 2: 1 × 12500 − 5 % = 11875.00 + 19 % = 2256.25: 14131.25
    expect(read.lines.map((l) => [l.source?.rows, l.request?.Total.PayableAmount])).toEqual([
      [[3, 4], '2148.75'],
      [[5], '14131.25'],
    ]);
    expect(read.code).toBe(0);
  }, 60_000);
});

describe('the daemon', () => {
  test('Siigo Nube: the grouped export sends nothing; the stated three-decimal quantity is issued as 1.375', async () => {
    const { emulator, project } = await resources.daemonProject({
      kinds: {
        invoice: { mapping: await stating('siigo-nube-invoice.yaml', 'Cantidad producto') },
      },
    });
    await resources.startDaemon(project);
    await project.drop('invoice', 'ventas-en-us.csv', EN_US);
    const refused = await project.finalResult('invoice', 'ventas-en-us.csv', { timeoutMs: 60_000 });
    expect(refused.error).toMatchObject({ code: 'EDOC_MAP_FORMAT_MISMATCH' });
    expect(refused.error!.message).toMatch(
      /^ventas-en-us\.csv row 2, column "Valor unitario": "164,710" reads as 164\.71/,
    );
    expect(refused.counts.total).toBe(0);
    expect(refused.documents).toEqual([]);
    expect(await emulator.client.documents({ kind: 'invoice' })).toEqual([]);

    await project.drop('invoice', 'kilos.csv', KILOS);
    const read = await project.finalResult('invoice', 'kilos.csv', { timeoutMs: 60_000 });
    expect(read.documents.map((d) => [d.key, d.status])).toEqual([
      ['main/invoice/SETP/990000711', 'accepted'],
      ['main/invoice/SETP/990000712', 'accepted'],
    ]);
    const issued = await emulator.client.documents({ kind: 'invoice', withRequest: true });
    const figures = issued
      .map((d) => {
        const r = d.request as NonNullable<Line['request']>;
        return [d.documentNumber, r.Lines.map((l) => l.Quantity), r.Total.PayableAmount];
      })
      .sort();
    expect(figures).toEqual([
      ['SETP990000711', ['2'], '20000.00'],
      ['SETP990000712', ['1.375'], '11000.00'],
    ]);
  }, 120_000);
});
