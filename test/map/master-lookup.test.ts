/**
 * `lookup(table, key, column)`: a sales export that carries only the customer's id gets the customer's
 * name, e-mail and id type from the third-party export (a master-data table read by the real table
 * reader, as the daemon stores it); an id the table does not hold refuses the document naming the id
 * and the table; the language's load errors; and the table file's own errors (file, row, column).
 */
import { describe, expect, it } from 'vitest';
import { openCsvSource } from '../../src/read/csv-source.js';
import { readMasterFile } from '../../src/read/master-file.js';
import type { MasterTables } from '../../src/map/master-tables.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { isEdocError } from '../../src/errors.js';
import { tempFile } from './helpers.js';
import { mappingFrom, requestOf } from './values-amounts-helpers.js';
import { customersMapping } from '../helpers/customers-mapping.js';

const TERCEROS =
  [
    'Tipo identificación;Identificación;Razón social;Correo;Dirección',
    '31;900123456;Ferretería Andina S.A.S.;compras@andina.example;Cra 7 # 12-40',
    '13;79456123;Juan Carlos Gómez Pérez;;Calle 45 # 3-10',
  ].join('\r\n') + '\r\n';

const SPEC = {
  table: 'customers',
  key: 'Identificación',
  columns: ['Tipo identificación', 'Razón social', 'Correo'],
  encoding: 'auto',
  delimiter: 'auto',
} as const;

/* One line each: 2 × 10.000,00 = 20.000,00 net; VAT 19 % = 3.800,00; total 23.800,00. */
const SALES =
  [
    'Factura;Fecha;Cliente;Producto;Cantidad;Precio;IVA',
    'FE100;18/11/2026;900123456;Tornillos;2;10.000,00;19',
    'FE101;18/11/2026;79456123;Tornillos;2;10.000,00;19',
    'FE102;18/11/2026;55555555;Tornillos;2;10.000,00;19',
  ].join('\r\n') + '\r\n';

const MAPPING = customersMapping({ email: "lookup('customers', Cliente, Correo)" });

async function tables(): Promise<MasterTables> {
  const read = await readMasterFile(await tempFile('terceros.csv', TERCEROS), SPEC);
  return {
    customers: {
      table: 'customers',
      version: 3,
      file: 'terceros.csv',
      columns: read.columns,
      rows: Object.fromEntries(read.rows),
    },
  };
}

async function mapSales(m: Mapping, master: MasterTables | undefined, sales = SALES) {
  const source = await openCsvSource(await tempFile('ventas.csv', sales), m, {
    kind: 'invoice',
    company: { alias: 'main', nit: '900999999' },
    ...(master ? { master } : {}),
  });
  const docs = [];
  for await (const d of source.documents) docs.push(d);
  return docs;
}

