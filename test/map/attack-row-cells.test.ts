/**
 * Rows whose number of cells is not the header's. A delimiter written unquoted inside a text cell
 * (`Auxilio; transporte`) pushes every later cell one column to the right: a number lands in the next
 * number's column and converts without complaint. Such a row refuses its document (EDOC_MAP_EXTRA_CELLS);
 * blank extra cells (a trailing delimiter on every line, or on the data lines only) are no sign of it.
 * A row with fewer cells reads its missing cells as blank, as a spreadsheet saved as CSV leaves out the
 * delimiters of trailing blank cells: a missing required cell is refused as blank, an optional one is blank.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileMapping, loadMapping } from '../../src/map/load-mapping.js';
import { openSetSource } from '../../src/read/set-source.js';
import type { CsvSourceDocument } from '../../src/read/csv-source.js';
import {
  COMPANY,
  MAPPINGS,
  SALES_COLUMNS,
  mapping,
  readAll,
  sale,
  tempFile,
  toCsv,
} from './helpers.js';

const PAYROLL_HEADER =
  'Prefijo;Consecutivo;Tipo doc;Identificación;Primer apellido;Segundo apellido;Nombres;Tipo contrato;' +
  'Sueldo básico;Fecha ingreso;Fecha inicio;Fecha fin;Fecha pago;Concepto;Descripción concepto;Cantidad;Devengado;Deducido';
const ANA =
  'NOM;301;CC;1.032.456.789;Rodríguez;Peña;Ana Lucía;1;2.000.000,00;01/02/2024;01/11/2026;30/11/2026;30/11/2026';
const CARLOS =
  'NOM;302;CC;80.123.456;Muñoz;;Carlos Andrés;2;1.500.000,00;15/06/2023;01/11/2026;30/11/2026;30/11/2026';

async function payroll(
  lines: string[],
): Promise<
  { key: string; rows?: number[]; codes: string[]; messages: string[]; request?: unknown }[]
> {
  const file = await tempFile(
    'nomina-noviembre.csv',
    [PAYROLL_HEADER, ...lines].join('\r\n') + '\r\n',
  );
  const m = await loadMapping(join(MAPPINGS, 'erp/generic-payroll.yaml'));
  const { docs } = await readAll(file, m, 'payroll');
  return docs.map((d) => ({
    key: d.key,
    rows: d.source.rows,
    codes: d.problems.map((p) => p.code),
    messages: d.problems.map((p) => p.message),
    request: d.request,
  }));
}

/** Each document's key, its problems (code, column) and the payable amount of its request. */
function summary(
  docs: CsvSourceDocument[],
): [string, [string, string | undefined][], string | undefined][] {
  return docs.map((d) => [
    d.key,
    d.problems.map((p) => [p.code, p.column]),
    (d.request as { Total?: { PayableAmount?: string } } | undefined)?.Total?.PayableAmount,
  ]);
}

interface PayrollTotals {
  DevengadosTotal?: string;
  DeduccionesTotal?: string;
  ComprobanteTotal?: string;
}
const totals = (r: unknown): PayrollTotals => {
  const { DevengadosTotal, DeduccionesTotal, ComprobanteTotal } = r as PayrollTotals;
  return { DevengadosTotal, DeduccionesTotal, ComprobanteTotal };
};

