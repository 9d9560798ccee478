/**
 * Row roles and filters (`rows:` and `$when` conditions): cancelled receipts skipped, a payment row that
 * supplies the document values, item rows as lines, zero debit rows skipped, and a rule that cannot
 * decide a row refusing its document instead of guessing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMapping, loadMapping } from '../../src/map/load-mapping.js';
import { compileCondition, evaluateCondition } from '../../src/map/row-condition.js';
import { readAll, tempFile } from './helpers.js';

const ERP = join(import.meta.dirname, '../fixtures/erp');
const FORMAT = { decimal: ',', thousands: '.' } as const;

interface Pos {
  documento: { formaPago: { codigoMedio: string }[]; cajaVenta: { codigoVenta: string } };
  detalles: { descripcion: string; unidades: string; valorUnitarioBruto: string }[];
  totales: Record<string, number>;
}

describe('a POS "receipts by item" export with a payment row and a cancelled receipt', () => {
  it('skips the cancelled receipt, takes the payment from the payment row and the lines from the item rows', async () => {
    const m = await loadMapping(join(ERP, 'pos-recibos-por-articulo.yaml'));
    const { docs } = await readAll(join(ERP, 'pos-recibos-por-articulo.csv'), m, 'pos');
    // receipt 1002 (rows 5-6, Estado "Cancelado") is no document at all
    expect(docs.map((d) => [d.key, d.source.rows, d.problems])).toEqual([
      ['1001', [2, 3, 4], []],
      ['1003', [7, 8], []],
    ]);
    const r1001 = docs[0].request as Pos;
    expect(r1001.documento.formaPago).toEqual([{ tipoPago: '1', codigoMedio: '10' }]); // "Efectivo" on the payment row
    expect(r1001.detalles.map((d) => [d.descripcion, d.unidades, d.valorUnitarioBruto])).toEqual([
      ['Café americano', '2', '4500.00'],
      ['Pan de bono', '3', '1200.00'],
    ]);
    // 2 × 4,500 = 9,000 (+19 % = 1,710); 3 × 1,200 = 3,600 (+5 % = 180): bruto 12,600, taxes 1,890, total 14,490
    expect(r1001.totales).toEqual({
      valorBruto: 12600,
      valorCargos: 0,
      valorDescuentos: 0,
      valorTotalSinImpuestos: 12600,
      valorTotalConImpuestos: 14490,
      valorNeto: 14490,
    });
    const r1003 = docs[1].request as Pos;
    expect(r1003.documento.formaPago).toEqual([{ tipoPago: '1', codigoMedio: '48' }]); // "Tarjeta"
    // 1 × 6,000 + 19 % (1,140) = 7,140
    expect(r1003.totales.valorNeto).toBe(7140);
  });

  it('refuses a receipt without a payment row, or with two, naming the rows', async () => {
    const m = await loadMapping(join(ERP, 'pos-recibos-por-articulo.yaml'));
    const text = [
      'Fecha;Hora;Número de recibo;Tipo de recibo;Artículo;REF;Cantidad;Precio;Impuesto;Tipo de pago;Estado',
      '20/11/2026;11:00:00;2001;Venta;Café americano;CAF-01;1;4.500,00;19;;Cerrado', // row 2: no payment row
      '20/11/2026;11:05:00;2002;Venta;Café americano;CAF-01;1;4.500,00;19;;Cerrado', // row 3
      '20/11/2026;11:05:00;2002;Venta;;;;;;Efectivo;Cerrado', //                         row 4
      '20/11/2026;11:05:00;2002;Venta;;;;;;Tarjeta;Cerrado', //                          row 5
    ].join('\r\n');
    const { docs } = await readAll(await tempFile('p.csv', `${text}\r\n`), m, 'pos');
    expect(docs.map((d) => [d.key, d.request, d.problems.map((p) => [p.code, p.rows])])).toEqual([
      // without a payment row the payment is also empty where the mapping requires it
      [
        '2001',
        undefined,
        [
          ['EDOC_MAP_DOCUMENT_ROW', [2]],
          ['EDOC_MAP_REQUIRED', [2]],
        ],
      ],
      // the two payment rows also disagree on "Tipo de pago" (a document column)
      [
        '2002',
        undefined,
        [
          ['EDOC_MAP_DOCUMENT_ROW', [4, 5]],
          ['EDOC_MAP_INCONSISTENT', [4, 5]],
        ],
      ],
    ]);
    expect(docs[0].problems[0].message).toBe(
      'No row of this document (row 2) matches rows.document, so its document values (payment, totals) have no row to come from',
    );
  });
});

/**
 * An accounting-movements export used for support documents, in the style of Siigo's "movimiento
 * contable" import/export template: one row per ledger entry, the purchase on debit rows and the
 * balancing credit (payable account, 0 debit) on its own row.
 */
