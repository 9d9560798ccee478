/**
 * Outsider's attacks on the amounts the presets issue, each through `edoc-bridge submit` on a real
 * project and the emulator over HTTP: what the emulator stored is compared with what the export meant.
 *
 * Odoo, a tax named otherwise than the preset's `IVA <rate>%` ("IVA Ventas 19%"): the preset reads no
 * VAT for that line; with the export's totals it is caught by the reconciliation, but an export without
 * the totals columns was issued with the VAT left out:
 *   meant:  10 × 12,500.00 = 125,000.00 + 19 % 23,750.00; 4 × 21,900.00 = 87,600.00 + 5 % 4,380.00
 *           = 212,600.00 + 28,130.00 = 240,730.00
 *   issued: 212,600.00 + 4,380.00 = 216,980.00 (the 23,750.00 of VAT dropped)
 * Odoo with `currency_id` USD: the preset sent Currency COP whatever the export said, so a dollar
 * invoice of 240,730.00 was issued as 240,730.00 pesos.
 * Siigo Nube's template with a product row whose `Código producto` was left blank and a payment row
 * without its value: the row was neither a line (`rows.lines`) nor the payment row, dropped without a
 * word, and nothing reconciled: 990000501 was issued at 142,800.00, not 180,600.00 (3 × 12,000.00 +
 * 5 % = 37,800.00 left out).
 * Siigo Nube's template in another currency (`Sigla Moneda` USD, `Tasa de cambio` 4000): the request
 * carries no exchange rate, and the preset issued the invoice as USD 188,000.00 with the rate dropped.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli, type ResultJson } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

const root = path.join(import.meta.dirname, '../..');
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** `submit` of one export with a preset for the invoice kind; what the emulator stored, and the result. */
async function submitWith(preset: string, name: string, text: string) {
  const made = await resources.daemonProject({
    kinds: {
      invoice: { mapping: path.join(root, 'config/mappings/erp', preset) },
    },
  });
  const file = path.join(made.project.dir, name);
  await writeFile(file, text);
  const run = await made.cli(['submit', file, '--kind', 'invoice'], {
    timeoutMs: 60_000,
  });
  const result = await made.project.result('invoice', name);
  const stored = await made.emulator.client.documents({
    kind: 'invoice',
    withRequest: true,
  });
  const issued = stored.map((d) => {
    const r = d.request as {
      SerieNumber: string;
      Currency: string;
      Total: { PayableAmount: string };
    };
    return [r.SerieNumber, r.Currency, r.Total.PayableAmount];
  });
  return { run, result, issued };
}

/** The Siigo Nube sample's header and the rows matching `which`, each changed by `change` (its cells). */
async function siigoExport(which: RegExp, change: (cells: string[]) => void): Promise<string> {
  const sample = await readFile(
    path.join(root, 'examples/erp/siigo-nube/siigo-facturas-venta.csv'),
  );
  const lines = sample.toString('latin1').split(/\r?\n/);
  const rows = lines
    .slice(1)
    .filter((l) => which.test(l))
    .map((l) => {
      const cells = l.split(';');
      change(cells);
      return cells.join(';');
    });
  return `${[lines[0], ...rows].join('\r\n')}\r\n`;
}

/** Each document's status and its errors' code, export column and message. */
function outcomes(result: ResultJson | undefined): unknown[] {
  return (result?.documents ?? []).map((d) => [
    d.status,
    d.errors.map((e) => [e.code, e.field, e.message]),
  ]);
}

const ODOO_HEADER =
  'name,partner_id,partner_id/vat,partner_id/l10n_latam_identification_type_id,partner_id/email,' +
  'invoice_date,invoice_date_due,move_type,state,invoice_line_ids/product_id,invoice_line_ids/name,' +
  'invoice_line_ids/quantity,invoice_line_ids/price_unit,invoice_line_ids/discount,invoice_line_ids/tax_ids';
const ODOO_ROWS = [
  'SETP990000412,Distribuidora Andina S.A.S.,800197268-4,NIT,compras@andina.example,2026-11-18,2026-12-18,out_invoice,posted,[7702001] Café molido,Café molido 500 g,10.0,12500.0,0.0,IVA Ventas 19%',
  ',,,,,,,,,[7702002] Arroz blanco,Arroz blanco 5 kg,4.0,21900.0,0.0,IVA 5%',
];