describe('a row with more cells than the header', () => {
  it('an unquoted ";" in a concept description refuses the payroll, never issues 30.00 as the transport allowance', async () => {
    // on main NOM301 was issued with AuxilioTransporte 30.00 (the Cantidad cell), DevengadosTotal 2,000,030.00
    const out = await payroll([
      `${ANA};001;Sueldo básico;30;2.000.000,00;0`,
      `${ANA};002;Auxilio; transporte;30;200.000,00;0`,
      `${ANA};101;Aporte salud;4;0;80.000,00`,
      `${CARLOS};001;Sueldo básico;30;1.500.000,00;0`,
      `${CARLOS};101;Aporte salud;4;0;60.000,00`,
    ]);
    // the shifted row also puts 200.000,00 under Deducido, which concept 002 does not read (concepts.amounts)
    expect(out.map((d) => [d.key, d.rows, d.codes])).toEqual([
      ['NOM301', [2, 3, 4], ['EDOC_MAP_EXTRA_CELLS', 'EDOC_MAP_INCONSISTENT']],
      ['NOM302', [5, 6], []],
    ]);
    expect(out[0].request).toBeUndefined();
    expect(out[0].messages[0]).toBe(
      'nomina-noviembre.csv, row 3: the row has 19 cells, the header (row 1) names 18 columns, and the cells past the 18th are not blank: ' +
        'its values stand off their columns, most likely because a text cell (a description, a name, an address) holds an unquoted ";". ' +
        'The document is not sent; quote that cell or remove the ";" from it, and export again',
    );
    // NOM302: 1,500,000.00 earned − 60,000.00 health = 1,440,000.00
    expect(totals(out[1].request)).toEqual({
      DevengadosTotal: '1500000.00',
      DeduccionesTotal: '60000.00',
      ComprobanteTotal: '1440000.00',
    });
  });

  it('the shifted row is not dropped by a skip rule that reads its shifted cells', async () => {
    // "Libranza; Banco Popular": Devengado reads the blank Cantidad, Deducido the 0 of Devengado, so the
    // preset's "earned and deducted both zero" skip rule dropped the 150,000.00 loan instalment on main
    const out = await payroll([
      `${ANA};001;Sueldo básico;30;2.000.000,00;0`,
      `${ANA};101;Aporte salud;4;0;80.000,00`,
      `${ANA};130;Libranza; Banco Popular;;0;150.000,00`,
    ]);
    expect(out.map((d) => [d.key, d.rows, d.codes])).toEqual([
      ['NOM301', [2, 3, 4], ['EDOC_MAP_EXTRA_CELLS']],
    ]);
  });

  it('a quoted ";" is one cell: the same payroll is issued with its 200,000.00 allowance', async () => {
    const out = await payroll([
      `${ANA};001;Sueldo básico;30;2.000.000,00;0`,
      `${ANA};002;"Auxilio; transporte";30;200.000,00;0`,
      `${ANA};101;Aporte salud;4;0;80.000,00`,
    ]);
    expect(out.map((d) => d.codes)).toEqual([[]]);
    // 2,000,000.00 + 200,000.00 = 2,200,000.00 earned; − 80,000.00 = 2,120,000.00
    expect(totals(out[0].request)).toEqual({
      DevengadosTotal: '2200000.00',
      DeduccionesTotal: '80000.00',
      ComprobanteTotal: '2120000.00',
    });
  });

  it('a trailing delimiter on every line, or on the data lines only, is a blank extra cell: the invoices go', async () => {
    // SETP1: 2 × 1,000.00 = 2,000.00 + 19 % 380.00 = 2,380.00; SETP2: 1,000.00 + 190.00 = 1,190.00
    const rows = [sale('1', '1'), sale('1', '2'), sale('2', '1')];
    const plain = toCsv(rows).split('\r\n').slice(0, -1);
    const every = plain.map((l) => `${l};`);
    const dataOnly = [plain[0], ...plain.slice(1).map((l) => `${l};;`)];
    for (const lines of [every, dataOnly]) {
      const { docs } = await readAll(
        await tempFile('ventas.csv', lines.join('\r\n') + '\r\n'),
        await mapping('sales'),
        'invoice',
      );
      expect(summary(docs)).toEqual([
        ['SETP1', [], '2380.00'],
        ['SETP2', [], '1190.00'],
      ]);
    }
  });
});

describe('a row shifted by an unquoted ";" in an export that ends every line with ";"', () => {
  it('is seen past the trailing blank cell: the header is as wide as its last named column', async () => {
    // every line, header included, ends with ";": the header has 13 cells, 12 named. Row 3's description
    // "Tornillo; 3" puts 3 in cantidad, the real 1 in precio_unitario (1.00) and 1.000,00 in iva, blank
    // in the 13th cell: counted against 13 cells the row's 14th cell is the blank one and went unseen
    const rows = [sale('1', '1'), sale('1', '2', { descripcion: 'Tornillo; 3' }), sale('2', '1')];
    const lines = toCsv(rows, { columns: [...SALES_COLUMNS] })
      .split('\r\n')
      .slice(0, -1)
      .map((l, i) => (i === 2 ? l.replace('"Tornillo; 3"', 'Tornillo; 3') : l) + ';');
    expect(lines[2].split(';')).toHaveLength(14);
    const { docs } = await readAll(
      await tempFile('ventas.csv', lines.join('\r\n') + '\r\n'),
      await mapping('sales'),
      'invoice',
    );
    expect(summary(docs)).toEqual([
      // what the shifted cells break is said too (1.000,00 as a VAT rate), after the cause
      [
        'SETP1',
        [
          ['EDOC_MAP_EXTRA_CELLS', ''],
          ['EDOC_MAP_VAT_RATE', 'iva'],
        ],
        undefined,
      ],
      ['SETP2', [], '1190.00'],
    ]);
    expect(docs[0].problems[0].message).toMatch(
      /^ventas\.csv, row 3: the row has 14 cells, the header \(row 1\) names 12 columns, and the cells past the 12th are not blank/,
    );
  });
});

