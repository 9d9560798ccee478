/**
 * The BIFF8 record reader on a workbook stream written record by record here ([MS-XLS] 2.4), for
 * the cases a small LibreOffice fixture does not reach: a shared string split across a Continue
 * record that switches from one-byte to UTF-16 characters, RK numbers (integer, hundredths),
 * MulRk, a Number, a date cell through its XF and Format, a percent cell, and a sheet picked by name.
 */
import CFB from 'cfb';
import { describe, expect, test } from 'vitest';
import { readXlsSheet } from '../../src/read/xls-rows.js';

function record(type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(data.length, 2);
  return Buffer.concat([head, data]);
}
const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const bof = (dt: number): Buffer =>
  record(0x0809, Buffer.concat([u16(0x0600), u16(dt), Buffer.alloc(12)]));
const eof = (): Buffer => record(0x000a, Buffer.alloc(0));
const cell = (row: number, col: number, xf: number): Buffer =>
  Buffer.concat([u16(row), u16(col), u16(xf)]);
/** RK of an integer, or of an integer number of hundredths (`hundredths`). */
const rk = (n: number, hundredths = false): number => ((n << 2) | 2 | (hundredths ? 1 : 0)) >>> 0;

function workbook(sheetNames: string[], sheetBody: Buffer, globals: Buffer[] = []): Buffer {
  const boundsheet = (name: string, offset: number): Buffer =>
    record(
      0x0085,
      Buffer.concat([
        u32(offset),
        Buffer.from([0, 0, name.length, 0]),
        Buffer.from(name, 'latin1'),
      ]),
    );
  // SST: "Café" whole; "Ñandú número 5" (14 characters): 6 one-byte characters, then a Continue
  // record whose first byte (1) says the other 8 are UTF-16
  const sst = record(
    0x00fc,
    Buffer.concat([
      u32(2),
      u32(2),
      u16(4),
      Buffer.from([0]),
      Buffer.from('Café', 'latin1'),
      u16(14),
      Buffer.from([0]),
      Buffer.from('Ñandú ', 'latin1'),
    ]),
  );
  const cont = record(
    0x003c,
    Buffer.concat([Buffer.from([1]), Buffer.from('número 5', 'utf16le')]),
  );
  // Format 164 "dd/mm/yyyy" and three XF records: XF 0 general, XF 1 that date format, XF 2 the
  // built-in percent format 9 (`0%`)
  const format = record(
    0x041e,
    Buffer.concat([u16(164), u16(10), Buffer.from([0]), Buffer.from('dd/mm/yyyy', 'latin1')]),
  );
  // Format 165 "00000": XF 3 pads whole numbers to five digits
  const padded = record(
    0x041e,
    Buffer.concat([u16(165), u16(5), Buffer.from([0]), Buffer.from('00000', 'latin1')]),
  );
  const xf = (fmt: number): Buffer =>
    record(0x00e0, Buffer.concat([u16(0), u16(fmt), Buffer.alloc(16)]));
  const globalsWithout = (offsets: number[]): Buffer =>
    Buffer.concat([
      bof(0x0005),
      format,
      padded,
      xf(0),
      xf(164),
      xf(9),
      xf(165),
      ...globals,
      ...sheetNames.map((n, i) => boundsheet(n, offsets[i])),
      sst,
      cont,
      eof(),
    ]);
  const globalsLength = globalsWithout(sheetNames.map(() => 0)).length;
  const sheets = sheetNames.map(() => Buffer.concat([bof(0x0010), sheetBody, eof()]));
  const offsets = sheets.map(
    (_, i) => globalsLength + sheets.slice(0, i).reduce((n, s) => n + s.length, 0),
  );
  const stream = Buffer.concat([globalsWithout(offsets), ...sheets]);
  const cfb = CFB.utils.cfb_new();
  CFB.utils.cfb_add(cfb, 'Workbook', stream);
  return CFB.write(cfb, { type: 'buffer' }) as Buffer;
}

