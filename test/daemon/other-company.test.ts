/**
 * The same export dropped in two companies' folders: the shipped CSV mapping fills the issuer from the
 * company it runs for, so both copies validate, and both were issued. The second is held (`invalid`,
 * EDOC_LEDGER_OTHER_COMPANY naming the other company and file, one error line) until the operator
 * releases it with `edoc-bridge retry --file NAME --other-company` (the real CLI beside the daemon).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  COMPANY_OTHER,
  eventually,
  type Project,
  ROOT,
} from '../helpers/daemon-harness.js';
import {
  BUILD_TIMEOUT_MS,
  type DaemonProject,
  type DaemonProjectOptions,
  daemonTest as test,
} from '../helpers/daemon-fixture.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const HEADER =
  'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
  'cliente_correo;cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;' +
  'iva;motivo;ref_documento;ref_fecha;ref_cufe\r\n';
const EXPORT =
  `${HEADER}SETP;990800001;20/11/2026;10:00:00;20/12/2026;COP;10;13;1.020.304.050;José Muñoz;jose@correo.example;2;10;1;1;` +
  ';Producto;1;94;100,00;0;;;;\r\n';

interface Problem {
  code?: string;
  message: string;
}

/** A project of two companies whose invoices come as the sales CSV, its daemon running. */
async function twoCompanies(daemonProject: (o: DaemonProjectOptions) => Promise<DaemonProject>) {
  const { project, emulator, startDaemon } = await daemonProject({
    companies: [COMPANY_MAIN, COMPANY_OTHER],
    kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } },
  });
  return { project, emulator, daemon: await startDaemon() };
}

/** The export dropped for `main` first, and issued there. */
async function issuedUnderMain(p: Project, text: string): Promise<void> {
  await p.drop('invoice', 'ventas.csv', text, 'main');
  expect((await p.finalResult('invoice', 'ventas.csv', { company: 'main' })).counts).toMatchObject({
    total: 1,
    accepted: 1,
  });
}

