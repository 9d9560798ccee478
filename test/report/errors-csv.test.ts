import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvCell, ErrorsCsvWriter, formatPositions } from '../../src/report/errors-csv.js';
import { docRow, tempDir } from './helpers.js';

describe('NAME.errors.csv', () => {
  it('quotes ; quotes and newlines per RFC 4180 and neutralises formula cells', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a;b')).toBe('"a;b"');
    expect(csvCell('say "no"')).toBe('"say ""no"""');
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+57 1')).toBe("'+57 1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell(null)).toBe('');
    expect(formatPositions([7, 2, 3, 4, 9])).toBe('2-4, 7, 9');
  });

  it('writes UTF-8 with BOM, CRLF, one row per problem, and reads back as the same cells', async () => {
    const target = path.join(tempDir(), 'ventas.errors.csv');
    const w = new ErrorsCsvWriter(target);
    await w.add(docRow({ state: 'accepted' }));
    await w.add(
      docRow({
        index: 3,
        source: { rows: [5, 6, 7] },
        state: 'invalid',
        key: null,
        resultCode: null,
        problems: [
          {
            code: 'EDOC_MAP_BAD_NUMBER',
            field: 'Valor; neto',
            value: '=1+2',
            rows: [6],
            message: 'not a "number"\nin row 6',
          },
          {
            code: 'EDOC_VALIDATE_TOTALS',
            field: 'Total',
            message: 'Total does not add up: 119,00 ≠ 120,00',
          },
        ],
      }),
    );
    await w.add(
      docRow({ index: 4, state: 'rejected', errors: [{ message: 'Rechazo: cliente sin NIT' }] }),
    );
    await w.add(docRow({ index: 5, state: 'in-doubt', source: { lines: [9] } }));
    expect(await w.commit()).toBe(true);

    const bytes = fs.readFileSync(target);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8').slice(1);
    expect(text.endsWith('\r\n')).toBe(true);
    // outside quoted cells every line ends in CRLF
    expect(/[^\r]\n/.test(text.replace(/"[^"]*"/g, ''))).toBe(false);
    const rows = parse(text, { delimiter: ';', relax_column_count: false }) as string[][];
    expect(rows[0]).toEqual([
      'index',
      'key',
      'status',
      'source',
      'code',
      'field',
      'value',
      'message',
    ]);
    expect(rows.slice(1)).toEqual([
      [
        '3',
        '',
        'invalid',
        'rows 6',
        'EDOC_MAP_BAD_NUMBER',
        'Valor; neto',
        "'=1+2",
        'not a "number"\nin row 6',
      ],
      [
        '3',
        '',
        'invalid',
        'rows 5-7',
        'EDOC_VALIDATE_TOTALS',
        'Total',
        '',
        'Total does not add up: 119,00 ≠ 120,00',
      ],
      ['4', 'main/invoice/SETP1', 'rejected', 'rows 2', '99', '', '', 'Rechazo: cliente sin NIT'],
      [
        '5',
        'main/invoice/SETP1',
        'in-doubt',
        'lines 9',
        '99',
        '',
        '',
        'Sent, but no answer came back; it is not resent automatically (see `edoc-bridge retry`).',
      ],
    ]);
  });

  it("names a JSON document's span of lines as a span, not as two lines", async () => {
    // a JSON array's element spans its first to its last line (json-source: [startLine, endLine])
    const target = path.join(tempDir(), 'facturas.errors.csv');
    const w = new ErrorsCsvWriter(target);
    await w.add(
      docRow({
        index: 1,
        state: 'invalid',
        source: { lines: [115, 206] },
        problems: [{ code: 'EDOC_VALIDATE_TOTALS', field: 'Total.PayableAmount', message: 'x' }],
      }),
    );
    await w.add(docRow({ index: 2, state: 'invalid', source: { lines: [207] } }));
    expect(await w.commit()).toBe(true);
    const rows = parse(fs.readFileSync(target, 'utf8').slice(1), { delimiter: ';' }) as string[][];
    expect(rows.slice(1).map((r) => r[3])).toEqual(['lines 115-206', 'lines 207']);
  });

  it('is absent when nothing failed, and a stale one from an earlier pass is removed', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'x.errors.csv');
    fs.writeFileSync(target, 'stale');
    const w = new ErrorsCsvWriter(target);
    await w.add(docRow({ state: 'accepted' }));
    await w.add(docRow({ state: 'duplicate' }));
    expect(await w.commit()).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