describe('an accounting-movements export: zero debit rows are skipped', () => {
  const m = compileMapping(
    {
      name: 'movimientos',
      kinds: ['support-document'],
      key: [['Tipo de comprobante', 'Consecutivo comprobante']],
      rows: { skip: { column: 'Débito', zero: true } },
      document: { SeriePrefix: 'Tipo de comprobante', SerieNumber: 'Consecutivo comprobante' },
      lines: {
        fields: {
          Description: 'Descripción',
          Quantity: { const: '1' },
          UnitPrice: { column: 'Débito', as: 'decimal' },
        },
      },
    },
    'movimientos.yaml',
  );
  const header =
    'Tipo de comprobante;Consecutivo comprobante;Fecha de elaboración;Código cuenta contable;Identificación tercero;Descripción;Débito;Crédito';

  it('takes the debit rows as lines and leaves the credit rows out', async () => {
    const text = [
      header,
      'DS;101;20/11/2026;51351001;900.555.111;Mantenimiento aire acondicionado;350.000,00;0', //  row 2
      'DS;101;20/11/2026;51359501;900.555.111;Repuestos;120.000,00;', //                          row 3
      'DS;101;20/11/2026;23359501;900.555.111;Cuenta por pagar;0;470.000,00', //                  row 4: skipped
    ].join('\r\n');
    const { docs } = await readAll(await tempFile('m.csv', `${text}\r\n`), m, 'support-document');
    expect(docs.map((d) => [d.source.rows, d.request])).toEqual([
      [
        [2, 3],
        {
          SeriePrefix: 'DS',
          SerieNumber: '101',
          Lines: [
            {
              Description: 'Mantenimiento aire acondicionado',
              Quantity: '1',
              UnitPrice: '350000.00',
            },
            { Description: 'Repuestos', Quantity: '1', UnitPrice: '120000.00' },
          ],
        },
      ],
    ]);
  });

  it('refuses the document of a row the rule cannot read, naming the row, column and cell', async () => {
    const text = [
      header,
      'DS;102;20/11/2026;51351001;900.555.111;Servicio;350.000,00;0',
      'DS;102;20/11/2026;23359501;900.555.111;Cuenta por pagar;N/A;350.000,00',
    ].join('\r\n');
    const { docs } = await readAll(await tempFile('m.csv', `${text}\r\n`), m, 'support-document');
    expect(docs[0].request).toBeUndefined();
    expect(docs[0].problems[0]).toEqual(
      expect.objectContaining({
        code: 'EDOC_MAP_BAD_NUMBER',
        rows: [3],
        column: 'Débito',
        value: 'N/A',
      }),
    );
    expect(docs[0].problems[0].message).toBe(
      'Row 3: "N/A" in column "Débito" is not a number (decimal ",", thousands "."), so rows.skip cannot decide whether to skip the row',
    );
  });
});