const body = Buffer.concat([
  record(0x00fd, Buffer.concat([cell(0, 0, 0), u32(0)])), // LabelSst A1 -> "Café"
  record(0x00fd, Buffer.concat([cell(0, 1, 0), u32(1)])), // LabelSst B1 -> the split string
  record(0x027e, Buffer.concat([cell(1, 0, 0), u32(rk(123))])), // RK A2 = 123
  record(0x027e, Buffer.concat([cell(1, 1, 0), u32(rk(123450, true))])), // RK B2 = 123450 / 100 = 1234.5
  record(0x00bd, Buffer.concat([u16(2), u16(0), u16(0), u32(rk(7)), u16(0), u32(rk(-3)), u16(1)])), // MulRk A3:B3 = 7, -3
  record(
    0x0203,
    (() => {
      const b = Buffer.alloc(14);
      cell(3, 0, 0).copy(b);
      b.writeDoubleLE(0.1 + 0.2, 6);
      return b;
    })(),
  ),
  // RK C4 = 46344 through XF 1 (dd/mm/yyyy): 2026-11-18 (46,344 days after 1899-12-30)
  record(0x027e, Buffer.concat([cell(3, 2, 1), u32(rk(46344))])),
  // RK D4 = 19 hundredths through XF 2 (0%): shown 19%, and so it reaches the mapping
  record(0x027e, Buffer.concat([cell(3, 3, 2), u32(rk(19, true))])),
]);

