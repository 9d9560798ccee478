/**
 * `concepts.amounts`: a concept row whose amount stands in a column its code does not read (a deduction
 * written in the earned column) would be issued without it. The shipped payroll preset declares its two
 * amount columns, so such a row refuses the employee's payroll, naming the row and the column.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import { readAll, tempFile } from './helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const PRESET = join(ROOT, 'config/mappings/erp/generic-payroll.yaml');
const SAMPLE = join(ROOT, 'examples/erp/payroll/nomina-por-concepto.csv');

/** The shipped sample with some rows changed (row numbers as the export counts them, header = row 5). */
async function sample(change: Record<number, (line: string) => string>): Promise<string> {
  const lines = iconv.decode(await readFile(SAMPLE), 'windows-1252').split('\r\n');
  const changed = lines.map((l, i) => {
    const edit = change[i + 1];
    if (edit === undefined) return l;
    const out = edit(l);
    if (out === l) throw new Error(`row ${i + 1} of the sample did not change: ${l}`);
    return out;
  });
  return tempFile('nomina.csv', changed.join('\r\n'), 'windows-1252');
}

describe('concept rows with an amount in a column their code does not read', () => {
  it('refuse the payroll instead of dropping the amount; zero and blank cells are no amount', async () => {
    const m = await loadMapping(PRESET);
    // Ana (rows 6-13): her health row 10 (concept 101) also earns 50,000.00 in Devengado, and her
    // transport row 7 (concept 002, read from Devengado) writes 200,000.00 in Deducido instead. Without
    // the check she was issued 2,000,000.00 + 0.00 + 41,666.67 − 313,333.34: both amounts lost.
    const file = await sample({
      7: (l) => l.replace(';200.000,00;0', ';0;200.000,00'),
      10: (l) => l.replace(';4;0;81.666,67', ';4;50.000,00;81.666,67'),
      // Carlos's pension row 18 writes its empty earned cell as 0,00: no amount
      18: (l) => l.replace(';4;0;271.333,33', ';4;0,00;271.333,33'),
    });
    const { docs } = await readAll(file, m, 'payroll');
    expect(docs.map((d) => d.source.rows?.[0])).toEqual([6, 14, 22]);
    expect(docs[0].request).toBeUndefined();
    expect(docs[0].problems.map((p) => [p.code, p.column, p.rows, p.value])).toEqual([
      ['EDOC_MAP_INCONSISTENT', 'Deducido', [7], '200.000,00'],
      ['EDOC_MAP_INCONSISTENT', 'Devengado', [10], '50.000,00'],
    ]);
    expect(docs[0].problems[1].message).toContain(
      'Row 10: concept "101" has "50.000,00" in column "Devengado", which the concept table does not read',
    );
    // Carlos and María as the sample says: 6,783,333.33 − 1,008,499.99 = 5,774,833.34 and
    // 861,750.00 − 56,940.00 = 804,810.00
    expect(
      docs
        .slice(1)
        .map((d) => [d.problems, (d.request as { ComprobanteTotal: string }).ComprobanteTotal]),
    ).toEqual([
      [[], '5774833.34'],
      [[], '804810.00'],
    ]);
  });
});