describe('conditions on cells', () => {
  const holds = (cond: unknown, cells: Record<string, string>): unknown =>
    evaluateCondition(compileCondition(cond, 'test', 't.yaml'), (c) => cells[c] ?? '', FORMAT);

  it('equals and in compare trimmed text case-insensitively; not, all and any combine', () => {
    expect(holds({ column: 'estado', equals: 'cancelado' }, { estado: ' Cancelado ' })).toBe(true);
    expect(holds({ column: 'estado', in: ['Anulado', 'Cancelado'] }, { estado: 'Cerrado' })).toBe(
      false,
    );
    expect(holds({ not: { column: 'estado', in: ['Anulado'] } }, { estado: 'Cerrado' })).toBe(true);
    expect(holds({ all: ['a', { column: 'b', empty: true }] }, { a: 'x', b: ' ' })).toBe(true);
    expect(holds(['a', 'b'], { b: 'x' })).toBe(true);
    expect(
      holds({ column: 'comprobante', matches: '^total' }, { comprobante: 'TOTAL GENERAL' }),
    ).toBe(true);
  });

  it('filled is any text, 0 included; zero and nonZero read an amount, a blank cell being zero', () => {
    expect(holds({ column: 'horas', filled: true }, { horas: '0' })).toBe(true);
    expect(holds({ column: 'horas', nonZero: true }, { horas: '0' })).toBe(false);
    expect(holds({ column: 'horas', nonZero: true }, { horas: '0,00' })).toBe(false);
    expect(holds({ column: 'horas', nonZero: true }, { horas: '' })).toBe(false);
    expect(holds({ column: 'horas', nonZero: true }, { horas: '-1,5' })).toBe(true);
    expect(holds({ column: 'debito', zero: true }, { debito: '' })).toBe(true);
    expect(holds({ column: 'valor', gt: 1000 }, { valor: '1.000,01' })).toBe(true);
    expect(holds({ column: 'valor', le: 0.5 }, { valor: '0,5' })).toBe(true);
    expect(holds({ column: 'valor', lt: 0 }, { valor: '$ 12' })).toBe(false);
  });

  it('a number test on text that is no number is undecided, never a guess; a decided answer elsewhere wins', () => {
    expect(holds({ column: 'valor', nonZero: true }, { valor: 'abc' })).toEqual({
      column: 'valor',
      text: 'abc',
    });
    expect(
      holds(
        {
          any: [
            { column: 'valor', nonZero: true },
            { column: 'estado', equals: 'x' },
          ],
        },
        { valor: 'abc', estado: 'x' },
      ),
    ).toBe(true);
    expect(
      holds(
        {
          all: [
            { column: 'valor', nonZero: true },
            { column: 'estado', equals: 'x' },
          ],
        },
        { valor: 'abc', estado: 'y' },
      ),
    ).toBe(false);
  });

  it('a condition with no test, two tests or a bad pattern is refused when the mapping loads', () => {
    expect(() => compileCondition({ column: 'a' }, 'rows.skip', 't.yaml')).toThrow(
      'Mapping t.yaml: rows.skip: a condition on column "a" takes exactly one of equals, in, empty, filled, matches, zero, nonZero, gt, ge, lt, le (found none)',
    );
    expect(() =>
      compileCondition({ column: 'a', empty: true, filled: true }, 'rows.skip', 't.yaml'),
    ).toThrow('(found empty, filled)');
    expect(() => compileCondition({ column: 'a', matches: '(' }, 'rows.skip', 't.yaml')).toThrow(
      'rows.skip.matches: not a regular expression',
    );
    expect(() => compileCondition({ column: 'a', equal: 'x' }, 'rows.skip', 't.yaml')).toThrow(
      /rows\.skip: Unrecognized key/,
    );
  });

  it('$when with a nonZero condition leaves out an overtime entry whose hours are 0; $when: column keeps it', async () => {
    const base = { name: 'w', kinds: ['payroll'], key: ['id'] };
    const overtime = (when: unknown): ReturnType<typeof compileMapping> =>
      compileMapping(
        {
          ...base,
          document: {
            Id: 'id',
            HEDs: [{ $when: when, Cantidad: { column: 'horas', as: 'number' } }],
          },
        },
        'w.yaml',
      );
    const file = await tempFile('w.csv', 'id;horas\r\n1;0\r\n2;2,5\r\n');
    const byColumn = (await readAll(file, overtime('horas'), 'payroll')).docs.map((d) => d.request);
    const byAmount = (
      await readAll(file, overtime({ column: 'horas', nonZero: true }), 'payroll')
    ).docs.map((d) => d.request);
    expect(byColumn).toEqual([
      { Id: '1', HEDs: [{ Cantidad: '0' }] },
      { Id: '2', HEDs: [{ Cantidad: '2.5' }] },
    ]);
    expect(byAmount).toEqual([{ Id: '1' }, { Id: '2', HEDs: [{ Cantidad: '2.5' }] }]);
  });
});
