/**
 * An export written in the other number or date convention than its mapping's: one cell that reads
 * only in the other (`12.50` under a decimal comma, `04/13/2026` under dd/MM/yyyy) refuses the whole
 * file, since its cells that read either way (`45.000`, `03/04/2026`) would be issued wrong. A cell
 * that reads in neither is a typo of its own document. Real files in temp folders, the shipped
 * sales mapping (decimal ",", thousands ".", dd/MM/yyyy) or a copy with another format.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import iconv from 'iconv-lite';
import { EXAMPLES, MAPPINGS, mapping, readAll, sale, tempFile, toCsv } from './helpers.js';

/** The shipped sales mapping with `edit` applied to its YAML text. */
async function salesWith(edit: (yaml: string) => string): Promise<Mapping> {
  const yaml = await readFile(join(MAPPINGS, 'sales.csv.yaml'), 'utf8');
  const file = await tempFile('sales.csv.yaml', edit(yaml));
  return loadMapping(file);
}

const POINT = (y: string): string =>
  y.replace('decimal: ","', 'decimal: "."').replace('thousands: "."', 'thousands: ","');

describe('an export in the other number convention than its mapping is refused whole', () => {
  it('a decimal point under decimal ",": 12.50 on row 3 refuses the file, never issuing 45.000 as 45,000.00', async () => {
    // row 2: 1 × 45.000 would read 45000.00 (meant 45.00), row 3: 12.50 reads only with a decimal point
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1', { precio_unitario: '45.000' }),
        sale('990000102', '1', { precio_unitario: '12.50' }),
      ]),
    );
    await expect(readAll(file, await mapping('sales'), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { file: 'ventas.csv', row: 3, column: 'precio_unitario', value: '12.50' },
    });
    const err = await readAll(file, await mapping('sales'), 'invoice').catch((e: Error) => e);
    expect((err as Error).message).toMatch(
      /^ventas\.csv row 3, column "precio_unitario": "12\.50" is not a number in the mapping's format \(decimal ",", thousands "\."\) but is one with decimal "\.", thousands ",": the file seems to be written with a decimal point.*Nothing of the file is sent: fix the mapping's format \(decimal: "\.", thousands: ","\)/,
    );
  });

  it('the mirror: a decimal comma under decimal ".": 1,5 refuses the file, never issuing 1,250 as 1250 units', async () => {
    const m = await salesWith(POINT);
    // row 2: 1,250 units would read 1250 (meant 1.25); row 3: a quantity 1,5 reads only with a decimal comma
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1', { cantidad: '1,250', precio_unitario: '40.00' }),
        sale('990000102', '1', { cantidad: '1,5', precio_unitario: '40.00' }),
      ]),
    );
    await expect(readAll(file, m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      message: expect.stringContaining('seems to be written with a decimal comma'),
      context: { row: 3, column: 'cantidad', value: '1,5' },
    });
  });

  it('the evidence may come in any document, after many ambiguous ones: the read ends there', async () => {
    const rows = Array.from({ length: 40 }, (_, i) =>
      sale(String(990000101 + i), '1', { precio_unitario: '1.250' }),
    );
    rows.push(sale('990000141', '1', { precio_unitario: '3.10' }));
    const file = await tempFile('ventas.csv', toCsv(rows));
    await expect(readAll(file, await mapping('sales'), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { row: 42, column: 'precio_unitario' },
    });
  });

  it('a cell an expression reads (coalesce, arithmetic) counts as the column itself', async () => {
    const m = await salesWith((y) =>
      y.replace(
        /UnitPrice: \{ column: precio_unitario[^}]*\}/,
        "UnitPrice: { expr: 'round(precio_unitario * 1, 2)', as: decimal, required: true }",
      ),
    );
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1', { precio_unitario: '45.000' }),
        sale('990000102', '1', { precio_unitario: '12.50' }),
      ]),
    );
    await expect(readAll(file, m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { row: 3, column: 'precio_unitario' },
    });
  });

  it('cells a concat joins count as the columns themselves: a sign column before the quantity', async () => {
    const m = await salesWith((y) =>
      y.replace(
        /Quantity: \{ column: cantidad[^}]*\}/,
        'Quantity: { concat: [{ column: signo }, { column: cantidad }], as: number, required: true }',
      ),
    );
    // row 2: 1.250 units would read 1250 (meant 1.25); row 3: 1.5 reads only with a decimal point
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        { ...sale('990000101', '1', { cantidad: '1.250' }), signo: '' },
        { ...sale('990000102', '1', { cantidad: '1.5' }), signo: '' },
      ]),
    );
    await expect(readAll(file, m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { file: 'ventas.csv', row: 3, column: 'signo, cantidad', value: '1.5' },
    });
  });

  it('without grouping (thousands ""), 12.500 may be 12500 grouped: the advice names both fixes', async () => {
    // Siigo Nube's preset format: decimal ",", no thousands. 12.500 is 12500 with thousands "." and
    // 12.5 with a decimal point; advising only decimal "." would issue an export grouped with dots at
    // 1/1000 (12.500 as 12.50). The cell that reads wrong under this format is a grouped one: 1,250
    // (1250 with a decimal point and thousands ",") read as 1.25, not 1.250 (which does not read here).
    const m = await salesWith((y) => y.replace('thousands: "."', 'thousands: ""'));
    const file = await tempFile(
      'ventas.csv',
      toCsv([sale('990000101', '1', { precio_unitario: '12.500' })]),
    );
    const err = (await readAll(file, m, 'invoice').catch((e: Error) => e)) as Error;
    expect(err).toMatchObject({ code: 'EDOC_MAP_FORMAT_MISMATCH', context: { row: 2 } });
    expect(err.message).toContain(
      '"12.500" is not a number in the mapping\'s format (decimal ",", thousands "") but is one both ' +
        'with decimal ",", thousands "." (12500) and with decimal ".", thousands "," (12.500)',
    );
    expect(err.message).toContain('(1,250 as 1.25)');
    expect(err.message).toContain(
      'fix the mapping\'s format (thousands: "." if the export groups thousands, or decimal: ".", ' +
        'thousands: "," if it writes a decimal point)',
    );
    // 12.50 (a group of two) is a decimal point only; the example is still the grouped cell
    const point = await tempFile(
      'ventas.csv',
      toCsv([sale('990000101', '1', { precio_unitario: '12.50' })]),
    );
    const err2 = (await readAll(point, m, 'invoice').catch((e: Error) => e)) as Error;
    expect(err2.message).toContain('the file seems to be written with a decimal point');
    expect(err2.message).toContain('(1,250 as 1.25)');
  });

  it('a typo that reads in neither convention refuses its own document only: the others are issued', async () => {
    // 12,5,0 is a number neither with decimal "," nor with decimal "."; the other rows: 1 × 1.000,00 + 19 % = 1,190.00
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1'),
        sale('990000102', '1', { precio_unitario: '12,5,0' }),
        sale('990000103', '1', { precio_unitario: '2.500,00' }),
      ]),
    );
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(
      docs.map((d) => [
        d.key,
        d.problems.map((p) => p.code),
        (d.request as { Total?: { PayableAmount: string } } | undefined)?.Total?.PayableAmount,
      ]),
    ).toEqual([
      ['SETP990000101', [], '1190.00'],
      ['SETP990000102', ['EDOC_MAP_BAD_NUMBER'], undefined],
      // 2.500,00 + 19 % = 2,975.00
      ['SETP990000103', [], '2975.00'],
    ]);
  });
});

