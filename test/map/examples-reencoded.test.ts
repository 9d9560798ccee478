/**
 * examples/invoices.csv written again in every encoding, delimiter and line end the reader accepts
 * (PRODUCT.md "Input files", erp-layouts.md): Windows-1252, UTF-8 with and without BOM; `;`, `,`
 * and tab; CRLF and LF. Every variant must give exactly the same requests, to the cent.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, mapping, readAll, tempFile } from './helpers.js';

type Req = Record<string, unknown>;

const vat = (rate: string, base: string, tax: string): Req => ({
  TaxCategory: '01',
  TaxPercentage: rate,
  TaxableAmount: base,
  TaxAmount: tax,
});

/** One line of a sales request; `tax` absent = an excluded line (no tax entries at all). */
const line = (n: string, qty: string, price: string, net: string, item: Req, tax?: Req): Req => ({
  Number: n,
  Quantity: qty,
  QuantityUnitOfMeasure: '94',
  UnitPrice: price,
  Item: item,
  GrossAmount: net,
  NetAmount: net,
  ...(tax === undefined
    ? {}
    : { TaxSubTotals: [tax], TaxTotals: [{ TaxCategory: '01', TaxAmount: tax.TaxAmount }] }),
});

const ISSUER = {
  Identification: {
    DocumentNumber: '900123456',
    DocumentType: '31',
    CountryCode: 'CO',
    CheckDigit: '8',
  },
};

/** The requests of examples/invoices.csv, in full (checked by hand against the derivation rules of erp-layouts.md). */
const EXPECTED: Req[] = [
  {
    Currency: 'COP',
    SeriePrefix: 'SETP',
    SerieNumber: '990000101',
    IssueDate: '2026-11-18T09:15:00',
    DueDate: '2026-12-18T00:00:00',
    OperationType: '10',
    IssuerParty: ISSUER,
    CustomerParty: {
      LegalType: '1',
      Email: 'compras@andina.example',
      Identification: { DocumentNumber: '800197268', DocumentType: '31', CountryCode: 'CO' },
      Name: 'Distribuidora Andina S.A.S.',
    },
    PaymentMeans: [{ Code: '42', Mean: '2', DueDate: '2026-12-18' }],
    Lines: [
      // 10 × 12.500,00; 19 % of 125000.00
      line(
        '1',
        '10',
        '12500.00',
        '125000.00',
        { Gtin: '7702001', Description: 'Café molido premium 500 g' },
        vat('19.00', '125000.00', '23750.00'),
      ),
      // 4 × 21.900,00; 5 % of 87600.00
      line(
        '2',
        '4',
        '21900.00',
        '87600.00',
        { Gtin: '7702002', Description: 'Arroz blanco 5 kg; bulto x 4' },
        vat('5.00', '87600.00', '4380.00'),
      ),
      // exempt (iva 0): an entry of 0.00
      line(
        '3',
        '2',
        '45000.00',
        '90000.00',
        { Gtin: '9789580000', Description: 'Libro escolar Matemáticas 5°' },
        vat('0.00', '90000.00', '0.00'),
      ),
      // 1.234.567,50, excluded (iva empty); the description has a line break inside quotes
      line('4', '1', '1234567.50', '1234567.50', {
        Description: 'Servicio de transporte\r\nBogotá – Medellín',
      }),
    ],
    TaxSubTotals: [
      vat('19.00', '125000.00', '23750.00'),
      vat('5.00', '87600.00', '4380.00'),
      vat('0.00', '90000.00', '0.00'),
    ],
    TaxTotals: [{ TaxCategory: '01', TaxAmount: '28130.00' }],
    Total: {
      GrossAmount: '1537167.50',
      TaxableAmount: '302600.00',
      TotalBillableAmount: '1565297.50',
      PayableAmount: '1565297.50',
    },
  },
  {
    // no `vence`: DueDate = fecha; `CC` -> document type 13
    Currency: 'COP',
    SeriePrefix: 'SETP',
    SerieNumber: '990000102',
    IssueDate: '2026-11-19T14:02:30',
    DueDate: '2026-11-19T00:00:00',
    OperationType: '10',
    IssuerParty: ISSUER,
    CustomerParty: {
      LegalType: '2',
      Email: 'jose.munoz@correo.example',
      Identification: { DocumentNumber: '1020304050', DocumentType: '13', CountryCode: 'CO' },
      Name: 'José Muñoz Peña',
    },
    PaymentMeans: [{ Code: '10', Mean: '1', DueDate: '2026-11-19' }],
    Lines: [
      // 3 × 3.333,33 = 9999.99; 19 % = 1899.9981 -> 1900.00 (half-up per line)
      line(
        '1',
        '3',
        '3333.33',
        '9999.99',
        { Description: 'Cuaderno "Norma" 100 hojas' },
        vat('19.00', '9999.99', '1900.00'),
      ),
      // 1,5 × 10.000 (thousands dot, no decimals)
      line(
        '2',
        '1.5',
        '10000.00',
        '15000.00',
        { Description: 'Resma papel carta' },
        vat('19.00', '15000.00', '2850.00'),
      ),
    ],
    TaxSubTotals: [vat('19.00', '24999.99', '4750.00')],
    TaxTotals: [{ TaxCategory: '01', TaxAmount: '4750.00' }],
    Total: {
      GrossAmount: '24999.99',
      TaxableAmount: '24999.99',
      TotalBillableAmount: '29749.99',
      PayableAmount: '29749.99',
    },
  },
  {
    // no `hora`: 00:00:00; every line excluded: no tax entries, taxable 0.00
    Currency: 'COP',
    SeriePrefix: 'SETP',
    SerieNumber: '990000103',
    IssueDate: '2026-11-20T00:00:00',
    DueDate: '2026-11-20T00:00:00',
    OperationType: '10',
    IssuerParty: ISSUER,
    CustomerParty: {
      LegalType: '1',
      Identification: { DocumentNumber: '900555666', DocumentType: '31', CountryCode: 'CO' },
      Name: 'Cafetería El Águila Ltda.',
    },
    PaymentMeans: [{ Code: '48', Mean: '1', DueDate: '2026-11-20' }],
    Lines: [
      line('1', '1', '2500000.00', '2500000.00', {
        Description: 'Arriendo local comercial noviembre',
      }),
      line('2', '1', '350000.00', '350000.00', { Description: 'Cuota de administración' }),
    ],
    TaxSubTotals: [],
    TaxTotals: [],
    Total: {
      GrossAmount: '2850000.00',
      TaxableAmount: '0.00',
      TotalBillableAmount: '2850000.00',
      PayableAmount: '2850000.00',
    },
  },
];

