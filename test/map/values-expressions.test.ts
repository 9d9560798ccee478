/**
 * Values: cell capture and split, a date and a time in one cell, exact arithmetic over columns, rates as
 * fractions, net prices from tax-inclusive ones; and the expression language's load errors and bounds.
 */
import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/map/load-mapping.js';
import { parse } from 'yaml';
import { invoiceTotals } from '../../src/validate/totals.js';
import {
  mapFile,
  mappingFrom,
  requestOf,
  SIIGO_COLUMNS,
  siigoSalesMapping,
} from './values-amounts-helpers.js';

/*
 * Imitates an Alegra-style sales export: the invoice number with its prefix in one cell ("FE-1205"), the date
 * and time in one cell, the customer's id with its type in one cell ("CC 79456123"), the customer's full name
 * surname first, prices tax-inclusive and the VAT rate as a fraction.
 *   line 1: 2 × 11.900,00 incl. VAT 0,19 → unit 11.900,00 / 1,19 = 10.000,00; net 20.000,00; VAT 3.800,00
 *   line 2: 1 ×  5.250,00 incl. VAT 0,05 → unit  5.250,00 / 1,05 =  5.000,00; net  5.000,00; VAT   250,00
 *   total 25.000,00 + 4.050,00 = 29.050,00
 */
const COLUMNS = 'Número;Fecha;Identificación;Cliente;Ítem;Cantidad;Precio (IVA incluido);IVA';
const CSV =
  [
    COLUMNS,
    'FE-1205;18/11/2026 3:45 p. m.;CC 79456123;GÓMEZ PÉREZ JUAN CARLOS;Camiseta algodón;2;11.900,00;0,19',
    'FE-1205;18/11/2026 3:45 p. m.;CC 79456123;GÓMEZ PÉREZ JUAN CARLOS;Libro;1;5.250,00;0,05',
  ].join('\r\n') + '\r\n';

const MAPPING = `
name: alegra-like
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [Número]
lookups:
  id-types: { CC: "13", NIT: "31", CE: "22" }
document:
  SeriePrefix: { column: Número, capture: '^(?<prefix>[A-Z]+)-(?<number>\\d+)$', required: true }
  SerieNumber: { column: Número, capture: { pattern: '^(?<prefix>[A-Z]+)-(?<number>\\d+)$', group: number }, required: true }
  IssueDate: { column: Fecha, as: datetime, required: true }
  Currency: { const: COP }
  IssuerParty:
    Identification: { company: identification }
  CustomerParty:
    Identification:
      DocumentType: { column: Identificación, split: { on: " ", part: 1 }, lookup: id-types, required: true }
      DocumentNumber: { column: Identificación, split: { on: " ", part: 2, rest: true }, as: id-number, required: true }
      CountryCode: { const: CO }
    Name: { column: Cliente, capture: '^(?<surnames>\\S+ \\S+) (?<given>.+)$', required: true }
lines:
  fields:
    Number: { position: true }
    Quantity: { column: Cantidad, as: number, required: true }
    UnitPrice: { expr: 'round([Precio (IVA incluido)] / (1 + IVA), 2)', as: decimal, required: true }
    Item:
      Description: { column: Ítem, required: true }
derive:
  - name: sales-totals
    inputs:
      vat: { column: IVA, as: fraction }
`;