describe('every kind: a payroll export of one row per employee', () => {
  it('a health deduction written 274000.50 on row 3 refuses the whole payroll file', async () => {
    const text = iconv.decode(await readFile(join(EXAMPLES, 'payroll.csv')), 'windows-1252');
    const edited = text.replace(
      '274.000,00;4;274.000,00;412.350,00',
      '274000.50;4;274.000,00;412.350,00',
    );
    expect(edited).not.toBe(text);
    const file = await tempFile('nomina.csv', edited, 'windows-1252');
    await expect(readAll(file, await mapping('payroll'), 'payroll')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { file: 'nomina.csv', row: 3, column: 'salud', value: '274000.50' },
    });
  });
});

describe('an export in the other date convention than its mapping is refused whole', () => {
  it('MM/dd/yyyy under dd/MM/yyyy: 04/13/2026 refuses the file, never issuing 03/04/2026 as 3 April', async () => {
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1', { fecha: '03/04/2026' }),
        sale('990000102', '1', { fecha: '04/13/2026' }),
      ]),
    );
    await expect(readAll(file, await mapping('sales'), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      message: expect.stringContaining(
        "not a date in the mapping's form dd/MM/yyyy but is one in MM/dd/yyyy (2026-04-13)",
      ),
      context: { file: 'ventas.csv', row: 3, column: 'fecha', value: '04/13/2026' },
    });
  });

  it('31/02/2026 is a date in neither: its document is refused, the file is not', async () => {
    const file = await tempFile(
      'ventas.csv',
      toCsv([sale('990000101', '1'), sale('990000102', '1', { fecha: '31/02/2026' })]),
    );
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    // the date is read by IssueDate, DueDate and the payment's due date: one code, three fields
    expect(docs.map((d) => [...new Set(d.problems.map((p) => p.code))])).toEqual([
      [],
      ['EDOC_MAP_BAD_DATE'],
    ]);
  });

  it('a pattern whose year comes first (yyyy-MM-dd) has no twin: 2026-13-04 is a typo of its document', async () => {
    const m = await salesWith((y) => y.replace('date: dd/MM/yyyy', 'date: yyyy-MM-dd'));
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1', { fecha: '2026-11-18' }),
        sale('990000102', '1', { fecha: '2026-13-04' }),
      ]),
    );
    const { docs } = await readAll(file, m, 'invoice');
    // the date is read by IssueDate, DueDate and the payment's due date: one code, three fields
    expect(docs.map((d) => [...new Set(d.problems.map((p) => p.code))])).toEqual([
      [],
      ['EDOC_MAP_BAD_DATE'],
    ]);
  });
});