describe("the same export in two companies' folders", () => {
  test('is issued under the first company only; the second copy is held naming the first, until retry --other-company releases it', async ({
    daemonProject,
  }) => {
    const { project: p, emulator, daemon } = await twoCompanies(daemonProject);
    await issuedUnderMain(p, EXPORT);

    await p.drop('invoice', 'ventas-sucursal.csv', EXPORT, 'other');
    const held = await p.finalResult('invoice', 'ventas-sucursal.csv', { company: 'other' });
    expect(held.counts).toMatchObject({ total: 1, invalid: 1 });
    const doc = held.documents[0] as unknown as { status: string; errors: Problem[] };
    expect(doc.errors).toEqual([
      {
        code: 'EDOC_LEDGER_OTHER_COMPANY',
        message:
          'Not sent: the same file content was taken for company ' +
          'main (ventas.csv), and one export is issued under one company. If it is meant for other too, release it: ' +
          'edoc-bridge retry --file NAME --other-company.',
      },
    ]);
    const line = await daemon.waitForLog((l) => l.code === 'EDOC_LEDGER_OTHER_COMPANY');
    expect(line).toMatchObject({
      level: 'error',
      company: 'other',
      file: 'ventas-sucursal.csv',
      held: 1,
    });
    expect((await emulator.client.issued()).map((d) => d.company)).toEqual([COMPANY_MAIN.id]);

    // a plain retry does not release it, and says which flag does
    const plain = await runCli(p, ['retry', '--file', 'ventas-sucursal.csv']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('released with --other-company');
    // the operator's word: this company issues it too
    const released = await runCli(p, ['retry', '--file', 'ventas-sucursal.csv', '--other-company']);
    expect(released.code, released.stderr).toBe(0);
    expect(released.stdout).toContain('re-queued 1 document(s) of 1 file(s)');
    await eventually(
      async () =>
        (await p.result('invoice', 'ventas-sucursal.csv', 'other'))?.counts.accepted === 1
          ? true
          : undefined,
      'the released copy issued under other',
      30_000,
    );
    expect((await emulator.client.issued()).map((d) => d.company).sort()).toEqual([
      COMPANY_MAIN.id,
      COMPANY_OTHER.id,
    ]);
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);

  test('the held copy is not in the retry file: dropped back, it would issue the export under the wrong company', async ({
    daemonProject,
  }) => {
    const { project: p, emulator, daemon } = await twoCompanies(daemonProject);
    // an ERP that writes no line end after the last row: the retry file (header + rows, each ended) is other bytes
    const lastUnended = EXPORT.slice(0, -2);
    await issuedUnderMain(p, lastUnended);

    await p.drop('invoice', 'ventas-sucursal.csv', lastUnended, 'other');
    const held = await p.finalResult('invoice', 'ventas-sucursal.csv', { company: 'other' });
    expect(held.counts).toMatchObject({ total: 1, invalid: 1 });
    const outbox = p.outbox('invoice', 'other');
    // the operator learns of it from errors.csv ...
    expect(readFileSync(path.join(outbox, 'ventas-sucursal.errors.csv'), 'utf8')).toContain(
      'EDOC_LEDGER_OTHER_COMPANY',
    );
    // ... but the retry file, "fix and drop back", must not carry it: its bytes differ from the export's,
    // so dropped back it would not be held, and the invoice would be issued under `other` as well
    const retryFile = path.join(outbox, 'ventas-sucursal.retry.csv');
    if (existsSync(retryFile)) {
      await p.drop('invoice', 'ventas-sucursal-fixed.csv', readFileSync(retryFile), 'other');
      await p.finalResult('invoice', 'ventas-sucursal-fixed.csv', { company: 'other' });
    }
    expect((await emulator.client.issued()).map((d) => d.company)).toEqual([COMPANY_MAIN.id]);
    expect(existsSync(retryFile)).toBe(false);
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);
});

/** Two companies whose invoices and credit notes come as the sales CSV; main's invoice issued. */
async function mainInvoiceIssued(
  daemonProject: (o: DaemonProjectOptions) => Promise<DaemonProject>,
) {
  const sales = path.join(ROOT, 'config/mappings/sales.csv.yaml');
  const { project, emulator, startDaemon } = await daemonProject({
    companies: [COMPANY_MAIN, COMPANY_OTHER],
    kinds: { invoice: { mapping: sales }, 'credit-note': { mapping: sales } },
  });
  await startDaemon();
  await issuedUnderMain(project, EXPORT);
  return { project, emulator };
}

describe("a credit note dropped in another company's folder", () => {
  const NOTE =
    `${HEADER}NC;80001;21/11/2026;10:00:00;;COP;10;13;1.020.304.050;José Muñoz;jose@correo.example;2;10;1;1;` +
    ';Producto;1;94;100,00;0;Devolución;SETP990800001;20/11/2026;\r\n';

  test("its invoice issued by main, the note in other's folder is held naming main, never issued by other; retry --other-company releases it", async ({
    daemonProject,
  }) => {
    const { project: p, emulator } = await mainInvoiceIssued(daemonProject);
    await p.drop('credit-note', 'nc.csv', NOTE, 'other');
    const held = await p.finalResult('credit-note', 'nc.csv', { company: 'other' });
    expect(held.documents.map((d) => d.status)).toEqual(['invalid']);
    const problem = (held.documents[0]?.errors as Problem[])[0];
    expect(problem?.code).toBe('EDOC_LEDGER_OTHER_COMPANY');
    expect(problem?.message).toContain(
      'it references SETP990800001, which company main issued (ventas.csv), not other',
    );
    expect((await emulator.client.issued({ company: 1002 })).length).toBe(0);
    const line = p
      .logLines()
      .find((l) => l.msg === 'document final' && l.doc === 'other/credit-note/NC/80001');
    expect(line).toMatchObject({ level: 'error', code: 'EDOC_LEDGER_OTHER_COMPANY' });

    // the operator's word that other issued a document under that number too
    const run = await runCli(p, [
      'retry',
      '--document',
      'other/credit-note/NC/80001',
      '--other-company',
    ]);
    expect(run.code, run.stderr).toBe(0);
    await eventually(
      async () =>
        (await emulator.client.issued({ company: 1002 })).length === 1 ? true : undefined,
      'the released note issued',
      30_000,
    );
  });

  test("the same note in main's folder goes as usual", async ({ daemonProject }) => {
    const { project: p } = await mainInvoiceIssued(daemonProject);
    await p.drop('credit-note', 'nc.csv', NOTE, 'main');
    const sent = await p.finalResult('credit-note', 'nc.csv', { company: 'main' });
    expect(sent.documents.map((d) => d.status)).toEqual(['accepted']);
  });
});