describe('the BIFF8 record reader', () => {
  test('shared strings across a Continue record, RK, MulRk, Number and a serial date', () => {
    const sheet = readXlsSheet(workbook(['Hoja1'], body), undefined, {
      decimal: ',',
      date: 'dd/MM/yyyy',
    });
    expect(sheet.name).toBe('Hoja1');
    expect(sheet.rows).toEqual([
      { row: 1, cells: ['Café', 'Ñandú número 5'] },
      // `typed`: the cells written from a number, no text of the export (map/column-numbers.ts)
      { row: 2, cells: ['123', '1234,5'], typed: new Set([0, 1]) },
      { row: 3, cells: ['7', '-3'], typed: new Set([0, 1]) },
      { row: 4, cells: ['0,3', '', '18/11/2026', '19%'], typed: new Set([0, 2, 3]) }, // 0.1 + 0.2 as Excel shows it
    ]);
  });

  test('a sheet by name, case-insensitive; an unknown one lists the sheets', () => {
    const bytes = workbook(['Resumen', 'Ventas'], body);
    expect(readXlsSheet(bytes, 'ventas', { decimal: '.', date: 'yyyy-MM-dd' }).name).toBe('Ventas');
    expect(() => readXlsSheet(bytes, 'Notas', { decimal: '.', date: 'yyyy-MM-dd' })).toThrow(
      'it has no sheet named "Notas" (sheets: "Resumen", "Ventas")',
    );
  });

  test('a whole number under a zero-padded format (00000) keeps the zeros it shows', () => {
    // RK A1 = 123 and B1 = 123456 through XF 3 (00000): 00123, and 123456 wider than the format;
    // C1 = 12.5 (1250 hundredths) is no whole number: as stored
    const padBody = Buffer.concat([
      record(0x027e, Buffer.concat([cell(0, 0, 3), u32(rk(123))])),
      record(0x027e, Buffer.concat([cell(0, 1, 3), u32(rk(123456))])),
      record(0x027e, Buffer.concat([cell(0, 2, 3), u32(rk(1250, true))])),
    ]);
    const sheet = readXlsSheet(workbook(['Hoja1'], padBody), undefined, {
      decimal: ',',
      date: 'dd/MM/yyyy',
    });
    expect(sheet.rows).toEqual([
      { row: 1, cells: ['00123', '123456', '12,5'], typed: new Set([0, 1, 2]) },
    ]);
  });

  test('a date-and-time cell at midnight keeps its 00:00:00 under a format that shows the time', () => {
    // XF 4 (after the four of every workbook here) has the built-in format 22 (m/d/yy h:mm); RK A1 =
    // 46347 through it is 21/11/2026 at 00:00 (a whole serial), B1 through XF 1 (dd/mm/yyyy) the day only
    const xf22 = record(0x00e0, Buffer.concat([u16(0), u16(22), Buffer.alloc(16)]));
    const midnight = Buffer.concat([
      record(0x027e, Buffer.concat([cell(0, 0, 4), u32(rk(46347))])),
      record(0x027e, Buffer.concat([cell(0, 1, 1), u32(rk(46347))])),
    ]);
    const sheet = readXlsSheet(workbook(['Hoja1'], midnight, [xf22]), undefined, {
      decimal: ',',
      date: 'dd/MM/yyyy',
    });
    expect(sheet.rows).toEqual([
      { row: 1, cells: ['21/11/2026 00:00:00', '21/11/2026'], typed: new Set([0, 1]) },
    ]);
  });

  test('a number under a format showing another currency reaches the mapping after it', () => {
    // Format 166 "[$USD] #,##0.00" and XF 4 with it: RK A1 = 123450 hundredths is USD 1234,5, never a
    // bare 1234,5 a mapping would issue as pesos; B1 through XF 0 (General) is the bare number
    const code = '[$USD] #,##0.00';
    const usd = record(
      0x041e,
      Buffer.concat([u16(166), u16(code.length), Buffer.from([0]), Buffer.from(code, 'latin1')]),
    );
    const xf166 = record(0x00e0, Buffer.concat([u16(0), u16(166), Buffer.alloc(16)]));
    const cells = Buffer.concat([
      record(0x027e, Buffer.concat([cell(0, 0, 4), u32(rk(123450, true))])),
      record(0x027e, Buffer.concat([cell(0, 1, 0), u32(rk(123450, true))])),
    ]);
    const sheet = readXlsSheet(workbook(['Hoja1'], cells, [xf166, usd]), undefined, {
      decimal: ',',
      date: 'dd/MM/yyyy',
    });
    expect(sheet.rows).toEqual([
      { row: 1, cells: ['USD 1234,5', '1234,5'], typed: new Set([0, 1]) },
    ]);
  });

  describe('formulas', () => {
    // RecalcId (0x01C1) with the build of the engine that computed the values, as Excel and LibreOffice write
    const recalcId = record(0x01c1, Buffer.concat([u16(0x01c1), u16(0), u32(0x00016980)]));
    /** Formula B1 = 5+14 (tokens ptgInt 5, ptgInt 14, ptgAdd), its saved result the 8 bytes given. */
    const formula = (result: Buffer): Buffer =>
      record(
        0x0006,
        Buffer.concat([
          cell(0, 1, 0),
          result,
          u16(0),
          u32(0),
          u16(7),
          Buffer.from([0x1e, 5, 0, 0x1e, 14, 0, 0x03]),
        ]),
      );
    const number19 = Buffer.alloc(8);
    number19.writeDoubleLE(19);
    // xlwt's saved result: 0xFFFF000000000003 little-endian, an empty text
    const xlwtResult = Buffer.from([3, 0, 0, 0, 0, 0, 0xff, 0xff]);
    const label = record(0x00fd, Buffer.concat([cell(0, 0, 0), u32(0)]));
    const FORMAT = { decimal: ',', date: 'dd/MM/yyyy' } as const;

    test('a computed value is read', () => {
      const bytes = workbook(['Hoja1'], Buffer.concat([label, formula(number19)]), [recalcId]);
      expect(readXlsSheet(bytes, undefined, FORMAT).rows).toEqual([
        { row: 1, cells: ['Café', '19'], typed: new Set([1]) },
      ]);
    });

    test('a workbook no engine calculated (no RecalcId: xlwt) is refused naming the cell, never read blank', () => {
      const bytes = workbook(['Hoja1'], Buffer.concat([label, formula(xlwtResult)]));
      expect(() => readXlsSheet(bytes, undefined, FORMAT)).toThrow(
        'cell B1 of sheet "Hoja1" holds a formula whose value was never computed',
      );
    });

    test('a sheet saved with formulas pending recalculation (Uncalced) is refused', () => {
      const uncalced = record(0x005e, u16(0));
      const bytes = workbook(['Hoja1'], Buffer.concat([uncalced, label, formula(number19)]), [
        recalcId,
      ]);
      expect(() => readXlsSheet(bytes, undefined, FORMAT)).toThrow(
        'cell B1 of sheet "Hoja1" holds a formula whose value was never computed',
      );
    });
  });
});