describe('a row with fewer cells than the header', () => {
  it('reads its missing trailing cells as blank: optional ones are blank, a required one is refused by name', async () => {
    const columns = [...SALES_COLUMNS, 'motivo', 'ref_documento'];
    const lines = toCsv([sale('1', '1'), sale('2', '1'), sale('3', '1')], { columns })
      .split('\r\n')
      .slice(0, -1);
    // SETP1 as a spreadsheet writes it (no delimiters for its blank motivo, ref_documento);
    // SETP2 ends after cantidad: no precio_unitario
    lines[1] = lines[1].replace(/;+$/, '');
    lines[2] = lines[2].split(';').slice(0, 10).join(';');
    const { docs } = await readAll(
      await tempFile('ventas.csv', lines.join('\r\n') + '\r\n'),
      await mapping('sales'),
      'invoice',
    );
    expect(summary(docs)).toEqual([
      ['SETP1', [], '1190.00'],
      ['SETP2', [['EDOC_MAP_REQUIRED', 'precio_unitario']], undefined],
      ['SETP3', [], '1190.00'],
    ]);
  });
});

describe('a quote that opens a cell and closes rows further down', () => {
  const HEADER =
    'prefijo;numero;fecha;cliente_tipo_doc;cliente_doc;cliente_nombre;descripcion;cantidad;precio_unitario;iva';
  const row = (numero: string, name: string, description: string, qty: string, price: string) =>
    `SETP;${numero};18/11/2026;31;800.197.268-4;${name};${description};${qty};${price};19`;
  const salesFile = (rows: string[], nl = '\n'): Promise<string> =>
    tempFile('ventas.csv', [HEADER, ...rows].join(nl) + nl);

  it('refuses the file, naming the row and column where the quote opens, never issuing the rows as one', async () => {
    // on main: one invoice SETP1 of 1 × 700.00 + 19 % = 833.00, its description the text of three rows;
    // SETP2 and SETP3 vanished from the file without a word
    const file = await salesFile([
      row('1', 'Ferretería', '"Tubo 3/4 PVC', '2', '1.000,00'),
      row('2', 'Otra', 'Codo', '1', '500,00'),
      row('3', 'Otra', 'Tubo 1/2"', '1', '700,00'),
    ]);
    await expect(readAll(file, await mapping('sales'), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_CSV_SYNTAX',
      context: { row: 2, column: 'descripcion' },
      message:
        'ventas.csv, row 2, column "descripcion": a quoted cell runs over 3 lines and holds 18 ";", a whole row\'s worth: ' +
        'most likely a quote (") that opens this cell is closed only rows further down, and the rows between were read into ' +
        'this one cell. Nothing of the file is sent; remove the quote or close it in its own cell, and export again',
    });
    // closed in the same column one row down: 3 + 6 = 9 ";" in the cell, the header's 10 cells minus one
    const next = await salesFile([
      row('1', 'A', '"Tubo 3/4 PVC', '2', '1.000,00'),
      row('2', 'B', 'Codo"', '1', '500,00'),
    ]);
    await expect(readAll(next, await mapping('sales'), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_CSV_SYNTAX',
    });
  });

  it('a quoted description over two lines, even with a ";" in it, is one cell', async () => {
    // SETP1: 2 × 1,000.00 = 2,000.00 + 19 % 380.00 = 2,380.00; SETP2: 500.00 + 95.00 = 595.00
    const file = await salesFile(
      [
        row('1', 'A', '"Servicio de transporte;\nbodega norte; turno 2"', '2', '1.000,00'),
        row('2', 'B', 'Codo', '1', '500,00'),
      ],
      '\r\n',
    );
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(summary(docs)).toEqual([
      ['SETP1', [], '2380.00'],
      ['SETP2', [], '595.00'],
    ]);
  });
});

