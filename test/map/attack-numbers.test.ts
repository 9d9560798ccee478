/**
 * Numbers written in another format than the mapping says: each reads to the exact value meant, or the
 * document is refused naming the column and row — never silently another value. Through the real CSV reader
 * and the shipped sales mapping (decimal ",", thousands ".") and a mapping with decimal "." and thousands ",".
 * One line, VAT 19 %, quantity 1 unless the cell under test is the quantity.
 */
import { describe, expect, it } from 'vitest';
import { mapping, readAll, sale, tempFile, toCsv } from './helpers.js';
import { mapFile, mappingFrom } from './values-amounts-helpers.js';

type Line = { UnitPrice: string; Quantity: string };
async function priceOf(
  cell: string,
  column: 'precio_unitario' | 'cantidad' = 'precio_unitario',
): Promise<{ line?: Line; codes: string[]; columns: unknown[]; rows: unknown[] }> {
  const { docs } = await readAll(
    await tempFile('v.csv', toCsv([sale('1', '1', { [column]: cell })])),
    await mapping('sales'),
    'invoice',
  );
  const d = docs[0];
  return {
    line: (d.request as { Lines: Line[] } | undefined)?.Lines[0],
    codes: d.problems.map((p) => p.code),
    columns: d.problems.map((p) => p.column),
    rows: d.problems.map((p) => p.rows),
  };
}

describe('decimal "," and thousands "." (the shipped sales mapping)', () => {
  it('reads its own format exactly', async () => {
    expect((await priceOf('1.234,56')).line?.UnitPrice).toBe('1234.56'); // 1·1000 + 234 + 0.56
    expect((await priceOf('1.234')).line?.UnitPrice).toBe('1234.00'); // a thousands group: one thousand two hundred thirty-four
    expect((await priceOf('$ 1.234')).line?.UnitPrice).toBe('1234.00'); // a currency sign before the number is allowed
    expect((await priceOf(',5')).line?.UnitPrice).toBe('0.50');
    expect((await priceOf('1.500', 'cantidad')).line?.Quantity).toBe('1500');
  });

  it('refuses what is not a number in it, naming the column and row', async () => {
    for (const cell of [
      '1.234.5',
      '-',
      '(1.500)',
      '1\u00a0234,56',
      '1\u202f234,56',
      '1 234,56',
      '12%',
      '1E3',
      '1e3',
      '0x10',
      '5,',
      '1_000',
      '12-',
      '-$1.000',
      '$$1',
      '１２',
      '1.000,00,00',
    ]) {
      const r = await priceOf(cell);
      expect({ cell, line: r.line, codes: r.codes, columns: r.columns, rows: r.rows }).toEqual({
        cell,
        line: undefined,
        codes: ['EDOC_MAP_BAD_NUMBER'],
        columns: ['precio_unitario'],
        rows: [[2]],
      });
    }
  });

  it('refuses the whole file where a cell is a number with a decimal point instead (1.5 is never 15)', async () => {
    for (const cell of ['1,234.56', '1.5', '.5', '12.50']) {
      await expect(priceOf(cell), cell).rejects.toMatchObject({
        code: 'EDOC_MAP_FORMAT_MISMATCH',
        context: { column: 'precio_unitario', row: 2, value: cell },
      });
    }
  });

  it('more than fits in cents, and blank against zero', async () => {
    // 17 integer digits: past the safe range of cents (2^53 ≈ 9.007 · 10^15 cents): refused, never rounded
    expect((await priceOf('12345678901234567,89')).codes).toEqual(['EDOC_MAP_BAD_NUMBER']);
    expect((await priceOf('')).codes).toEqual(['EDOC_MAP_REQUIRED']); // blank is never read as 0
    expect((await priceOf('0')).codes).toEqual(['EDOC_MAP_ZERO_LINE']); // a zero price is refused by the default guard
    expect((await priceOf('-0')).codes).toEqual(['EDOC_MAP_ZERO_LINE']);
  });
});

describe('decimal "." and thousands ","', () => {
  const yaml = `name: us
kinds: [invoice]
format: { delimiter: ";", decimal: ".", thousands: "," }
key: [n]
document:
  SeriePrefix: { expr: 'round(Precio, 2)', as: decimal }
  SerieNumber: { column: Precio, as: number }
`;
  it('reads 1,234.56 and 1.234 as written, refuses 1,23,4; a file with 1.234,56 is refused whole', async () => {
    const m = await mappingFrom(yaml);
    // 1.234,56 is a number only with a decimal comma: the file is in the other convention
    await expect(
      mapFile('n;Precio\r\n1;1,234.56\r\n2;1.234\r\n3;1.234,56\r\n', m, 'invoice'),
    ).rejects.toMatchObject({ code: 'EDOC_MAP_FORMAT_MISMATCH', context: { row: 4 } });
    // 1,23,4 is a number in neither: its document is refused, the others read
    const docs = await mapFile('n;Precio\r\n1;1,234.56\r\n2;1.234\r\n3;1,23,4\r\n', m, 'invoice');
    // 1,234.56 = 1234.56; 1.234 = one point two three four (round(…, 2) = 1.23)
    expect(docs[0].request).toEqual({ SeriePrefix: '1234.56', SerieNumber: '1234.56' });
    expect(docs[1].request).toEqual({ SeriePrefix: '1.23', SerieNumber: '1.234' });
    expect(docs[2].request).toBeUndefined();
    expect(docs[2].problems.map((p) => [p.column, p.rows])).toEqual([
      ['Precio', [4]],
      ['Precio', [4]],
    ]);
  });
});
