/**
 * Expressions attacked at their bounds, through the CSV reader and the mapping as the daemon runs them. The
 * export writes decimal comma and thousands point; every expected figure is worked by hand in a comment.
 */
import { describe, expect, it } from 'vitest';
import { mapFile, mappingFrom } from './values-amounts-helpers.js';

function doc(fields: string): string {
  return `name: attack\nkinds: [invoice]\nformat: { delimiter: ";", decimal: ",", thousands: "." }\nkey: [n]\ndocument:\n${fields}`;
}

describe("a cell that is an expression's result is read in the export's format", () => {
  it('coalesce([Valor Descuento], 0) of "10.000" is 10,000.00, not 10.00', async () => {
    // "10.000" = ten thousand under thousands "."; "2.500,50" = 2500.50; blank -> the 0 of coalesce
    const m = await mappingFrom(
      doc("  SeriePrefix: { expr: 'coalesce([Valor Descuento], 0)', as: decimal }\n"),
    );
    const docs = await mapFile(
      'n;Valor Descuento\r\n1;10.000\r\n2;2.500,50\r\n3;\r\n',
      m,
      'invoice',
    );
    expect(docs.map((d) => d.request)).toEqual([
      { SeriePrefix: '10000.00' },
      { SeriePrefix: '2500.50' },
      { SeriePrefix: '0.00' },
    ]);
  });

  it('if(Tipo = \'NC\', abs(Cantidad), Cantidad) of "1.500" is 1500 on both branches', async () => {
    // the NC branch computes abs(-1.500) = 1500; the other branch is the cell itself: 1.500 = 1500, never 1.5
    const m = await mappingFrom(
      doc('  SeriePrefix: { expr: "if(Tipo = \'NC\', abs(Cantidad), Cantidad)", as: number }\n'),
    );
    const docs = await mapFile('n;Tipo;Cantidad\r\n1;NC;-1.500\r\n2;FV;1.500\r\n', m, 'invoice');
    expect(docs.map((d) => d.request)).toEqual([{ SeriePrefix: '1500' }, { SeriePrefix: '1500' }]);
  });

  it("a cell result that is not a number in the export's format is refused naming the column, never re-read as plain", async () => {
    // "1.5" is no number under decimal "," and thousands "." (groups of three), but is one with a decimal
    // point: the file is refused whole as a column: value would be, never read as 1.5 nor 15
    const m = await mappingFrom(
      doc("  SeriePrefix: { expr: 'coalesce(Precio, 0)', as: decimal }\n"),
    );
    await expect(mapFile('n;Precio\r\n1;1.5\r\n', m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { column: 'Precio', row: 2 },
    });
    // "1.5.0" is a number in neither convention: its document is refused, naming the column
    const [d] = await mapFile('n;Precio\r\n1;1.5.0\r\n', m, 'invoice');
    expect(d.request).toBeUndefined();
    expect(d.problems.map((p) => [p.code, p.column, p.rows])).toEqual([
      ['EDOC_MAP_BAD_NUMBER', 'Precio', [2]],
    ]);
  });

  it('a percentage cell through coalesce keeps its rate (19 % -> 19.00)', async () => {
    const m = await mappingFrom(doc("  SeriePrefix: { expr: 'coalesce(IVA, 0)', as: percent }\n"));
    const docs = await mapFile('n;IVA\r\n1;19 %\r\n2;5\r\n', m, 'invoice');
    expect(docs.map((d) => d.request)).toEqual([{ SeriePrefix: '19.00' }, { SeriePrefix: '5.00' }]);
  });

  it('a text result stays the cell as written (leading zeros kept)', async () => {
    const m = await mappingFrom(doc("  SerieNumber: { expr: 'coalesce(Numero, n)' }\n"));
    const [d] = await mapFile('n;Numero\r\n1;000123\r\n', m, 'invoice');
    expect(d.request).toEqual({ SerieNumber: '000123' });
  });
});

describe('arithmetic at its bounds', () => {
  it('rounds half-up in magnitude at .5, and never gives negative zero', async () => {
    // A has three decimals (2,345), said so: else it could be 2345 grouped (column-numbers.ts)
    const m = await mappingFrom(
      doc(
        [
          "  SeriePrefix: { expr: 'round(A, 2)', as: number }",
          "  SerieNumber: { expr: 'round(-A, 2)', as: number }",
          "  Currency: { expr: 'round(B, 2)', as: number }",
          "  OperationType: { expr: 'A * 0 - 0', as: number }",
        ].join('\n') + '\n',
      ).replace('thousands: "." }', 'thousands: ".", threeDecimals: [A] }'),
    );
    // A = 2,345 -> 2.35 and -2.35 (half away from zero); B = -0,004 -> -0.00 -> 0; A × 0 − 0 = 0 (never "-0")
    const [d] = await mapFile('n;A;B\r\n1;2,345;-0,004\r\n', m, 'invoice');
    expect(d.request).toEqual({
      SeriePrefix: '2.35',
      SerieNumber: '-2.35',
      Currency: '0',
      OperationType: '0',
    });
  });

  it('a division by zero and a 40-digit cell are refused; a quotient is exact to 12 decimals', async () => {
    const m = await mappingFrom(
      doc(
        "  SeriePrefix: { expr: 'A / B', as: decimal }\n  SerieNumber: { expr: 'round(1 / B, 12)', as: number }\n",
      ),
    );
    // row 2: 1 / 0; row 3: 10^40 / 1 = an amount past the safe range of cents; row 4: 10 / 3 = 3.33, 1 / 3 = 0.333333333333
    const docs = await mapFile(
      `n;A;B\r\n1;1;0\r\n2;1${'0'.repeat(40)};1\r\n3;10;3\r\n`,
      m,
      'invoice',
    );
    expect(docs[0].problems.map((p) => p.code)).toContain('EDOC_MAP_EXPRESSION');
    expect(docs[0].request).toBeUndefined();
    expect(docs[1].problems.map((p) => p.code)).toEqual(['EDOC_MAP_BAD_NUMBER']);
    expect(docs[2].request).toEqual({ SeriePrefix: '3.33', SerieNumber: '0.333333333333' });
  });

  it('deep nesting and very long expressions are refused at load, naming the key', async () => {
    const deep = `${'('.repeat(30)}A${')'.repeat(30)}`;
    await expect(
      mappingFrom(doc(`  SeriePrefix: { expr: '${deep}', as: decimal }\n`)),
    ).rejects.toThrow(/document\.SeriePrefix\.expr/);
    const long = Array.from({ length: 300 }, () => 'A').join(' + ');
    await expect(
      mappingFrom(doc(`  SeriePrefix: { expr: '${long}', as: decimal }\n`)),
    ).rejects.toThrow(/document\.SeriePrefix\.expr/);
  });
});