describe('a file in two encodings', () => {
  const HEADER =
    'prefijo;numero;fecha;cliente_tipo_doc;cliente_doc;cliente_nombre;descripcion;cantidad;precio_unitario;iva';
  const row = (numero: string, name: string) =>
    `SETP;${numero};18/11/2026;31;800.197.268-4;${name};Café;1;1.000,00;19\r\n`;
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  const cp1252 = (text: string) => iconv.encode(text, 'windows-1252');

  it('a UTF-8 export with one row pasted in Windows-1252 is refused, never issued as "MarÃ­a PÃ©rez"', async () => {
    // on main the whole file read as Windows-1252: SETP1 went out to "MarÃ­a PÃ©rez MuÃ±oz"
    const body = Buffer.concat([
      utf8(`${HEADER}\r\n${row('1', 'María Pérez Muñoz')}`),
      cp1252(row('2', 'José Niño')),
    ]);
    await expect(
      readAll(await tempFile('ventas.csv', body), await mapping('sales'), 'invoice'),
    ).rejects.toMatchObject({
      code: 'EDOC_READ_ENCODING',
      context: { row: 2 },
      message:
        'ventas.csv is read as Windows-1252 (line 3 holds the byte 0xE9, which is not UTF-8), but line 2 holds UTF-8 text ' +
        '(an accented letter written as two bytes): its names would be issued as "MarÃ­a". Nothing of the file is sent; ' +
        'save the whole export in one encoding and drop it again',
    });
  });

  it('with a byte-order mark, the Windows-1252 row is refused, never issued as "Jos� Ni�o"', async () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      utf8(`${HEADER}\r\n${row('1', 'María Pérez')}`),
      cp1252(row('2', 'José Niño')),
    ]);
    await expect(
      readAll(await tempFile('ventas.csv', body), await mapping('sales'), 'invoice'),
    ).rejects.toMatchObject({ code: 'EDOC_READ_ENCODING', context: { row: 3 } });
  });

  it('a Windows-1252 export with Ñ, á, €, and “CAFÉ” in quotes reads as Windows-1252', async () => {
    // "É" + "”" is C9 94, a valid UTF-8 pair that is no accented letter: not taken for UTF-8 text
    const body = cp1252(
      `${HEADER}\r\n${row('1', 'PEÑA & CÍA “CAFÉ”')}${row('2', 'Ángela Núñez € 1')}`,
    );
    const { docs } = await readAll(
      await tempFile('ventas.csv', body),
      await mapping('sales'),
      'invoice',
    );
    expect(
      docs.map((d) => [
        d.problems.map((p) => p.code),
        (d.request as { CustomerParty?: { Name?: string } } | undefined)?.CustomerParty?.Name,
      ]),
    ).toEqual([
      [[], 'PEÑA & CÍA “CAFÉ”'],
      [[], 'Ángela Núñez € 1'],
    ]);
  });
  it('a NUL byte past the first 8 KiB refuses the file, never issuing a name "Mar\\0a"', async () => {
    // the NUL sniff of open-source.ts reads 8 KiB; on main row 152's customer went out as "Mar\u0000a"
    const rows = Array.from({ length: 150 }, (_, i) => row(String(i + 1), `Cliente ${i + 1}`));
    const body = Buffer.concat([
      utf8(`${HEADER}\r\n${rows.join('')}`),
      utf8(row('151', 'Mar\u0000a')),
    ]);
    expect(body.indexOf(0)).toBeGreaterThan(8192);
    await expect(
      readAll(await tempFile('ventas.csv', body), await mapping('sales'), 'invoice'),
    ).rejects.toMatchObject({
      code: 'EDOC_READ_BINARY',
      context: { row: 152 },
      message:
        'ventas.csv is not a text file: line 152 holds a NUL byte, which no text export writes. Nothing of the file is sent; export it again',
    });
  });

  it('a mapping saying latin1 reads “ ” and € as a Windows program wrote them, not as control characters', async () => {
    // on main the name went out as "PEÑA \u0093LA ECONÓMICA\u0094", the description as "Bono \u0080 50"
    const shipped = parse(await readFile(join(MAPPINGS, 'sales.csv.yaml'), 'utf8')) as {
      format: Record<string, unknown>;
    };
    const m = compileMapping(
      { ...shipped, format: { ...shipped.format, encoding: 'latin1' } },
      'sales-latin1.yaml',
    );
    const body = Buffer.concat([
      Buffer.from(`${HEADER}\r\nSETP;1;18/11/2026;31;800.197.268-4;PE`),
      Buffer.from([0xd1]),
      Buffer.from('A '),
      Buffer.from([0x93]),
      Buffer.from('LA ECON'),
      Buffer.from([0xd3]),
      Buffer.from('MICA'),
      Buffer.from([0x94]),
      Buffer.from(';Bono '),
      Buffer.from([0x80]),
      Buffer.from(' 50;1;1.000,00;19\r\n'),
    ]);
    const { docs } = await readAll(await tempFile('ventas.csv', body), m, 'invoice');
    const request = docs[0].request as {
      CustomerParty: { Name: string };
      Lines: { Item: { Description: string } }[];
    };
    expect([request.CustomerParty.Name, request.Lines[0].Item.Description]).toEqual([
      'PEÑA “LA ECONÓMICA”',
      'Bono € 50',
    ]);
  });
});