describe('values taken from part of a cell, and computed', () => {
  it('maps the Alegra-style export: prefix and number, date and time, id type and number, net from tax-inclusive prices', async () => {
    const [doc] = await mapFile(CSV, await mappingFrom(MAPPING), 'invoice');
    expect(doc.problems).toEqual([]);
    const r = requestOf(doc);
    expect([r.SeriePrefix, r.SerieNumber, r.IssueDate]).toEqual([
      'FE',
      '1205',
      '2026-11-18T15:45:00',
    ]);
    expect(r.CustomerParty.Identification).toEqual({
      DocumentType: '13',
      DocumentNumber: '79456123',
      CountryCode: 'CO',
    });
    expect(r.CustomerParty.Name).toBe('GÓMEZ PÉREZ');
    expect(
      r.Lines.map(
        (l: {
          UnitPrice: string;
          NetAmount: string;
          TaxSubTotals: { TaxPercentage: string; TaxAmount: string }[];
        }) => [
          l.UnitPrice,
          l.NetAmount,
          l.TaxSubTotals[0].TaxPercentage,
          l.TaxSubTotals[0].TaxAmount,
        ],
      ),
    ).toEqual([
      ['10000.00', '20000.00', '19.00', '3800.00'],
      ['5000.00', '5000.00', '5.00', '250.00'],
    ]);
    expect(r.Total.PayableAmount).toBe('29050.00');
    expect(invoiceTotals(r)).toEqual([]);
  });

  it('a cell that does not match the pattern is a problem naming column and row, never a guess', async () => {
    const csv = CSV.replace(/FE-1205/g, 'FE 1205');
    const [doc] = await mapFile(csv, await mappingFrom(MAPPING), 'invoice');
    expect(doc.request).toBeUndefined();
    expect(doc.problems.map((p) => [p.code, p.column, p.rows])).toContainEqual([
      'EDOC_MAP_NO_MATCH',
      'Número',
      [2, 3],
    ]);
  });

  it('as: time and the time: column of a datetime read 12-hour times with AM/PM as a one-cell datetime does', async () => {
    const yaml = `
name: times
kinds: [invoice]
format: { delimiter: ";", date: dd/MM/yyyy }
key: [n]
document:
  SeriePrefix: { column: Hora, as: time }
  IssueDate: { column: Fecha, as: datetime, time: Hora }
`;
    const csv =
      [
        'n;Fecha;Hora',
        '1;18/11/2026;12:05 AM',
        '2;18/11/2026;12:30 PM',
        '3;18/11/2026;3:45 p. m.',
        '4;18/11/2026;11:59:59 pm',
        '5;18/11/2026;9:15 a.m.',
        '6;18/11/2026;21:15',
        '7;18/11/2026;13:00 PM',
        '8;18/11/2026;0:30 AM',
      ].join('\r\n') + '\r\n';
    const docs = await mapFile(csv, await mappingFrom(yaml), 'invoice');
    // 12:05 AM is five past midnight; 12:30 PM half past noon; 3:45 p. m. = 3 + 12 = 15:45; 11:59:59 pm = 23:59:59;
    // 9:15 a.m. stays 09:15; a 24-hour time is read as before
    expect(docs.slice(0, 6).map((d) => [requestOf(d).SeriePrefix, requestOf(d).IssueDate])).toEqual(
      [
        ['00:05:00', '2026-11-18T00:05:00'],
        ['12:30:00', '2026-11-18T12:30:00'],
        ['15:45:00', '2026-11-18T15:45:00'],
        ['23:59:59', '2026-11-18T23:59:59'],
        ['09:15:00', '2026-11-18T09:15:00'],
        ['21:15:00', '2026-11-18T21:15:00'],
      ],
    );
    // a 12-hour clock has no hour 13 and no hour 0: refused, naming the column and the row
    for (const [doc, row] of [
      [docs[6], 8],
      [docs[7], 9],
    ] as const) {
      expect(doc.request).toBeUndefined();
      expect(doc.problems.map((p) => [p.code, p.column, p.rows])).toEqual([
        ['EDOC_MAP_BAD_DATE', 'Hora', [row]],
        ['EDOC_MAP_BAD_DATE', 'Hora', [row]],
      ]);
    }
  });

  it('arithmetic is exact: round half-up, abs, negate, min/max, if/else, coalesce over blank cells', async () => {
    // Precio 10,005 → round(10,005, 2) = 10,01 (half-up; binary floating point gives 10,00); a price with
    // three decimals, said so in the format (else 10,005 could be 10005 grouped: column-numbers.ts)
    // Descuento blank → coalesce(Descuento, 0) = 0; Saldo -3,5 → abs = 3,50; -(-3,5) = 3,50
    // max(1,5; 2,25) = 2,25; min = 1,5; if(Tipo = 'NC', -1, 1) = -1 for NC
    const yaml = `
name: arithmetic
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: ".", threeDecimals: [Precio] }
key: [n]
document:
  SeriePrefix: { expr: 'round(Precio, 2)', as: decimal }
  SerieNumber: { expr: 'coalesce(Descuento, 0) + abs(Saldo) + -(Saldo)', as: decimal }
  Currency: { expr: 'max(A, B) * 2 - min(A, B)', as: number }
  OperationType: { expr: "if(Tipo = 'NC', -1, 1) * 7 / 2", as: number }
`;
    const csv = 'n;Precio;Descuento;Saldo;A;B;Tipo\r\n1;10,005;;-3,5;1,5;2,25;NC\r\n';
    const [doc] = await mapFile(csv, await mappingFrom(yaml), 'invoice');
    // SerieNumber: 0 + 3,5 + 3,5 = 7,00; Currency: 2,25 × 2 − 1,5 = 3; OperationType: −1 × 7 / 2 = −3,5
    expect(doc.request).toEqual({
      SeriePrefix: '10.01',
      SerieNumber: '7.00',
      Currency: '3',
      OperationType: '-3.5',
    });
  });

  it('a blank cell in arithmetic leaves the value empty (required reports it); a division by zero names the expression', async () => {
    const yaml = `
name: blanks
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: "." }
key: [n]
document:
  SeriePrefix: { expr: 'Cantidad * Precio', as: decimal, required: true }
  SerieNumber: { expr: 'Precio / Cantidad', as: decimal }
`;
    const [blank, zero] = await mapFile(
      'n;Cantidad;Precio\r\n1;;100\r\n2;0;100\r\n',
      await mappingFrom(yaml),
      'invoice',
    );
    expect(blank.problems.map((p) => p.code)).toEqual(['EDOC_MAP_REQUIRED']);
    expect(zero.problems.map((p) => [p.code, p.rows])).toEqual([['EDOC_MAP_EXPRESSION', [3]]]);
    expect(zero.problems[0].message).toContain('division by zero');
  });

  it('computes a formula with brackets four deep', async () => {
    // Taxes 190 × 100 / (1.190 − 190) = 19 → round(19, 0) = 19; 100 + 19 = 119
    // Discounts 1.000 × 100 / 119 = 840,3361… → round(…, 2) = 840,34
    const yaml =
      'name: x\nkinds: [invoice]\nformat: { delimiter: ";", decimal: ",", thousands: "." }\nkey: [n]\ndocument:\n' +
      "  SeriePrefix: { expr: 'round(Discounts * 100 / (100 + round(Taxes * 100 / ([Net sales] - Taxes), 0)), 2)', as: decimal }\n";
    const [doc] = await mapFile(
      'n;Discounts;Taxes;Net sales\r\n1;1.000;190;1.190\r\n',
      await mappingFrom(yaml),
      'invoice',
    );
    expect(doc.request).toEqual({ SeriePrefix: '840.34' });
  });

  it('a cell that is not a number in an expression names its column', async () => {
    const yaml =
      'name: x\nkinds: [invoice]\nkey: [n]\ndocument:\n  SeriePrefix: { expr: "Precio * 2", as: decimal }\n';
    const [doc] = await mapFile('n;Precio\r\n1;diez\r\n', await mappingFrom(yaml), 'invoice');
    expect(doc.problems.map((p) => [p.code, p.column, p.rows])).toEqual([
      ['EDOC_MAP_EXPRESSION', 'Precio', [2]],
    ]);
  });
});

