/**
 * A date-and-time cell at exactly midnight is a whole Excel serial: under a format that shows the time
 * (`dd/mm/yyyy hh:mm`) it reaches the mapping with its `00:00:00`, as the sheet shows it, so a
 * Loyverse receipt rung up at 00:00 is issued at 00:00:00 instead of being refused for a missing time.
 * Through openSource and the shipped Loyverse preset, and the sheet-value rules alone.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import { isoDateText, serialDateText, showsTimeOfDay } from '../../src/read/sheet-values.js';
import { sheetRows, xlsxPackage, type SheetCell } from '../helpers/xlsx-package.js';
import { all, COMPANY, removeDir, tempDir } from './read-helpers.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
let mapping: Mapping;
let dir: string;
beforeAll(async () => {
  dir = await tempDir();
  mapping = await loadMapping(path.join(ROOT, 'config/mappings/erp/loyverse-pos.yaml'));
});
afterAll(async () => {
  await removeDir(dir);
});

const HEADER = [
  'Date',
  'Receipt number',
  'Receipt type',
  'Category',
  'SKU',
  'Item',
  'Variant',
  'Modifiers applied',
  'Quantity',
  'Gross sales',
  'Discounts',
  'Net sales',
  'Cost of goods',
  'Gross profit',
  'Taxes',
  'POS',
  'Store',
  'Cashier name',
  'Customer name',
  'Customer contacts',
  'Comment',
  'Status',
];

/** Styles: 0 General, 1 `dd/mm/yyyy hh:mm` (custom 164), 2 `dd/mm/yyyy` (built-in 14). */
const STYLES =
  '<numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy\\ hh:mm"/></numFmts>' +
  '<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="14"/></cellXfs>';

/** One item of a receipt: 1 × 11,900.00 with 1,900.00 VAT (19 % of 10,000.00). */
function item(date: SheetCell, receipt: string): SheetCell[] {
  return [date, receipt, 'Sale', 'Café', 'SKU-001', 'Café molido 500 g', '', '', '1', '11900.00']
    .concat(['0.00', '11900.00', '6000.00', '5900.00', '1900.00', 'POS 1', 'Tienda Centro'])
    .concat(['Luis Rojas', '', '', '', 'Closed']);
}

type Pos = { documento: { fechaEmision: string; horaEmision: string } };

describe('a Loyverse receipt at midnight in a spreadsheet', () => {
  test('is issued at 00:00:00 on its day; one at 14:32 keeps its time', async () => {
    // 46347 = 21/11/2026 (46,347 days after 1899-12-30), a whole serial: 00:00:00;
    // 46347.6055555… = 21/11/2026 14:32 (872 of 1,440 minutes)
    const file = path.join(dir, 'recibos.xlsx');
    const rows = [HEADER, item([46347, 1], '1-2001'), item([46347 + 872 / 1440, 1], '1-2002')];
    await writeFile(file, xlsxPackage({ sheets: [['Recibos', sheetRows(rows)]], styles: STYLES }));
    const docs = await all(
      (await openSource(file, 'pos', { company: COMPANY, mapping })).documents,
    );
    expect(docs.map((d) => d.problems)).toEqual([[], []]);
    expect(docs.map((d) => (d.request as Pos).documento)).toMatchObject([
      { fechaEmision: '2026-11-21', horaEmision: '00:00:00' },
      { fechaEmision: '2026-11-21', horaEmision: '14:32:00' },
    ]);
  });
});

describe('which date cells carry their time of day', () => {
  test('midnight under a format showing the time is 00:00:00; under a day-only format, the day', () => {
    expect(serialDateText(46347, false, 'dd/MM/yyyy', true)).toBe('21/11/2026 00:00:00');
    expect(serialDateText(46347, false, 'dd/MM/yyyy', false)).toBe('21/11/2026');
    // 1904 system: 46347 − 1,462 days
    expect(serialDateText(46347 - 1462, true, 'dd/MM/yyyy', true)).toBe('21/11/2026 00:00:00');
    expect(isoDateText('2026-11-21T00:00:00', 'dd/MM/yyyy', true)).toBe('21/11/2026 00:00:00');
    expect(isoDateText('2026-11-21T00:00:00', 'dd/MM/yyyy', false)).toBe('21/11/2026');
  });

  test('formats that show a time of day beside the day', () => {
    expect(showsTimeOfDay(22, undefined)).toBe(true); // m/d/yy h:mm
    expect(showsTimeOfDay(14, undefined)).toBe(false); // m/d/yyyy
    expect(showsTimeOfDay(164, 'dd/mm/yyyy\\ hh:mm')).toBe(true);
    expect(showsTimeOfDay(165, '[$-240A]yyyy-mm-dd h:mm:ss AM/PM')).toBe(true);
    expect(showsTimeOfDay(166, 'dd/mm/yyyy')).toBe(false);
    expect(showsTimeOfDay(167, 'hh:mm')).toBe(false); // a time alone
    expect(showsTimeOfDay(168, '"hora" dd/mm/yyyy')).toBe(false); // an h in a literal is no time
  });
});
