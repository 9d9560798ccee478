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
      'sap-b1-invoice.yaml',
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

  it('sap-b1-invoice maps its two-file sample as one set (validate FILE FILE --mapping …)', async () => {
    const { code, lines, stderr } = await validate([
      'examples/erp/sap-b1/Document_Lines.csv',
      'examples/erp/sap-b1/Documents.csv',
      '--kind',
      'invoice',
      '--mapping',
      'config/mappings/erp/sap-b1-invoice.yaml',
    ]);
    expect(stderr).toBe('');
    // one unit named after the set; rows are the lines file's (321,532.00 and 14,131.25: by hand in
    // test/daemon/daemon-part-sets.test.ts)
    expect(
      lines.map((l) => [
        (l as { file?: string }).file?.endsWith('examples/erp/sap-b1/Documents+Document_Lines.csv'),
        l.source.rows,
        payable(l),
        l.problems.map((p) => p.code),
      ]),
    ).toEqual([
      [true, [3, 4, 5], '321532.00', []],
      [true, [6], '14131.25', []],
    ]);
    expect(code).toBe(0);
  });

  it('sap-b1-invoice: a part without its partner, and parts that do not join, are refused naming file, row and column', async () => {
    const alone = await validate([
      'examples/erp/sap-b1/Documents.csv',
      '--kind',
      'invoice',
      '--mapping',
      'config/mappings/erp/sap-b1-invoice.yaml',
    ]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain(
      'EDOC_READ_SET_WAITING: Documents.csv is the header file of a set',
    );
    const dir = dirname(await tempFile('x', ''));
    const header = join(dir, 'Documents_9.csv');
    const linesFile = join(dir, 'Document_Lines_9.csv');
    await cp(join(root, 'examples/erp/sap-b1/Documents.csv'), header);
    const lines = await readFile(join(root, 'examples/erp/sap-b1/Document_Lines.csv'), 'utf8');
    // row 6 (RecordKey 2's only line) now names document 9, which has no header row
    await writeFile(linesFile, lines.replace('\n2,0,', '\n9,0,'));
    const bad = await validate([
      header,
      linesFile,
      '--kind',
      'invoice',
      '--mapping',
      'config/mappings/erp/sap-b1-invoice.yaml',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'EDOC_READ_SET_JOIN: Document_Lines_9.csv row 6: ParentKey 9 has no header row in Documents_9.csv (column RecordKey)',
    );
    expect(bad.lines[0]).toMatchObject({
      error: { code: 'EDOC_READ_SET_JOIN', row: 6, column: 'ParentKey' },
    });
  });

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