describe("a cell an expression passes on unchanged (coalesce, if) is read in the mapping's number format", () => {
  /*
   * The Siigo-style export of reconcile-guards.test.ts, the discount given as docs/mappings.md writes it:
   * `coalesce([Valor Descuento], 0)` under decimal "," and thousands ".".
   *   line 1: 2 × 50.000,00 = 100.000,00 − discount 10.000,00 = 90.000,00; VAT 19 % = 17.100,00
   *   line 2: 1 × 30.000,00 =  30.000,00, discount blank → coalesce gives 0; VAT 19 % = 5.700,00
   *   net 120.000,00 + VAT 22.800,00 = total 142.800,00 (the export's "Total factura")
   */
  const DISCOUNTED =
    [
      SIIGO_COLUMNS,
      'FV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-001;Silla ergonómica;2;50.000,00;10.000,00;19;142.800,00',
      'FV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-002;Lámpara de escritorio;1;30.000,00;;19;142.800,00',
    ].join('\r\n') + '\r\n';
  const coalesced = siigoSalesMapping({
    discount: false,
    reconcile: true,
    extra: "      discount: { expr: 'coalesce([Valor Descuento], 0)', as: decimal }\n",
  });

  it('coalesce([Valor Descuento], 0) with as: decimal reads "10.000,00" as 10000.00 and a blank cell as 0', async () => {
    const [doc] = await mapFile(DISCOUNTED, await mappingFrom(coalesced), 'invoice');
    expect(doc.problems).toEqual([]);
    const r = requestOf(doc);
    expect(
      r.Lines.map((l: { GrossAmount: string; NetAmount: string; UnitPrice: string }) => [
        l.GrossAmount,
        l.NetAmount,
        l.UnitPrice,
      ]),
    ).toEqual([
      ['100000.00', '90000.00', '45000.00'],
      ['30000.00', '30000.00', '30000.00'],
    ]);
    expect(r.Total.PayableAmount).toBe('142800.00');
    expect(invoiceTotals(r)).toEqual([]);
  });

  it("if() and coalesce() passing a cell on: numbers in the export's format, texts as written, a misread names the column", async () => {
    // Cantidad "1,5" (decimal comma) → if(Tipo = 'NC', abs(Cantidad), Cantidad) = 1,5 → as: number 1.5
    // Saldo "-2.500,25" on the NC row → abs = 2500.25; Nota blank → coalesce(Nota, Cliente) = "Tienda 1,5" as text
    const yaml = `
name: passthrough
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: "." }
key: [n]
document:
  SeriePrefix: { expr: "if(Tipo = 'NC', abs(Cantidad), Cantidad)", as: number }
  SerieNumber: { expr: "if(Tipo = 'NC', abs(Saldo), Saldo)", as: decimal }
  Currency: { expr: 'coalesce(Nota, Cliente)' }
  OperationType: { expr: 'coalesce(Descuento, 0)', as: percent }
`;
    const csv =
      'n;Tipo;Cantidad;Saldo;Nota;Cliente;Descuento\r\n1;FV;1,5;1.000,5;;Tienda 1,5;2,5 %\r\n2;NC;-1,5;-2.500,25;;Tienda 2;\r\n3;FV;1.5.0;1;;x;\r\n';
    const [fv, nc, bad] = await mapFile(csv, await mappingFrom(yaml), 'invoice');
    // row 2: Saldo 1.000,5 → 1000.50; Descuento "2,5 %" read like a column as: percent → 2.50
    expect(fv.request).toEqual({
      SeriePrefix: '1.5',
      SerieNumber: '1000.50',
      Currency: 'Tienda 1,5',
      OperationType: '2.50',
    });
    // row 3: abs(-1,5) = 1.5 and abs(-2.500,25) = 2500.25 are computed; Descuento blank → 0 → 0.00
    expect(nc.request).toEqual({
      SeriePrefix: '1.5',
      SerieNumber: '2500.25',
      Currency: 'Tienda 2',
      OperationType: '0.00',
    });
    // row 4: "1.5.0" is no number under decimal "," (a thousands dot needs three digits after it), nor with a
    // decimal point: its document is refused, naming the column ("1.5" would refuse the file: format-mismatch.test.ts)
    expect(bad.request).toBeUndefined();
    expect(bad.problems.map((p) => [p.code, p.column, p.rows])).toEqual([
      ['EDOC_MAP_BAD_NUMBER', 'Cantidad', [4]],
    ]);
  });
});