describe('lookup() in a mapping', () => {
  it('takes the buyer from the table; a missing id is refused naming the id and the table', async () => {
    const m = await mappingFrom(MAPPING);
    expect(m.masterTables).toEqual({
      customers: ['Correo', 'Razón social', 'Tipo identificación'],
    });
    const [andina, gomez, unknown] = await mapSales(m, await tables());
    const a = requestOf(andina).CustomerParty;
    expect(a.Name).toBe('Ferretería Andina S.A.S.');
    expect(a.Email).toBe('compras@andina.example');
    expect(a.Identification).toMatchObject({ DocumentType: '31', DocumentNumber: '900123456' });
    expect(requestOf(andina).Total.PayableAmount).toBe('23800.00');
    const g = requestOf(gomez).CustomerParty;
    expect(g.Name).toBe('Juan Carlos Gómez Pérez');
    expect(g.Identification.DocumentType).toBe('13');
    expect(g.Email).toBeUndefined(); // a blank cell in the table is an empty value, not ''
    expect(unknown.request).toBeUndefined();
    expect(unknown.problems).toContainEqual(
      expect.objectContaining({
        code: 'EDOC_MAP_MASTER_MISSING',
        column: 'Cliente',
        value: '55555555',
      }),
    );
    // three fields read the missing id: one problem for the document
    expect(unknown.problems.filter((p) => p.code === 'EDOC_MAP_MASTER_MISSING')).toHaveLength(1);
    const message = unknown.problems.find((p) => p.code === 'EDOC_MAP_MASTER_MISSING')!.message;
    expect(message).toContain(
      'id "55555555" is not in master table "customers" (version 3, from terceros.csv)',
    );
  });

  it('an id written otherwise than the table (a check digit, spaces, a leading zero) is refused, never matched to another party', async () => {
    // the table holds 900123456 (Ferretería Andina); the ERP writes it with its check digit, grouped, padded
    const sales = [
      'Factura;Fecha;Cliente;Producto;Cantidad;Precio;IVA',
      'FE110;18/11/2026;900123456-8;Tornillos;2;10.000,00;19',
      'FE111;18/11/2026;900 123 456;Tornillos;2;10.000,00;19',
      'FE112;18/11/2026;0900123456;Tornillos;2;10.000,00;19',
    ].join('\r\n');
    const docs = await mapSales(await mappingFrom(MAPPING), await tables(), `${sales}\r\n`);
    expect(docs.map((d) => [d.request, d.problems.map((p) => [p.code, p.value])])).toEqual([
      [undefined, [['EDOC_MAP_MASTER_MISSING', '900123456-8']]],
      [undefined, [['EDOC_MAP_MASTER_MISSING', '900 123 456']]],
      [undefined, [['EDOC_MAP_MASTER_MISSING', '0900123456']]],
    ]);
  });

  it('with no file loaded yet, every document reading the table is refused saying so', async () => {
    const docs = await mapSales(await mappingFrom(MAPPING), undefined);
    expect(docs).toHaveLength(3);
    for (const d of docs) {
      expect(d.request).toBeUndefined();
      expect(d.problems).toHaveLength(1);
      expect(d.problems.map((p) => p.message).join(' ')).toContain(
        'master table "customers" has no file loaded yet',
      );
    }
  });

  it('refuses at load a table or column given as an expression, and a condition as the key', async () => {
    const bad = async (expr: string) =>
      mappingFrom(MAPPING.replace("lookup('customers', Cliente, Correo)", expr)).then(
        () => 'loaded',
        (e: Error) => e.message,
      );
    expect(await bad("lookup(customers, Cliente, 'a' + 'b')")).toMatch(/the column must be a name/);
    expect(await bad('lookup(1, Cliente, Correo)')).toMatch(/the table must be a name/);
    expect(await bad('lookup(customers, Cliente > 1, Correo)')).toMatch(
      /needs a key \(a column\), not a condition/,
    );
    expect(await bad('lookup(customers, Cliente)')).toMatch(/lookup\(\) takes 3 arguments, not 2/);
  });
});

