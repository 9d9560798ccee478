import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, sale, tempFile, toCsv } from './helpers.js';

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The real CLI (dist/, built by `npm run build`), from the project root with the shipped configuration. */
async function validate(
  file: string | string[],
  kind: string,
): Promise<{ code: number; lines: Record<string, unknown>[] }> {
  const result = await run(
    process.execPath,
    ['bin/edoc-bridge.js', 'validate', ...[file].flat(), '--kind', kind],
    { cwd: root, env: { ...process.env, EDOC_API_KEY: 'test-key' } },
  )
    .then((r) => ({ code: 0, stdout: r.stdout }))
    .catch((e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }));
  return {
    code: result.code,
    lines: result.stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('edoc-bridge validate', () => {
  it('prints one valid request per document of the invoice example and exits 0', async () => {
    const { code, lines } = await validate(join(EXAMPLES, 'invoices.csv'), 'invoice');
    expect(code).toBe(0);
    expect(
      lines.map((l) => [
        l.index,
        l.key,
        (l.source as { rows: number[] }).rows,
        (l.problems as unknown[]).length,
      ]),
    ).toEqual([
      [0, 'main/invoice/SETP/990000101', [2, 3, 5, 6], 0],
      [1, 'main/invoice/SETP/990000102', [4, 7], 0],
      [2, 'main/invoice/SETP/990000103', [8, 9], 0],
    ]);
    expect((lines[0].request as { Total: { PayableAmount: string } }).Total.PayableAmount).toBe(
      '1565297.50',
    );
  });

  it('validates every shipped example (every kind, CSV, JSON and JSONL) with the shipped configuration: exit 0, no problem', async () => {
    const kinds: Record<string, string> = {
      invoices: 'invoice',
      'credit-notes': 'credit-note',
      'debit-notes': 'debit-note',
      payroll: 'payroll',
      'support-documents': 'support-document',
      'support-adjustments': 'support-adjustment',
      pos: 'pos',
    };
    const files = (await readdir(EXAMPLES)).filter((f) => /\.(csv|jsonl?)$/.test(f));
    expect(files).toHaveLength(21);
    // one run per kind, its CSV, JSON and JSONL example together (each output line names its file)
    for (const [prefix, kind] of Object.entries(kinds)) {
      const mine = files.filter((f) => f.replace(/(-jsonl?)?\.[a-z]+$/, '') === prefix);
      expect(mine).toHaveLength(3);
      const { code, lines } = await validate(
        mine.map((f) => join(EXAMPLES, f)),
        kind,
      );
      expect([
        kind,
        code,
        mine.map((f) => lines.filter((l) => l.file === join(EXAMPLES, f)).length >= 1),
        lines.flatMap((l) => l.problems as unknown[]),
      ]).toEqual([kind, 0, [true, true, true], []]);
    }
  }, 120_000);

  it("reads a spreadsheet (.xlsx and .xls written by LibreOffice) with the kind's mapping", async () => {
    for (const name of ['ventas.xlsx', 'ventas.xls']) {
      const { code, lines } = await validate(join(root, 'test/fixtures/sheets', name), 'invoice');
      // 990000201: 125,000 + 23,750 + 87,602 + 4,380.10 = 240,732.10 (test/read/sheet-source.test.ts)
      expect([
        name,
        code,
        lines.map((l) => (l.source as { rows: number[] }).rows),
        (lines[0].request as { Total: { PayableAmount: string } }).Total.PayableAmount,
      ]).toEqual([name, 0, [[2, 3], [4]], '240732.10']);
    }
  });

  it('exits 1 and prints the problems with their rows when a document is invalid', async () => {
    const file = await tempFile(
      'ventas.csv',
      toCsv([sale('1', '1'), sale('2', '1', { fecha: '2026-11-18' })]),
      'windows-1252',
    );
    const { code, lines } = await validate(file, 'invoice');
    expect(code).toBe(1);
    expect(lines[0].problems).toEqual([]);
    expect(lines[1].request).toBeNull();
    expect(lines[1].problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'EDOC_MAP_BAD_DATE',
          rows: [3],
          column: 'fecha',
          value: '2026-11-18',
        }),
      ]),
    );
  });

  it('exits 1 with a file-level error naming a missing column', async () => {
    const file = await tempFile(
      'ventas.csv',
      toCsv([sale('1', '1')], { columns: ['prefijo', 'numero', 'fecha'] }),
    );
    const { code, lines } = await validate(file, 'invoice');
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({
          code: 'EDOC_MAP_MISSING_COLUMN',
          column: 'cliente_doc',
          columns: expect.arrayContaining(['cliente_tipo_doc', 'precio_unitario']),
        }),
      }),
    ]);
  });
});
