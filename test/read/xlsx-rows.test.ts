/**
 * The .xlsx sheet reader on packages whose XML is written here, for what a LibreOffice fixture does
 * not reach: rich shared strings with phonetic runs, OOXML `_xHHHH_` escapes, inline strings,
 * booleans, errors, formula strings, cells without references, the 1904 date system, built-in and
 * custom date formats. Serial dates counted by hand: 2026-11-18 is 46,344 days after 1899-12-30,
 * and 46,344 − 1,462 = 44,882 days after 1904-01-01.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openXlsxSheet } from '../../src/read/xlsx-rows.js';
import type { SheetRow } from '../../src/read/xlsx-rows.js';
import { xlsxPackage } from '../helpers/xlsx-package.js';
import type { XlsxParts } from '../helpers/xlsx-package.js';
import { removeDir, tempDir } from './read-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await removeDir(dir);
});

async function rowsOf(parts: XlsxParts, sheet?: string): Promise<SheetRow[]> {
  const file = path.join(dir, `t${Math.random().toString(36).slice(2)}.xlsx`);
  await writeFile(file, xlsxPackage(parts));
  const opened = await openXlsxSheet(file, sheet, { decimal: ',', date: 'dd/MM/yyyy' });
  const out: SheetRow[] = [];
  for await (const row of opened.rows(undefined, 1_000_000)) out.push(row);
  return out;
}

const STYLES =
  '<numFmts><numFmt numFmtId="164" formatCode="[$-240A]d&quot; de &quot;mmmm&quot; de &quot;yyyy"/>' +
  '<numFmt numFmtId="165" formatCode="#,##0.00\\ &quot;$&quot;"/></numFmts>' +
  '<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="22"/></cellXfs>';

describe('the .xlsx sheet reader', () => {
  test('every kind of text cell', async () => {
    const rows = await rowsOf({
      sharedStrings:
        '<si><t>Caf\u00e9</t></si><si><r><t>Muñoz </t></r><r><rPr><b/></rPr><t>Peña</t></r><rPh><t>ムニョス</t></rPh></si>' +
        '<si><t xml:space="preserve">línea 1_x000D_\nlínea 2</t></si>',
      sheets: [
        [
          'Hoja1',
          '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c>' +
            '<c r="D1" t="inlineStr"><is><t>0012345678</t></is></c><c r="E1" t="b"><v>1</v></c><c r="F1" t="e"><v>#N/A</v></c>' +
            '<c r="G1" t="str"><f>A1&amp;"!"</f><v>Café!</v></c></row>',
        ],
      ],
    });
    expect(rows).toEqual([
      {
        row: 1,
        cells: ['Café', 'Muñoz Peña', 'línea 1\r\nlínea 2', '0012345678', 'TRUE', '#N/A', 'Café!'],
      },
    ]);
  });

  test("numbers in the mapping's decimal, dates by built-in and custom formats, a currency format stays a number", async () => {
    const rows = await rowsOf({
      styles: STYLES,
      sheets: [
        [
          'Hoja1',
          '<row r="3"><c r="B3"><v>1234567.5</v></c><c r="C3" s="1"><v>46344</v></c><c r="D3" s="2"><v>46344</v></c>' +
            '<c r="E3" s="3"><v>21900.5</v></c><c r="F3" s="4"><v>46344.385416666664</v></c></row>' +
            // cells without a reference follow the one before
            '<row><c><v>1</v></c><c><v>2</v></c></row>',
        ],
      ],
    });
    expect(rows).toEqual([
      // 46344.385416666664 = 2026-11-18 + 9.25 h = 09:15:00
      // `typed`: the cells written from a number, no text of the export (map/column-numbers.ts)
      {
        row: 3,
        cells: ['', '1234567,5', '18/11/2026', '18/11/2026', '21900,5', '18/11/2026 09:15:00'],
        typed: new Set([1, 2, 3, 4, 5]),
      },
      { row: 4, cells: ['1', '2'], typed: new Set([0, 1]) },
    ]);
  });

  test('the 1904 date system', async () => {
    const rows = await rowsOf({
      workbookPr: 'date1904="1"',
      styles: STYLES,
      sheets: [['Hoja1', '<row r="1"><c r="A1" s="1"><v>44882</v></c></row>']],
    });
    expect(rows).toEqual([{ row: 1, cells: ['18/11/2026'], typed: new Set([0]) }]);
  });

  test('the named sheet, not the first', async () => {
    const rows = await rowsOf(
      {
        sheets: [
          ['Resumen', '<row r="1"><c r="A1"><v>1</v></c></row>'],
          ['Ventas', '<row r="7"><c r="C7"><v>2</v></c></row>'],
        ],
      },
      'VENTAS',
    );
    expect(rows).toEqual([{ row: 7, cells: ['', '', '2'], typed: new Set([2]) }]);
  });
});
