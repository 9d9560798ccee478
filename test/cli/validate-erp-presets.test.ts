/**
 * The shipped ERP presets load where the documentation points users: `validate --mapping
 * config/mappings/erp/NAME.yaml` (a path relative to the working directory) on each preset's sample,
 * and a configuration whose kind names a preset (checked at load like every configured mapping).
 * The real CLI as a child process; the figures are those of test/map/erp-presets-daemon.test.ts.
 */
import { execFile } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { tempFile } from '../map/helpers.js';

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Line {
  key?: string;
  source: { rows: number[] };
  request: Record<string, unknown> | null;
  problems: { code: string }[];
}

async function validate(args: string[]): Promise<{ code: number; lines: Line[]; stderr: string }> {
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
      .map((l) => JSON.parse(l) as Line),
  };
}

const payable = (l: Line): unknown => {
  const r = l.request as {
    Total?: { PayableAmount: string };
    totales?: { valorNeto: number };
    ComprobanteTotal?: string;
  } | null;
  return r?.Total?.PayableAmount ?? r?.totales?.valorNeto ?? r?.ComprobanteTotal ?? null;
};

describe('shipped ERP presets with validate', () => {
  beforeAll(async () => {
    await buildCli();
  }, 240_000);

  it('ships exactly the presets this test knows', async () => {
    expect((await readdir(join(root, 'config/mappings/erp'))).sort()).toEqual([
      'generic-payroll.yaml',
      'loyverse-pos.yaml',
      'odoo-credit-note.yaml',
      'odoo-invoice.yaml',
      'siigo-nube-invoice.yaml',
    ]);
  });

  it.each([
    // [preset, kind, sample, exit code, [rows, payable, problem codes] per document]
    [
      'odoo-invoice.yaml',
      'invoice',
      'odoo/odoo-facturas-cliente.csv',
      0,
      [
        [[2, 3, 4], '337940.08', []],
        [[8, 9], '392750.00', []],
      ],
    ],
    [
      'odoo-credit-note.yaml',
      'credit-note',
      'odoo/odoo-notas-credito.csv',
      0,
      [[[2, 3], '52747.52', []]],
    ],
    [
      'siigo-nube-invoice.yaml',
      'invoice',
      'siigo-nube/siigo-facturas-venta.csv',
      1,
      [
        [[2, 3, 4, 5], '180600.00', []],
        [[6, 7, 8], '188000.00', []],
        [[9, 10, 11], null, ['EDOC_MAP_DOCUMENT_ROW', 'EDOC_MAP_INCONSISTENT']],
      ],
    ],
    [
      'loyverse-pos.yaml',
      'pos',
      'loyverse/loyverse-recibos-por-articulo.csv',
      1,
      [
        [[2, 3], 31340, []],
        [[6, 7], 30400, []],
        [[8], null, ['EDOC_MAP_TOTAL_MISMATCH']],
      ],
    ],
    [
      'generic-payroll.yaml',
      'payroll',
      'payroll/nomina-por-concepto.csv',
      0,
      [
        [[6, 7, 8, 10, 11, 12, 13], '1928333.33', []],
        [[14, 15, 16, 17, 18, 19, 20, 21], '5774833.34', []],
        [[22, 23, 25, 26, 27], '804810.00', []],
      ],
    ],
  ] as const)(
    '%s maps its sample (validate --mapping config/mappings/erp/…)',
    async (name, kind, sample, exit, expected) => {
      const { code, lines, stderr } = await validate([
        `examples/erp/${sample}`,
        '--kind',
        kind,
        '--mapping',
        `config/mappings/erp/${name}`,
      ]);
      expect(stderr).toBe('');
      expect(lines.map((l) => [l.source.rows, payable(l), l.problems.map((p) => p.code)])).toEqual(
        expected,
      );
      expect(code).toBe(exit);
    },
  );

  it("a configuration naming a preset for a kind loads it (relative to the configuration file's folder)", async () => {
    const shipped = await readFile(join(root, 'config/edoc-bridge.yaml'), 'utf8');
    const line = '  invoice: { mapping: mappings/sales.csv.yaml }';
    expect(shipped).toContain(line);
    // the shipped file's relative paths resolve against its own folder: a copy of config/ names the preset as mappings/erp/…
    const copy = join(dirname(await tempFile('x', '')), 'config');
    await cp(join(root, 'config'), copy, { recursive: true });
    const config = join(copy, 'edoc-bridge.yaml');
    await writeFile(
      config,
      shipped.replace(line, '  invoice: { mapping: mappings/erp/odoo-invoice.yaml }'),
    );
    const { code, lines } = await validate([
      'examples/erp/odoo/odoo-facturas-cliente.csv',
      '--kind',
      'invoice',
      '--config',
      config,
    ]);
    expect(lines.map((l) => [l.key, payable(l)])).toEqual([
      ['main/invoice/SETP/990000412', '337940.08'],
      ['main/invoice/SETP/990000414', '392750.00'],
    ]);
    expect(code).toBe(0);
  });
});
