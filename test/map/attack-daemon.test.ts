/**
 * The worst of the outsider's attacks through a real daemon (a child process) on the emulator over HTTP:
 * a footer totals row without a skip rule under fill-down, and hostile cells (formula injection, control
 * characters, a very long cell, the company's API key) in the reports. Amounts worked by hand in comments.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli, type Project, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { sale, toCsv } from './helpers.js';

const root = path.join(import.meta.dirname, '../..');
let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
  const dir = await resources.tempDir('edoc-attack-map-');
  const mappingFile = path.join(dir, 'ventas-fill-down.csv.yaml');
  const shipped = await readFile(path.join(root, 'config/mappings/sales.csv.yaml'), 'utf8');
  await writeFile(
    mappingFile,
    `${shipped}\nframing:\n  fillDown: [fecha, hora, cliente_tipo_doc, cliente_doc, cliente_nombre]\n`,
  );
  ({ emulator, project } = await resources.daemonProject({
    kinds: { invoice: { mapping: mappingFile } },
  }));
  await resources.startDaemon(project);
}, 120_000);

describe('attacks on the mapping through the daemon', () => {
  test('a "TOTAL" footer under fill-down is never issued as a line: its invoice is invalid, nothing of it sent', async () => {
    // 990000901: 2 lines of 1 × 1.000,00 + 19 % = 2,380.00; 990000902: 1 line = 1,190.00; the footer 3 × 3.000,00
    const rows = [
      sale('990000901', '1'),
      sale('990000901', '2'),
      sale('990000902', '1'),
      {
        prefijo: '',
        numero: '',
        linea: '9',
        descripcion: 'TOTAL',
        cantidad: '3',
        precio_unitario: '3.000,00',
        iva: '19',
      },
    ];
    await project.drop(
      'invoice',
      'ventas-con-total.csv',
      toCsv(rows, { columns: Object.keys(rows[0]) }),
    );
    const result = await project.finalResult('invoice', 'ventas-con-total.csv', {
      timeoutMs: 60_000,
    });
    expect(result.documents.map((d) => [d.status, d.source, d.errors.map((e) => e.code)])).toEqual([
      ['accepted', { rows: [2, 3] }, []],
      ['invalid', { rows: [4, 5], erpKey: 'SETP990000902' }, ['EDOC_MAP_TOTALS_ROW']],
    ]);
    const issued = await emulator.client.documents({ kind: 'invoice', withRequest: true });
    // only 990000901 reached the service, at 2,380.00; 990000902 was never sent (on main: sent at 11,900.00)
    expect(
      issued.map((d) => [
        (d.request as { SerieNumber: string }).SerieNumber,
        (d.request as { Total: { PayableAmount: string } }).Total.PayableAmount,
      ]),
    ).toEqual([['990000901', '2380.00']]);
  }, 90_000);

  test('hostile cells: formula-looking values are neutralised in errors.csv, the API key is never echoed', async () => {
    const key = project.options.companies[0].apiKey;
    const rows = [
      sale('990000911', '1', {
        cliente_nombre: "=cmd|' /C calc'!A0",
        precio_unitario: '=HYPERLINK("http://x","y")',
      }),
      sale('990000912', '1', { precio_unitario: key }),
      sale('990000913', '1', { precio_unitario: `@SUM(1+1)\u0007${'9'.repeat(5000)}` }),
      sale('990000914', '1', { cantidad: '+1+1' }),
    ];
    await project.drop('invoice', 'hostil.csv', toCsv(rows));
    const result = await project.finalResult('invoice', 'hostil.csv', { timeoutMs: 60_000 });
    expect(result.documents.map((d) => [d.status, d.errors.map((e) => e.code)])).toEqual([
      ['invalid', ['EDOC_MAP_BAD_NUMBER']],
      ['invalid', ['EDOC_READ_SECRET', 'EDOC_MAP_BAD_NUMBER']], // the key is a secret before it is a bad number
      ['invalid', ['EDOC_MAP_BAD_NUMBER']],
      ['invalid', ['EDOC_MAP_BAD_NUMBER']],
    ]);
    const errorsCsv = await readFile(
      path.join(project.outbox('invoice'), 'hostil.errors.csv'),
      'utf8',
    );
    // every cell of errors.csv (delimiter ;) that Excel would run as a formula starts with ' instead
    const cells = errorsCsv
      .replace(/^\uFEFF/, '')
      .split('\r\n')
      .filter((l) => l !== '')
      .flatMap((l) => l.split(';'));
    expect(cells.filter((c) => /^"?[=+\-@]/.test(c))).toEqual([]);
    expect(errorsCsv).toContain("'=HYPERLINK");
    expect(errorsCsv).toContain("'@SUM(1+1)");
    expect(errorsCsv).not.toContain('9'.repeat(400)); // a very long cell is quoted short
    // the key in a cell: in no report, no log line
    for (const name of await readdir(project.outbox('invoice'))) {
      if (name.startsWith('hostil.') && !name.includes('.retry.'))
        expect(await readFile(path.join(project.outbox('invoice'), name), 'utf8')).not.toContain(
          key,
        );
    }
    expect(await readFile(project.logFile, 'utf8')).not.toContain(key);
    expect(await emulator.client.documents({ kind: 'invoice' })).toHaveLength(1); // only the first test's invoice
  }, 90_000);
});