const KEYS_AND_ROWS = [
  ['SETP990000101', [2, 3, 5, 6]],
  ['SETP990000102', [4, 7]],
  ['SETP990000103', [8, 9]],
];

type Encoding = 'windows-1252' | 'utf-8' | 'utf-8 with BOM';
type Delimiter = ';' | ',' | '\t';

/**
 * The cells again as delimited text. A cell is quoted when it holds the delimiter, a quote, a line
 * break, or a `;` (so the description with `;` is a quoted field whatever the delimiter).
 */
function serialise(cells: string[][], delimiter: Delimiter, newline: string): string {
  const cell = (c: string): string =>
    c.includes(delimiter) || /[;"\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c;
  return cells.map((r) => r.map(cell).join(delimiter)).join(newline) + newline;
}

function encode(text: string, encoding: Encoding): Buffer {
  if (encoding === 'windows-1252') return iconv.encode(text, 'windows-1252');
  const utf8 = Buffer.from(text, 'utf8');
  return encoding === 'utf-8' ? utf8 : Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]);
}

async function originalCells(): Promise<{ bytes: Buffer; cells: string[][] }> {
  const bytes = await readFile(join(EXAMPLES, 'invoices.csv'));
  return {
    bytes,
    cells: parse(iconv.decode(bytes, 'windows-1252'), {
      delimiter: ';',
      relax_column_count: false,
    }) as string[][],
  };
}

describe('examples/invoices.csv in every encoding, delimiter and line end gives the same requests', () => {
  it('the serialiser writes the original back byte for byte (Windows-1252, `;`, CRLF), and the original maps to EXPECTED', async () => {
    const { bytes, cells } = await originalCells();
    expect(cells).toHaveLength(9);
    expect(encode(serialise(cells, ';', '\r\n'), 'windows-1252').equals(bytes)).toBe(true);
    const { docs } = await readAll(
      join(EXAMPLES, 'invoices.csv'),
      await mapping('sales'),
      'invoice',
    );
    expect(docs.map((d) => d.request)).toEqual(EXPECTED);
  });

  const variants: [Encoding, Delimiter, string][] = [];
  for (const encoding of ['windows-1252', 'utf-8', 'utf-8 with BOM'] as const) {
    for (const delimiter of [';', ',', '\t'] as const)
      for (const newline of ['\r\n', '\n']) variants.push([encoding, delimiter, newline]);
  }

  it.each(variants)('%s, delimiter %j, line end %j', async (encoding, delimiter, newline) => {
    const { cells } = await originalCells();
    const text = serialise(cells, delimiter, newline);
    // what the variant holds: the `;` description and the multi-line one quoted, amounts with thousands dots
    expect(text).toContain(`${delimiter}"Arroz blanco 5 kg; bulto x 4"${delimiter}`);
    expect(text).toContain(`${delimiter}"Servicio de transporte\r\nBogotá – Medellín"${delimiter}`);
    expect(text).toContain(
      delimiter === ',' ? ',"1.234.567,50",' : `${delimiter}1.234.567,50${delimiter}`,
    );
    const file = await tempFile(
      `invoices-${encoding.replace(/ /g, '-')}.csv`,
      encode(text, encoding),
    );

    const { source, docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(source.encoding).toBe(
      { 'windows-1252': 'windows-1252', 'utf-8': 'utf-8', 'utf-8 with BOM': 'utf-8-bom' }[encoding],
    );
    expect(source.delimiter).toBe(delimiter);
    expect(source.header).toBe(cells[0].join(delimiter) + newline);
    expect(docs.map((d) => [d.key, d.source.rows])).toEqual(KEYS_AND_ROWS);
    expect(docs.map((d) => d.problems)).toEqual([[], [], []]);
    expect(docs.map((d) => d.request)).toEqual(EXPECTED);
  });
});
