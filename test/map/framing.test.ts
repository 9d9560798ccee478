/**
 * Framing: the header found below title lines, footer rows skipped by a rule, blank parent columns of a
 * one-to-many export filled down, and the guard that refuses an invoice whose item rows lost their key.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMapping, loadMapping } from '../../src/map/load-mapping.js';
import { mapping, readAll, tempFile } from './helpers.js';

const ERP = join(import.meta.dirname, '../fixtures/erp');

interface Line {
  Quantity: string;
  UnitPrice: string;
  NetAmount: string;
  Item: { Description: string };
}
interface Invoice {
  SerieNumber: string;
  Lines: Line[];
  Total: { GrossAmount: string; TaxableAmount: string; PayableAmount: string };
  TaxTotals: { TaxAmount: string }[];
}

describe('a one-to-many export with title lines, blank parent columns and a totals footer (Siigo style)', () => {
  it('finds the header below the title lines, fills the parent columns down and skips the footer', async () => {
    const m = await loadMapping(join(ERP, 'siigo-ventas.yaml'));
    const { source, docs } = await readAll(join(ERP, 'siigo-ventas-detallado.csv'), m, 'invoice');
    // rows as a spreadsheet shows them: 1-3 title lines, 4 blank, 5 header, 6-9 data, 10 footer
    expect(docs.map((d) => [d.key, d.source.rows, d.problems])).toEqual([
      ['SETP990000801', [6, 7, 8], []],
      ['SETP990000802', [9], []],
    ]);
    const first = docs[0].request as Invoice;
    expect(
      first.Lines.map((l) => [l.Item.Description, l.Quantity, l.UnitPrice, l.NetAmount]),
    ).toEqual([
      ['Café molido 500 g', '10', '12500.00', '125000.00'], // 10 × 12,500.00
      ['Azúcar 1 kg', '4', '3800.00', '15200.00'], //          4 × 3,800.00
      ['Arroz 5 kg', '2', '21000.00', '42000.00'], //          2 × 21,000.00
    ]);
    // VAT 19 % of 125,000.00 = 23,750.00; 5 % of 15,200.00 = 760.00; 0 % (exempt) = 0.00 -> 24,510.00
    // gross 125,000 + 15,200 + 42,000 = 182,200.00; payable 182,200.00 + 24,510.00 = 206,710.00
    // (the export's own Total column: 148,750 + 15,960 + 42,000 = 206,710.00)
    expect(first.Total).toEqual({
      GrossAmount: '182200.00',
      TaxableAmount: '182200.00',
      TotalBillableAmount: '206710.00',
      PayableAmount: '206710.00',
    });
    expect(first.TaxTotals).toEqual([{ TaxCategory: '01', TaxAmount: '24510.00' }]);
    // 1 × 12,500.00 + 19 % (2,375.00) = 14,875.00; both invoices: 221,585.00 = the footer's "Total general"
    expect((docs[1].request as Invoice).Total.PayableAmount).toBe('14875.00');
    // the retry file keeps the title lines, so it reads with the same mapping
    const text = await readFile(join(ERP, 'siigo-ventas-detallado.csv'), 'latin1');
    expect(source.header).toBe(
      text
        .split('\r\n')
        .slice(0, 5)
        .map((l) => `${l}\r\n`)
        .join(''),
    );
  });

  it('reads its own retry file (title lines + header + the failed document) with the same mapping', async () => {
    const m = await loadMapping(join(ERP, 'siigo-ventas.yaml'));
    const { source, docs } = await readAll(join(ERP, 'siigo-ventas-detallado.csv'), m, 'invoice');
    const retry = await tempFile('retry.csv', Buffer.from(source.header + docs[0].raw, 'latin1'));
    const again = await readAll(retry, m, 'invoice');
    expect(again.docs.map((d) => [d.key, d.source.rows, d.problems])).toEqual([
      ['SETP990000801', [6, 7, 8], []],
    ]);
    expect(again.docs[0].request).toEqual(docs[0].request);
  });

  it("never fills a row that has its own key: a new document does not borrow the one above's customer", async () => {
    const m = await loadMapping(join(ERP, 'siigo-ventas.yaml'));
    const text = [
      'Comprobante;Consecutivo;Fecha elaboración;Identificación;Nombre tercero;Código producto;Nombre producto;Cantidad;Valor unitario;% IVA',
      'SETP;990000811;20/11/2026;800.197.268-4;Distribuidora Andina S.A.S.;1;Café;1;100,00;19',
      'SETP;990000812;20/11/2026;;;1;Café;1;100,00;19', // its own key, no customer: refused, not Andina's
    ].join('\r\n');
    const { docs } = await readAll(await tempFile('v.csv', `${text}\r\n`), m, 'invoice');
    expect(docs[1].request).toBeUndefined();
    expect(docs[1].problems.map((p) => [p.code, p.column, p.rows])).toEqual([
      ['EDOC_MAP_REQUIRED', 'Identificación', [3]],
      ['EDOC_MAP_REQUIRED', 'Nombre tercero', [3]],
    ]);
  });

  it('says which header it looked for when the file has none of it', async () => {
    const m = await loadMapping(join(ERP, 'siigo-ventas.yaml'));
    const file = await tempFile(
      'x.csv',
      'Informe;;\r\nprefijo;numero;fecha\r\nSETP;1;20/11/2026\r\n',
    );
    await expect(readAll(file, m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_HEADER_NOT_FOUND',
      message: expect.stringContaining(
        'No row among the first 100 of x.csv holds every column of framing.findHeader ("Comprobante", "Consecutivo", "Nombre producto")',
      ),
    });
  });

  it('takes the header on a fixed row (headerRow) and numbers rows as the spreadsheet does', async () => {
    const m = compileMapping(
      {
        name: 'fixed',
        kinds: ['invoice'],
        framing: { headerRow: 3 },
        key: ['doc'],
        document: { SerieNumber: 'doc' },
        lines: { fields: { Quantity: { column: 'qty', as: 'number' } } },
      },
      'fixed.yaml',
    );
    const file = await tempFile(
      'f.csv',
      'Reporte,,\r\n"Generado por ERP, 20/11/2026",,\r\ndoc,qty\r\n7,2\r\n7,3\r\n',
    );
    const { source, docs } = await readAll(file, m, 'invoice');
    expect(source.delimiter).toBe(',');
    expect(docs.map((d) => [d.source.rows, d.request])).toEqual([
      [[4, 5], { SerieNumber: '7', Lines: [{ Quantity: '2' }, { Quantity: '3' }] }],
    ]);
    await expect(
      readAll(await tempFile('s.csv', 'a\r\nb\r\n'), m, 'invoice'),
    ).rejects.toMatchObject({ code: 'EDOC_MAP_HEADER_NOT_FOUND', context: { row: 3 } });
  });
});

/**
 * The silent wrong amount: a one-to-many export (parent columns only on the first row of an invoice)
 * read with a mapping that repeats nothing. On main the invoice was issued with only its first line
 * (125,000.00 + VAT instead of 182,200.00 + VAT) and the item rows became documents of their own.
 */
