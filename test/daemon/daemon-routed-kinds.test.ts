/**
 * One export, several kinds, through the real daemon (a child process) on the emulator over HTTP: the
 * shipped sales mapping with a `route` on a `tipo` column (FV invoice, NC credit note, ND debit note)
 * serves the invoice folder. Each document is sent as its own kind, all reported in the file's one
 * result.json; a value the route does not list, and a document whose rows name two kinds, are refused
 * naming value, rows and column, and never sent. The credit-note folder keeps the plain mapping, and its
 * wrong-folder check still refuses a debit note dropped there.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Project, ROOT, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { colombiaToday } from '../../src/policy/dates.js';
import { runCli } from '../helpers/cli-runner.js';

let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

const HEADER =
  'tipo;prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;cliente_correo;' +
  'cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;iva;motivo;ref_documento;ref_fecha;ref_cufe';

/** Today in Colombia as the export writes it (dd/MM/yyyy). */
function today(): string {
  const [y, m, d] = colombiaToday().split('-');
  return `${d}/${m}/${y}`;
}

/** The mixed export of the first test: FV, NC and ND on SETP990000301, an XX row, a document naming two kinds. */
function mixedExport(): string {
  return `${[
    HEADER,
    // invoice: 2 × 10.000,00 = 20.000,00; VAT 19 % = 3.800,00; payable 23.800,00
    row('FV', 'SETP', '990000301', '1', '2', '10.000,00', '19'),
    // credit note on it: 1 × 10.000,00; VAT 1.900,00; payable 11.900,00
    row('NC', 'NC', '301', '1', '1', '10.000,00', '19', 'Devolución parcial', 'SETP990000301'),
    // debit note on it: 1 × 5.000,00 exempt (VAT 0 %): payable 5.000,00
    row('ND', 'ND', '301', '1', '1', '5.000,00', '0', 'Intereses de mora', 'SETP990000301'),
    // a value the route does not list: refused, row 5
    row('XX', 'SETP', '990000302', '1', '1', '1.000,00', '19'),
    // one document (SETP 990000303) whose rows 6 and 7 name two kinds: refused whole
    row('FV', 'SETP', '990000303', '1', '1', '1.000,00', '19'),
    row('NC', 'SETP', '990000303', '2', '1', '1.000,00', '19'),
  ].join('\r\n')}\r\n`;
}

function row(
  tipo: string,
  prefix: string,
  number: string,
  line: string,
  qty: string,
  price: string,
  vat: string,
  reason = '',
  ref = '',
): string {
  return [
    tipo,
    prefix,
    number,
    today(),
    '10:00:00',
    '',
    'COP',
    '10',
    '31',
    '800.197.268-4',
    'Distribuidora Andina S.A.S.',
    'compras@andina.example',
    '1',
    '10',
    '1',
    line,
    '',
    'Artículo',
    qty,
    '94',
    price,
    vat,
    reason,
    ref,
    ref === '' ? '' : today(),
    '',
  ].join(';');
}