describe('an export in two files', () => {
  const SAP = join(import.meta.dirname, '../../examples/erp/sap-b1');

  async function sapSet(lines: string): Promise<{ header: string; lines: string }> {
    const dir = await mkdtemp(join(tmpdir(), 'edoc-set-'));
    const files = { header: join(dir, 'Documents.csv'), lines: join(dir, 'Document_Lines.csv') };
    await writeFile(files.header, await readFile(join(SAP, 'Documents.csv')));
    await writeFile(files.lines, lines);
    return files;
  }

  async function codes(files: { header: string; lines: string }): Promise<string[]> {
    const m = await loadMapping(join(MAPPINGS, 'erp/sap-b1-invoice.yaml'));
    const opened = await openSetSource(files, m, { kind: 'invoice', company: COMPANY });
    const out: string[] = [];
    for await (const d of opened.documents) out.push(...d.problems.map((p) => p.code));
    return out;
  }

  it('a lines row with an unquoted "," in its description refuses the set, naming file, row and counts', async () => {
    // on main the extra cell was cut off and the row read one column off (Quantity 10 from the description,
    // UnitPrice the quantity, DiscountPercent the price 12500, TaxCode the discount "0"): refused as an
    // unknown tax code "0", blaming TaxCode
    const original = await readFile(join(SAP, 'Document_Lines.csv'), 'utf8');
    const files = await sapSet(
      original.replace('Café molido premium 500 g,10,', 'Café molido premium 500 g, 10,10,'),
    );
    await expect(codes(files)).rejects.toMatchObject({
      code: 'EDOC_MAP_EXTRA_CELLS',
      context: { file: 'Document_Lines.csv', row: 3 },
      message:
        'Document_Lines.csv, row 3: the row has 10 cells, the header (row 1) names 9 columns, and the cells past the 9th are not blank: ' +
        'its values stand off their columns, most likely because a text cell (a description, a name, an address) holds an ' +
        'unquoted ",". Nothing of the set is sent; quote that cell or remove the "," from it, and export again',
    });
    expect(await codes(await sapSet(original))).toEqual([]);
  });
});

describe('a subtotal row that repeats its invoice key', () => {
  it('is refused as a totals row, never issued as a line "Subtotal factura"', async () => {
    // on main SETP2 went out with two lines: 1 × 500.00 at 19 % and the subtotal 1 × 500.00 excluded,
    // 1,095.00 payable instead of 595.00
    const rows = [
      sale('1', '1'),
      sale('2', '1', { precio_unitario: '500,00' }),
      sale('2', '', { descripcion: 'Subtotal factura', precio_unitario: '500,00', iva: '' }),
    ];
    const { docs } = await readAll(
      await tempFile('ventas.csv', toCsv(rows)),
      await mapping('sales'),
      'invoice',
    );
    expect(summary(docs)).toEqual([
      ['SETP1', [], '1190.00'],
      ['SETP2', [['EDOC_MAP_TOTALS_ROW', 'descripcion']], undefined],
    ]);
    expect(docs[1].problems[0].rows).toEqual([4]);
  });
});