describe('the cell a date-and-time mismatch quotes', () => {
  /** The Loyverse sample's header and first row (receipt 1-1042), its Date cell replaced. */
  async function loyverse(date: string): Promise<string> {
    const sample = await readFile(
      join(EXAMPLES, 'erp/loyverse/loyverse-recibos-por-articulo.csv'),
      'utf8',
    );
    const [header, first] = sample.split('\n');
    return tempFile('recibos.csv', `${header}\n${first.replace('21/11/2026 14:32', date)}\n`);
  }

  it('is the whole cell as the export wrote it, not the date the preset splits off', async () => {
    // the Loyverse preset reads Date's first part (split on " ") as the day: 11/21/2026 is one only month first
    const m = await loadMapping(join(MAPPINGS, 'erp/loyverse-pos.yaml'));
    const err = (await readAll(await loyverse('11/21/2026 14:32'), m, 'pos').catch(
      (e: unknown) => e,
    )) as Error & { code: string; context: Record<string, unknown> };
    expect(err.code).toBe('EDOC_MAP_FORMAT_MISMATCH');
    expect(err.message).toContain(
      `column "Date": "11/21/2026 14:32" is not a date in the mapping's form dd/MM/yyyy but is one in MM/dd/yyyy (2026-11-21)`,
    );
    expect(err.context).toMatchObject({ row: 2, column: 'Date', value: '11/21/2026 14:32' });
  });

  it('cut as every quote of a cell is: 60 characters and the full length', async () => {
    const m = await loadMapping(join(MAPPINGS, 'erp/loyverse-pos.yaml'));
    // 11/21/2026 (10) + " " + 14:32 (5) + " " + 80 × "x" = 97 characters; the first 60 shown
    const cell = `11/21/2026 14:32 ${'x'.repeat(80)}`;
    const err = (await readAll(await loyverse(cell), m, 'pos').catch(
      (e: unknown) => e,
    )) as Error & {
      context: Record<string, unknown>;
    };
    const shown = `${cell.slice(0, 60)}… (97 characters)`;
    expect(err.message).toContain(`column "Date": "${shown}" is not a date`);
    expect(err.context.value).toBe(shown);
  });
});