describe('an invoice whose item rows lost their key (no fill-down)', () => {
  const export_ = [
    'prefijo;numero;fecha;hora;cliente_tipo_doc;cliente_doc;cliente_nombre;linea;descripcion;cantidad;precio_unitario;iva',
    'SETP;990000801;20/11/2026;09:00:00;31;800.197.268-4;Distribuidora Andina S.A.S.;1;Café molido 500 g;10;12.500,00;19', // row 2
    ';;;;;;;2;Azúcar 1 kg;4;3.800,00;5', //                                                                                row 3
    ';;;;;;;3;Arroz 5 kg;2;21.000,00;0', //                                                                                row 4
    'SETP;990000802;20/11/2026;09:00:00;31;1.020.304.050;María Pérez;1;Café molido 500 g;1;12.500,00;19', //                row 5
  ].join('\r\n');

  it('is refused whole, naming its rows; the item rows are never documents of their own', async () => {
    const { docs } = await readAll(
      await tempFile('ventas.csv', `${export_}\r\n`),
      await mapping('sales'),
      'invoice',
    );
    expect(docs.map((d) => [d.key, d.source.rows, d.request === undefined])).toEqual([
      ['SETP990000801', [2, 3, 4], true],
      ['SETP990000802', [5], false],
    ]);
    expect(docs[0].problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_ROW_WITHOUT_KEY',
        rows: [2, 3, 4],
        column: 'prefijo+numero',
      }),
    ]);
    expect(docs[0].problems[0].message).toBe(
      'Rows 3, 4 carry line values but no document key (prefijo + numero); they continue document SETP990000801 of row 2, which is not sent without them: fill the key in on every row, or list the parent columns under framing.fillDown',
    );
  });

  it('is mapped whole once the mapping fills the parent columns down', async () => {
    const shipped = (await import('yaml')).parse(
      await readFile(join(import.meta.dirname, '../../config/mappings/sales.csv.yaml'), 'utf8'),
    ) as Record<string, unknown>;
    const m = compileMapping(
      {
        ...shipped,
        framing: {
          fillDown: ['fecha', 'hora', 'cliente_tipo_doc', 'cliente_doc', 'cliente_nombre'],
        },
      },
      'sales-fill-down.yaml',
    );
    const { docs } = await readAll(await tempFile('ventas.csv', `${export_}\r\n`), m, 'invoice');
    expect(docs.map((d) => [d.key, d.source.rows, d.problems])).toEqual([
      ['SETP990000801', [2, 3, 4], []],
      ['SETP990000802', [5], []],
    ]);
    // 182,200.00 gross (125,000 + 15,200 + 42,000) + 24,510.00 VAT (23,750 + 760 + 0) = 206,710.00
    expect((docs[0].request as Invoice).Total.PayableAmount).toBe('206710.00');
    expect((docs[0].request as Invoice).Lines).toHaveLength(3);
  });

  it('a keyless row with no line values above any document stays a document of its own, as before', async () => {
    const text = `${export_.split('\r\n')[0]}\r\n;;;;;;Nota sin clave;;;;;\r\n${export_.split('\r\n')[1]}\r\n`;
    const { docs } = await readAll(
      await tempFile('n.csv', text),
      await mapping('sales'),
      'invoice',
    );
    expect(docs.map((d) => [d.key, d.source.rows, d.problems[0]?.code])).toEqual([
      ['', [2], 'EDOC_MAP_REQUIRED'],
      ['SETP990000801', [3], undefined],
    ]);
  });
});