describe('a master-data table file', () => {
  const refused = async (
    text: string,
  ): Promise<{ message: string; row: unknown; column: unknown }> => {
    try {
      await readMasterFile(await tempFile('terceros.csv', text), SPEC);
    } catch (err) {
      if (isEdocError(err, 'EDOC_MASTER_BAD_FILE'))
        return { message: err.message, row: err.context.row, column: err.context.column };
      throw err;
    }
    throw new Error('the file was read');
  };

  it('is read whole: header names match whatever their case and spacing; blank lines skipped; Windows-1252 read', async () => {
    const text =
      '  tipo IDENTIFICACIÓN ;Identificación;Razón  social;Correo\n31;900123456;Andina;a@b.example\n\n13;79456123;Gómez;\n';
    const read = await readMasterFile(await tempFile('terceros.csv', text, 'windows-1252'), SPEC);
    expect(read.encoding).toBe('windows-1252');
    expect(Object.fromEntries(read.rows)).toEqual({
      900123456: ['31', 'Andina', 'a@b.example'],
      79456123: ['13', 'Gómez', ''],
    });
  });

  it('names the file, the row and the column of what it cannot use', async () => {
    const noColumn = await refused('Identificación;Razón social\n900;Andina\n');
    expect(noColumn.message).toMatch(
      /^Master table "customers": terceros\.csv, row 1: no column "Tipo identificación", "Correo" in the header/,
    );
    expect(noColumn).toMatchObject({ row: 1, column: 'Tipo identificación' });
    const emptyId = await refused(`${TERCEROS}31;;Sin id;;\n`);
    expect(emptyId.message).toContain(
      'terceros.csv, row 4, column "Identificación": the id is empty',
    );
    const twice = await refused(
      `${TERCEROS}31;900123456;Otra razón social;compras@andina.example;\n`,
    );
    expect(twice.message).toContain(
      'terceros.csv, row 4, column "Razón social": id "900123456" is on row 2 too, with another "Razón social"',
    );
    expect(twice).toMatchObject({ row: 4, column: 'Razón social' });
    // the file's writer had written this far: the last row cut inside "Razón social", no Correo cell yet
    const cut = await refused(`${TERCEROS}31;800555111;Distribuidora An`);
    expect(cut.message).toContain(
      'terceros.csv, row 4, column "Correo": the row ends before this column (3 cells; a row cut short, or a file still being written)',
    );
    expect(cut).toMatchObject({ row: 4, column: 'Correo' });
    const headerOnly = await refused('Tipo identificación;Identificación;Razón social;Correo\n');
    expect(headerOnly.message).toContain('no rows under the header');
    const quotes = await refused(`${TERCEROS}31;"800;Abierta;x\n`);
    expect(quotes.message).toMatch(/terceros\.csv, row 4: /);
    // two `Correo` columns (the contact's, then billing's): the first was kept, the invoice went to
    // the contact; a repeated column the table does not keep (`Dirección`) is no matter
    const twoMails = await refused(
      'Tipo identificación;Identificación;Razón social;Correo;correo ;Dirección;Dirección\n' +
        '31;900123456;Andina;ana@andina.example;facturas@andina.example;Cra 7;Cra 8\n',
    );
    expect(twoMails.message).toContain(
      'terceros.csv, row 1: column "Correo" is named twice in the header: which one is meant cannot be told',
    );
    expect(twoMails).toMatchObject({ row: 1, column: 'Correo' });
  });

  it('is refused when its bytes are in two encodings, or hold a NUL byte: names would be read wrong', async () => {
    const refusedBytes = async (bytes: Buffer) => {
      try {
        await readMasterFile(await tempFile('terceros.csv', bytes), SPEC);
      } catch (err) {
        if (isEdocError(err, 'EDOC_MASTER_BAD_FILE'))
          return { message: err.message, row: err.context.row };
        throw err;
      }
      throw new Error('the file was read');
    };
    // UTF-8 rows, and line 4 pasted from a Windows program: "Muñoz" with ñ as the one byte 0xF1. Read as
    // Windows-1252 (the file is not valid UTF-8), the UTF-8 rows' names would be "GÃ³mez"
    const mixed = Buffer.concat([
      Buffer.from(TERCEROS, 'utf8'),
      Buffer.from('13;52111222;Ana Mu', 'latin1'),
      Buffer.from([0xf1]),
      Buffer.from('oz;;Calle 1\r\n', 'latin1'),
    ]);
    const twoEncodings = await refusedBytes(mixed);
    expect(twoEncodings.message).toBe(
      'Master table "customers": terceros.csv is read as Windows-1252 (line 4 holds the byte 0xF1, which is not UTF-8), ' +
        'but line 1 holds UTF-8 text (an accented letter written as two bytes): its names would be issued as "MarÃ­a"; ' +
        'save the whole file in one encoding; the table in use stays as it was',
    );
    expect(twoEncodings.row).toBe(1);
    // a NUL byte past the first 8 KiB (the binary sniff's reach), inside a name on line 202
    const filler = Array.from(
      { length: 200 },
      (_, i) => `13;${70000000 + i};Cliente número ${i};;Calle ${i} # 10-20`,
    );
    const withNul = `${TERCEROS}${filler.join('\r\n')}\r\n13;79000999;Mar\u0000a;;Calle 9\r\n`;
    expect(Buffer.byteLength(withNul)).toBeGreaterThan(8192);
    const nul = await refusedBytes(Buffer.from(withNul, 'utf8'));
    expect(nul.message).toBe(
      'Master table "customers": terceros.csv is not a text file: line 204 holds a NUL byte, which no text export writes; ' +
        'export it again; the table in use stays as it was',
    );
    expect(nul.row).toBe(204);
  });

  it('takes the same id twice when both rows say the same', async () => {
    const read = await readMasterFile(
      await tempFile(
        'terceros.csv',
        `${TERCEROS}31;900123456;Ferretería Andina S.A.S.;compras@andina.example;otra dirección\n`,
      ),
      SPEC,
    );
    expect(read.rows.size).toBe(2);
  });
});

describe('a master-data cell in the other number convention', () => {
  it("refuses its document, not the export: the cell is the third-party file's, not the export's", async () => {
    const terceros = TERCEROS.replace('compras@andina.example', '12.50');
    const read = await readMasterFile(await tempFile('terceros.csv', terceros), SPEC);
    const master: MasterTables = {
      customers: {
        table: 'customers',
        version: 4,
        file: 'terceros.csv',
        columns: read.columns,
        rows: Object.fromEntries(read.rows),
      },
    };
    // a number read from the table under the export's decimal ",": "12.50" reads only with a decimal point
    const m = await mappingFrom(
      MAPPING.replace(
        '  Currency: { const: COP }',
        '  Currency: { const: COP }\n  Note: { expr: "lookup(customers, Cliente, Correo)", as: decimal }',
      ),
    );
    const [andina, gomez] = await mapSales(m, master);
    expect(andina.problems.map((p) => [p.code, p.column])).toEqual([
      ['EDOC_MAP_BAD_NUMBER', 'customers.Correo'],
    ]);
    // 2 × 10.000,00 + 19 % = 23,800.00; Gómez has no Correo: the note is left out
    expect(requestOf(gomez).Total.PayableAmount).toBe('23800.00');
  });
});