describe('Odoo preset: an export without the totals the preset reconciles', () => {
  test('is refused naming the missing columns, never issued at 216,980.00 for 240,730.00', async () => {
    const csv = `${[ODOO_HEADER, ...ODOO_ROWS].join('\r\n')}\r\n`;
    const { run, result, issued } = await submitWith(
      'odoo-invoice.yaml',
      'odoo-sin-totales.csv',
      csv,
    );
    expect(issued).toEqual([]);
    expect(run.code).toBe(1);
    expect(result?.error).toMatchObject({
      code: 'EDOC_MAP_MISSING_COLUMN',
      message: expect.stringMatching(
        /^Columns "amount_total", "amount_untaxed", "invoice_line_ids\/price_subtotal" missing from the header of odoo-sin-totales\.csv/,
      ) as unknown,
    });
  }, 90_000);

  test('with the totals it states, the same export is refused by the reconciliation (control)', async () => {
    const csv =
      `${ODOO_HEADER},invoice_line_ids/price_subtotal,amount_untaxed,amount_total\r\n` +
      `${ODOO_ROWS[0]},125000.0,212600.0,240730.0\r\n${ODOO_ROWS[1]},87600.0,,\r\n`;
    const { result, issued } = await submitWith('odoo-invoice.yaml', 'odoo-con-totales.csv', csv);
    expect(issued).toEqual([]);
    expect(result?.documents.map((d) => [d.status, d.errors.map((e) => e.code)])).toEqual([
      ['invalid', ['EDOC_MAP_TOTAL_MISMATCH']],
    ]);
  }, 90_000);
});

describe('Odoo preset: an invoice in another currency', () => {
  test('currency_id USD is refused naming the column, never issued as COP 240,730.00', async () => {
    const csv =
      `${ODOO_HEADER},invoice_line_ids/price_subtotal,amount_untaxed,amount_total,currency_id\r\n` +
      `${ODOO_ROWS[0].replace('IVA Ventas 19%', 'IVA 19%')},125000.0,212600.0,240730.0,USD\r\n` +
      `${ODOO_ROWS[1]},87600.0,,,\r\n`;
    const { result, issued } = await submitWith('odoo-invoice.yaml', 'odoo-usd.csv', csv);
    expect(issued).toEqual([]);
    expect(outcomes(result)).toEqual([
      [
        'invalid',
        [
          [
            'EDOC_MAP_UNKNOWN_CODE',
            'currency_id',
            'Unknown code "USD" in column "currency_id" (lookup table "currencies")',
          ],
        ],
      ],
    ]);
  }, 90_000);
});

describe('Siigo Nube preset: an invoice in another currency', () => {
  async function siigoInvoice(currency: string, rate: string): Promise<string> {
    // invoice 990000502: 4 × 25,000.00 + INC 8 % = 108,000.00; 80,000.00 exempt; 188,000.00 on credit
    return siigoExport(/;990000502;/, (cells) => {
      cells[6] = currency; // Sigla Moneda
      cells[7] = rate; // Tasa de cambio
    });
  }

  test('USD with its exchange rate is refused naming Sigla Moneda, never issued as USD 188,000.00', async () => {
    const { result, issued } = await submitWith(
      'siigo-nube-invoice.yaml',
      'siigo-usd.csv',
      await siigoInvoice('USD', '4000'),
    );
    expect(issued).toEqual([]);
    expect(outcomes(result)).toEqual([
      [
        'invalid',
        [
          [
            'EDOC_MAP_UNKNOWN_CODE',
            'Sigla Moneda',
            expect.stringContaining('"USD" in column "Sigla Moneda"') as unknown,
          ],
        ],
      ],
    ]);
  }, 90_000);

  test('COP is issued at 188,000.00 (control)', async () => {
    const { issued } = await submitWith(
      'siigo-nube-invoice.yaml',
      'siigo-cop.csv',
      await siigoInvoice('COP', ''),
    );
    expect(issued).toEqual([['990000502', 'COP', '188000.00']]);
  }, 90_000);
});

describe('Siigo Nube preset: a product row without its product code', () => {
  test('refuses its invoice naming the row, never issues 142,800.00 for 180,600.00', async () => {
    // invoice 990000501: 2 × 50,000.00 − 10,000.00 + 30,000.00 at 19 %; 3 × 12,000.00 at 5 %: 180,600.00
    const text = await siigoExport(/;99000050[12];/, (cells) => {
      if (cells[13] === 'P-003') cells[13] = ''; // Código producto left blank
      if (cells[1] === '990000501' && cells[26] !== '') cells[27] = ''; // Valor Forma de Pago blank
    });
    const { result, issued } = await submitWith(
      'siigo-nube-invoice.yaml',
      'siigo-sin-codigo.csv',
      text,
    );
    expect(result?.documents.map((d) => [d.status, d.errors.map((e) => [e.code, e.rows])])).toEqual(
      [
        ['invalid', [['EDOC_MAP_DOCUMENT_ROW', [4]]]],
        ['accepted', []],
      ],
    );
    expect(issued).toEqual([['990000502', 'COP', '188000.00']]);
  }, 90_000);
});