describe('the expression language at load: clear errors, never eval, bounded', () => {
  const load =
    (expr: string): (() => unknown) =>
    () =>
      compileMapping(
        parse(
          `name: x\nkinds: [invoice]\nkey: [n]\ndocument:\n  SeriePrefix: { expr: ${JSON.stringify(expr)}, as: decimal }\n`,
        ),
        'my-erp.csv.yaml',
      );

  it('names the mapping file, the key and the expression', () => {
    expect(load('Cantidad * (Precio')).toThrow(
      /my-erp\.csv\.yaml: document\.SeriePrefix\.expr: missing \) at the end in expression "Cantidad \* \(Precio"/,
    );
    expect(load('sqrt(Precio)')).toThrow(/unknown function sqrt\(\)/);
    expect(load('Precio > 0')).toThrow(/is a condition/);
    expect(load('if(Precio, 1, 2)')).toThrow(/if needs a condition/);
  });

  it('JavaScript is not an expression: no eval, no property access, no calls of our own names', () => {
    expect(load('process.exit(1)')).toThrow(/unexpected character "\."/);
    expect(load("constructor('return 1')")).toThrow(/unknown function constructor\(\)/);
    expect(load('`x`')).toThrow(/unexpected character/);
  });

  it('refuses hostile sizes: length, nesting, number of parts', () => {
    expect(load('1+'.repeat(600) + '1')).toThrow(/longer than 1000 characters/);
    expect(load('('.repeat(100) + '1' + ')'.repeat(100))).toThrow(/nested deeper than/);
    expect(load(Array.from({ length: 250 }, () => 'A').join('+'))).toThrow(/longer than 200 parts/);
  });

  it('counts nesting in brackets and calls, not in operators: an ordinary formula loads, a deep one is refused', () => {
    // round( ( round( ( … ) ) ) ): four levels of brackets and calls
    expect(
      load('round(Discounts * 100 / (100 + round(Taxes * 100 / ([Net sales] - Taxes), 0)), 2)'),
    ).not.toThrow();
    // 24 levels load: 23 brackets around abs(1); 25 are refused, naming where the 25th opens
    expect(load('('.repeat(23) + 'abs(1)' + ')'.repeat(23))).not.toThrow();
    expect(load('('.repeat(24) + 'abs(1)' + ')'.repeat(24))).toThrow(
      /my-erp\.csv\.yaml: document\.SeriePrefix\.expr: brackets and calls nested deeper than 24 levels \(at character 25\)/,
    );
    expect(load('abs('.repeat(25) + '1' + ')'.repeat(25))).toThrow(
      /nested deeper than 24 levels \(at character 97\)/,
    );
    // operators chained without brackets are no nesting: 28 × "-A + B * 2" (A, -, B, 2, *, + = 6 parts) joined by
    // 27 "+": 28 × 6 + 27 = 195 parts of 200, 28 × 3 + 27 = 111 operators without a bracket, load
    expect(load(Array.from({ length: 28 }, () => '-A + B * 2').join(' + '))).not.toThrow();
    // a chain of signs is bounded by the number of parts, and refused as such (no stack overflow)
    expect(load('-'.repeat(999) + '1')).toThrow(/longer than 200 parts/);
  });

  it('refuses a capture pattern that does not compile or has no such group, and a nested repetition', () => {
    const cap = (c: string) => () =>
      compileMapping(
        parse(
          `name: x\nkinds: [invoice]\nkey: [n]\ndocument:\n  SeriePrefix: { column: n, capture: ${c} }\n`,
        ),
        'm.yaml',
      );
    expect(cap("'([A-Z'")).toThrow(/m\.yaml: document\.SeriePrefix\.capture: not a valid pattern/);
    expect(cap("{ pattern: '(?<p>[A-Z]+)', group: q }")).toThrow(/no group "q"/);
    expect(cap("'(a+)+$'")).toThrow(/nested repetition/);
  });
});
