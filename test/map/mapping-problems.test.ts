import { describe, expect, it } from 'vitest';
import type { CsvSourceDocument } from '../../src/read/csv-source.js';
import { mapping, readAll, sale, tempFile, toCsv } from './helpers.js';

describe('problems an ERP user can act on', () => {
  let docs: CsvSourceDocument[];
  const byKey = (key: string): CsvSourceDocument => {
    const d = docs.find((x) => x.key === key);
    if (d === undefined) throw new Error(`no document ${key}`);
    return d;
  };

  it('maps a file where most documents have a problem, without stopping the others', async () => {
    const rows = [
      sale('1', '1'), //                                                   row 2
      sale('1', '2'), //                                                   row 3
      sale('2', '1', { fecha: '31/02/2026' }), //                          row 4
      sale('3', '1', { cantidad: 'dos' }), //                              row 5
      sale('4', '1', { cliente_tipo_doc: 'XX' }), //                       row 6
      sale('5', '1'), //                                                   row 7
      sale('5', '2', { cliente_nombre: 'Otra Empresa' }), //               row 8
      sale('6', '1', { iva: '19/5' }), //                                  row 9
      sale('7', '1', { iva: '19' }), //                                    row 10
      sale('7', '1', { iva: '5' }), //                                     row 11
      sale('8', '1', { descripcion: '' }), //                              row 12
      sale('9', '1', { precio_unitario: '1.23.456' }), //                  row 13
      sale('', '1'), // no key: continues SETP9, which is refused with it  row 14
      sale('10', '1'), //                                                  row 15
    ];
    docs = (await readAll(await tempFile('p.csv', toCsv(rows)), await mapping('sales'), 'invoice'))
      .docs;
    expect(docs.map((d) => d.key)).toEqual([
      'SETP1',
      'SETP2',
      'SETP3',
      'SETP4',
      'SETP5',
      'SETP6',
      'SETP7',
      'SETP8',
      'SETP9',
      'SETP10',
    ]);
    expect(byKey('SETP1').request).toBeDefined();
    expect(byKey('SETP10').request).toBeDefined();
    expect(docs.filter((d) => d.request === undefined)).toHaveLength(8);
    for (const d of docs) expect(d.request === undefined).toBe(d.problems.length > 0);
  });

  it('reports an unparsable date with its row, column and value', () => {
    expect(byKey('SETP2').problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_BAD_DATE',
        rows: [4],
        column: 'fecha',
        value: '31/02/2026',
        path: 'IssueDate',
      }),
      expect.objectContaining({
        code: 'EDOC_MAP_BAD_DATE',
        rows: [4],
        column: 'fecha',
        value: '31/02/2026',
        path: 'DueDate',
      }),
      expect.objectContaining({
        code: 'EDOC_MAP_BAD_DATE',
        rows: [4],
        column: 'fecha',
        value: '31/02/2026',
        path: 'PaymentMeans[0].DueDate',
      }),
    ]);
    expect(byKey('SETP2').problems[0].message).toContain('dd/MM/yyyy');
  });

  it('reports an unparsable number on the line it belongs to', () => {
    expect(byKey('SETP3').problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_BAD_NUMBER',
        rows: [5],
        column: 'cantidad',
        value: 'dos',
        path: 'Lines[0].Quantity',
      }),
    ]);
  });

  // (1.5, a number with a decimal point, refuses the whole file: format-mismatch.test.ts)
  it('refuses thousands separators that do not group by three (1.23.456 under decimal comma)', () => {
    expect(byKey('SETP9').problems).toEqual([
      expect.objectContaining({ code: 'EDOC_MAP_ROW_WITHOUT_KEY', rows: [13, 14] }),
      expect.objectContaining({
        code: 'EDOC_MAP_BAD_NUMBER',
        rows: [13],
        column: 'precio_unitario',
        value: '1.23.456',
        path: 'Lines[0].UnitPrice',
      }),
    ]);
  });

  it('reports a code the lookup table does not know', () => {
    expect(byKey('SETP4').problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_UNKNOWN_CODE',
        rows: [6],
        column: 'cliente_tipo_doc',
        value: 'XX',
        path: 'CustomerParty.Identification.DocumentType',
      }),
    ]);
  });

  it('reports rows of one document that disagree on a header field', () => {
    expect(byKey('SETP5').problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_INCONSISTENT',
        rows: [7, 8],
        column: 'cliente_nombre',
        value: 'Distribuidora Andina S.A.S. | Otra Empresa',
      }),
    ]);
  });

  it('reports a line with two VAT rates, in one cell or on two rows of the same line', () => {
    expect(byKey('SETP6').problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_MULTIPLE_VAT',
        rows: [9],
        column: 'iva',
        value: '19/5',
      }),
    ]);
    expect(byKey('SETP7').problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_MULTIPLE_VAT',
        rows: [10, 11],
        column: 'iva',
        value: '19 | 5',
      }),
    ]);
  });

  it('reports an empty required cell', () => {
    expect(byKey('SETP8').problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_REQUIRED',
        rows: [12],
        column: 'descripcion',
        value: '',
        path: 'Lines[0].Item.Description',
      }),
    ]);
  });

  it('never makes a row without a document key a document of its own: the document it continues is refused with it', () => {
    expect(docs.find((x) => x.key === '')).toBeUndefined();
    expect(byKey('SETP9').source.rows).toEqual([13, 14]);
    expect(byKey('SETP9').problems[0]).toEqual(
      expect.objectContaining({
        code: 'EDOC_MAP_ROW_WITHOUT_KEY',
        rows: [13, 14],
        column: 'prefijo+numero',
      }),
    );
    expect(byKey('SETP9').problems[0].message).toContain(
      'Row 14 carries line values but no document key (prefijo + numero); it continues document SETP9 of row 13',
    );
  });

  it('reports the same line number on two rows with the same rate as inconsistent', async () => {
    const rows = [sale('1', '1'), sale('1', '1')];
    const { docs: d } = await readAll(
      await tempFile('l.csv', toCsv(rows)),
      await mapping('sales'),
      'invoice',
    );
    expect(d[0].problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_INCONSISTENT',
        rows: [2, 3],
        column: 'linea',
        value: '1',
      }),
    ]);
  });

  it('reports a credit note without motivo as a required value', async () => {
    const rows = [sale('1', '1', { motivo: '', ref_documento: 'SETP990000101' })];
    const { docs: d } = await readAll(
      await tempFile('c.csv', toCsv(rows)),
      await mapping('sales'),
      'credit-note',
    );
    expect(d[0].problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_REQUIRED',
        rows: [2],
        column: 'motivo',
        path: 'ReasonCredit',
      }),
    ]);
  });
});

describe('amounts out of range', () => {
  it('reports an amount too large for exact cents on its document only', async () => {
    const rows = [
      sale('1', '1', { precio_unitario: '999.999.999.999.999.999,00' }),
      sale('2', '1'),
      sale('3', '1', { cantidad: '9.000.000.000', precio_unitario: '9.000.000.000,00' }),
    ];
    const { docs } = await readAll(
      await tempFile('big.csv', toCsv(rows)),
      await mapping('sales'),
      'invoice',
    );
    expect(docs.map((d) => [d.key, d.request === undefined])).toEqual([
      ['SETP1', true],
      ['SETP2', false],
      ['SETP3', true],
    ]);
    expect(docs[0].problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_BAD_NUMBER',
        rows: [2],
        column: 'precio_unitario',
      }),
    ]);
    expect(docs[2].problems).toEqual([
      expect.objectContaining({ code: 'EDOC_MAP_BAD_NUMBER', rows: [4] }),
    ]);
  });
});
