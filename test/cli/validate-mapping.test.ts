/**
 * `edoc-bridge validate FILE... --kind KIND --mapping MAPPING.yaml`, the real CLI as a child process: a mapping
 * is tried without touching the configuration (the shipped one, whose invoice mapping knows none of these columns).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { tempFile } from '../map/helpers.js';
import { SIIGO_COLUMNS, siigoSalesMapping } from '../map/values-amounts-helpers.js';
import { Ledger } from '../../src/ledger/ledger.js';

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);

async function validate(
  args: string[],
): Promise<{ code: number; lines: Record<string, unknown>[]; stderr: string }> {
  const result = await run(process.execPath, ['bin/edoc-bridge.js', 'validate', ...args], {
    cwd: root,
    env: { ...process.env, EDOC_API_KEY: 'test-key' },
  })
    .then((r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }));
  return {
    code: result.code,
    stderr: result.stderr,
    lines: result.stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/*
 * Siigo Nube-style export (as in test/map/reconcile-guards.test.ts):
 *   2 × 50.000,00 − 10.000,00 = 90.000,00 (+ 17.100,00 VAT) and 1 × 30.000,00 (+ 5.700,00): total 142.800,00
 */
const EXPORT =
  [
    SIIGO_COLUMNS,
    'FV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-001;Silla ergonómica;2;50.000,00;10.000,00;19;142.800,00',
    'FV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-002;Lámpara de escritorio;1;30.000,00;;19;142.800,00',
  ].join('\r\n') + '\r\n';

describe('edoc-bridge validate --mapping', () => {
  beforeAll(async () => {
    await buildCli();
  }, 180_000);

  it('maps with the given mapping and prints the request; the configuration is untouched', async () => {
    const config = await readFile(join(root, 'config/edoc-bridge.yaml'), 'utf8');
    const mapping = await tempFile(
      'siigo.csv.yaml',
      siigoSalesMapping({ discount: true, reconcile: true }),
    );
    const file = await tempFile('ventas.csv', EXPORT);
    const { code, lines } = await validate([file, '--kind', 'invoice', '--mapping', mapping]);
    expect(lines).toHaveLength(1);
    expect(lines[0].problems).toEqual([]);
    expect((lines[0].request as { Total: { PayableAmount: string } }).Total.PayableAmount).toBe(
      '142800.00',
    );
    expect(lines[0].key).toBe('main/invoice/FV1/1660');
    // the shipped configuration still names its own mapping
    expect(await readFile(join(root, 'config/edoc-bridge.yaml'), 'utf8')).toBe(config);
    expect(code).toBe(0);
  });

  it('prints the guard problem with the export column and rows, exit 1, for several files each named', async () => {
    const mapping = await tempFile(
      'siigo.csv.yaml',
      siigoSalesMapping({ discount: false, reconcile: true }),
    );
    const a = await tempFile('ventas-a.csv', EXPORT);
    const b = await tempFile('ventas-b.csv', EXPORT.replaceAll('1660', '1661'));
    const { code, lines } = await validate([a, b, '--kind', 'invoice', '--mapping', mapping]);
    expect(code).toBe(1);
    expect(
      lines.map((l) => [
        l.file,
        l.request,
        (l.problems as { code: string; column: string; rows: number[] }[]).map((p) => [
          p.code,
          p.column,
          p.rows,
        ]),
      ]),
    ).toEqual([
      [a, null, [['EDOC_MAP_TOTAL_MISMATCH', 'Total factura', [2, 3]]]],
      [b, null, [['EDOC_MAP_TOTAL_MISMATCH', 'Total factura', [2, 3]]]],
    ]);
  });

  it('a broken mapping exits 2 naming the mapping file, the key and the expression', async () => {
    const mapping = await tempFile(
      'broken.csv.yaml',
      siigoSalesMapping({ discount: true, reconcile: false }).replace(
        'UnitPrice: { column: Valor unitario, as: decimal, required: true }',
        "UnitPrice: { expr: 'round([Valor unitario] / 1.19', as: decimal }",
      ),
    );
    const file = await tempFile('ventas.csv', EXPORT);
    const { code, lines, stderr } = await validate([
      file,
      '--kind',
      'invoice',
      '--mapping',
      mapping,
    ]);
    expect(code).toBe(2);
    expect(lines).toEqual([]);
    expect(stderr).toContain(mapping);
    expect(stderr).toContain('lines.fields.UnitPrice.expr');
    expect(stderr).toContain('round([Valor unitario] / 1.19');
  });
  it('reads the master-data tables of the ledger, opened read-only: the buyer from the table, a missing id named', async () => {
    const dir = dirname(await tempFile('placeholder', ''));
    const state = join(dir, 'state');
    const ledger = Ledger.open(state);
    await ledger.storeMasterVersion({
      table: 'customers',
      file: 'terceros.csv',
      sha256: 'a'.repeat(64),
      fileMtime: 1_764_000_000_000,
      columns: ['Razón social'],
      rows: new Map([['800197268', ['Distribuidora Andina S.A.S.']]]),
    });
    await ledger.close();
    const config = await tempFile(
      'edoc-bridge.yaml',
      `companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKey: key-main-0123456789 }\n` +
        `paths: { state: ${state}, logs: ${join(dir, 'logs')} }\n` +
        `masterData:\n  tables:\n    customers: { folder: ${join(dir, 'terceros')}, key: NIT, columns: [Razón social] }\n`,
    );
    const mapping = await tempFile(
      'siigo.csv.yaml',
      siigoSalesMapping({ discount: true, reconcile: true }).replace(
        'Name: { column: Nombre tercero, required: true }',
        "Name: { expr: 'lookup(customers, [Identificación tercero], [Razón social])', required: true }",
      ),
    );
    const file = await tempFile(
      'ventas.csv',
      `${EXPORT}${EXPORT.split('\r\n')[1].replaceAll('1660', '1661').replace('800197268', '811111111')}\r\n`,
    );
    const { code, lines } = await validate([
      file,
      '--kind',
      'invoice',
      '--mapping',
      mapping,
      '--config',
      config,
    ]);
    expect(lines).toHaveLength(2);
    expect((lines[0].request as { CustomerParty: { Name: string } }).CustomerParty.Name).toBe(
      'Distribuidora Andina S.A.S.',
    );
    expect(
      (lines[1].problems as { code: string; message: string }[]).map((p) => [p.code, p.message]),
    ).toEqual([
      [
        'EDOC_MAP_MASTER_MISSING',
        'CustomerParty.Name: id "811111111" is not in master table "customers" (version 1, from terceros.csv) in expression "lookup(customers, [Identificación tercero], [Razón social])"',
      ],
    ]);
    expect(code).toBe(1);
  });
});