beforeAll(async () => {
  const dir = await resources.tempDir('edoc-routed-');
  const mixed = path.join(dir, 'sales-mixed.csv.yaml');
  const shipped = await readFile(path.join(ROOT, 'config/mappings/sales.csv.yaml'), 'utf8');
  await writeFile(
    mixed,
    `${shipped.replace('name: sales', 'name: sales-mixed')}
route:
  column: tipo
  values: { FV: invoice, NC: credit-note, ND: debit-note }
`,
  );
  const sales = { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') };
  ({ emulator, project } = await resources.runningDaemon({
    kinds: { invoice: { mapping: mixed }, 'credit-note': sales, 'debit-note': sales },
    retry: { maxAttempts: 2 },
  }));
}, 240_000);

describe('one file, several kinds', () => {
  test('FV, NC and ND rows are sent as invoice, credit note and debit note in one result.json; XX and a two-kind document are refused', async () => {
    await project.drop('invoice', 'ventas-mixtas.csv', mixedExport());
    const result = await project.finalResult('invoice', 'ventas-mixtas.csv', { timeoutMs: 60_000 });
    expect(result.counts).toMatchObject({
      total: 5,
      accepted: 3,
      invalid: 2,
      rejected: 0,
      failed: 0,
    });
    const byRows = new Map(result.documents.map((d) => [d.source.rows?.join(','), d]));
    // the ledger key names the kind each was sent as (company/kind/prefix/number)
    expect(byRows.get('2')?.key?.split('/').slice(1)).toEqual(['invoice', 'SETP', '990000301']);
    expect(byRows.get('3')?.key?.split('/').slice(1)).toEqual(['credit-note', 'NC', '301']);
    expect(byRows.get('4')?.key?.split('/').slice(1)).toEqual(['debit-note', 'ND', '301']);
    for (const r of ['2', '3', '4']) expect(byRows.get(r)?.status).toBe('accepted');
    const unrouted = byRows.get('5');
    expect(unrouted?.status).toBe('invalid');
    expect(unrouted?.errors).toEqual([
      expect.objectContaining({ code: 'EDOC_MAP_ROUTE', field: 'tipo', value: 'XX', rows: [5] }),
    ]);
    expect(unrouted?.errors[0].message).toBe(
      'Column "tipo" holds "XX" on row 5, which the mapping routes to no kind (FV, NC, ND)',
    );
    const twoKinds = byRows.get('6,7');
    expect(twoKinds?.status).toBe('invalid');
    expect(twoKinds?.errors).toEqual([
      expect.objectContaining({ code: 'EDOC_MAP_ROUTE', field: 'tipo', rows: [6, 7] }),
    ]);
    expect(twoKinds?.errors[0].message).toBe(
      'The rows of one document name two kinds in column "tipo": "FV" (row 6) and "NC" (row 7)',
    );

    const issued = await emulator.client.documents({ withRequest: true });
    expect(issued.map((d) => [d.kind, d.prefix, d.number, d.accepted]).sort()).toEqual([
      ['credit-note', 'NC', '301', true],
      ['debit-note', 'ND', '301', true],
      ['invoice', 'SETP', '990000301', true],
    ]);
    const payable = (kind: string): unknown =>
      (issued.find((d) => d.kind === kind)?.request as { Total?: { PayableAmount?: unknown } })
        .Total?.PayableAmount;
    expect([payable('invoice'), payable('credit-note'), payable('debit-note')]).toEqual([
      '23800.00',
      '11900.00',
      '5000.00',
    ]);
    const note = issued.find((d) => d.kind === 'credit-note')?.request as {
      ReasonCredit?: string;
      DocumentReferences?: { DocumentReferred?: string }[];
    };
    expect(note.ReasonCredit).toBe('Devolución parcial');
    expect(note.DocumentReferences?.[0]?.DocumentReferred).toBe('SETP990000301');
  });

  test('a single-kind folder keeps its wrong-folder check: the debit-note export in inbox/credit-note/ is invalid, nothing sent', async () => {
    const before = (await emulator.client.documents()).length;
    await project.drop(
      'credit-note',
      'debit-notes.csv',
      await readFile(path.join(ROOT, 'examples/debit-notes.csv')),
    );
    const result = await project.finalResult('credit-note', 'debit-notes.csv', {
      timeoutMs: 60_000,
    });
    expect(result.counts).toMatchObject({ total: 1, invalid: 1, accepted: 0 });
    expect(result.documents[0].errors.map((e) => e.code)).toContain('EDOC_VALIDATE_WRONG_FOLDER');
    expect((await emulator.client.documents()).length).toBe(before);
  });

  test('edoc-bridge validate checks each document as its routed kind: the same keys, the same refusals, nothing sent', async () => {
    const before = (await emulator.client.stats()).requests;
    const file = path.join(project.dir, 'ventas-mixtas-validar.csv');
    await writeFile(file, mixedExport());
    const run = await runCli(project, ['validate', file, '--kind', 'invoice']);
    expect(run.code).toBe(1);
    const docs = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string | null; problems: { code: string }[] });
    expect(
      docs.map((d) => [
        d.key?.split('/').slice(1).join('/') ?? null,
        d.problems.map((p) => p.code),
      ]),
    ).toEqual([
      ['invoice/SETP/990000301', []],
      ['credit-note/NC/301', []],
      ['debit-note/ND/301', []],
      [null, ['EDOC_MAP_ROUTE']],
      [null, ['EDOC_MAP_ROUTE']],
    ]);
    expect((await emulator.client.stats()).requests).toEqual(before);
  });
});
