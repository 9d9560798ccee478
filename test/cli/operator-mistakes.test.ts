/**
 * Everyday operator mistakes get a report that is true in what it lets the reader believe: a key
 * pasted with an invisible character is refused at load (never "the service is not answering"), and
 * every document that ends needing an operator is an `error` line with its catalogue code, the line
 * docs/operations.md tells operators to watch. The real CLI as a child process, the emulator over HTTP.
 */
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { buildCli, ROOT, type LogLine } from '../helpers/daemon-harness.js';
import {
  BUILD_TIMEOUT_MS,
  type DaemonProject,
  type DaemonProjectOptions,
  daemonTest as test,
} from '../helpers/daemon-fixture.js';
import { invoice, jsonText, supportDocument } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, BUILD_TIMEOUT_MS);

const finals = (lines: LogLine[]): LogLine[] => lines.filter((l) => l.msg === 'document final');

/** A running daemon whose invoice folder reads `mapping`. */
async function invoiceDaemon(
  daemonProject: (o: DaemonProjectOptions) => Promise<DaemonProject>,
  mapping: string,
) {
  const {
    emulator,
    project: p,
    startDaemon,
  } = await daemonProject({
    stableMs: 300,
    kinds: { invoice: { mapping } },
  });
  await startDaemon();
  return { emulator, p };
}

describe('an API key an HTTP header cannot carry', () => {
  test("a key pasted with an invisible U+200B: submit exits 2 naming the key's path, not its value; nothing reaches the service", async ({
    daemonProject,
  }) => {
    const key = 'demo-key-1001';
    const { emulator, project: p } = await daemonProject({
      apiKeys: { main: `demo-key\u200b-1001` },
    });
    const file = await p.exportFile('ventas.json', jsonText([invoice(990_126_001)]));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      'companies[0].apiKey: the API key of company "main" holds an invisible zero-width space (U+200B)',
    );
    expect(run.stderr).not.toMatch(/not answering|could not be reached|may be issued/);
    expect(run.stderr).not.toContain(key.slice(0, 8));
    expect((await emulator.client.stats()).totalRequests).toBe(0);
  });
});

describe('every document that needs an operator is one error line with its code', () => {
  test('failed after retries (EDOC_SUBMIT_GAVE_UP) and invalid at intake (EDOC_VALIDATE_SCHEMA): level error, with the code', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject({
      faults: { errorRate: 1 },
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    });
    const broken = invoice(990_126_102);
    delete broken.InvoiceLines;
    delete broken.Lines;
    const file = await p.exportFile('fallas.json', jsonText([invoice(990_126_101), broken]));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).not.toBe(0);
    const lines = finals(p.logLines());
    expect(lines).toHaveLength(2);
    const failed = lines.find((l) => l.status === 'failed');
    expect(failed).toMatchObject({
      level: 'error',
      code: 'EDOC_SUBMIT_GAVE_UP',
      doc: 'main/invoice/SETP/990126101',
    });
    const invalid = lines.find((l) => l.status === 'invalid');
    expect(invalid?.level).toBe('error');
    expect(invalid?.code).toMatch(/^EDOC_VALIDATE_/);
  });

  test('a service-numbered document whose answer was lost: in doubt, level error with EDOC_SUBMIT_IN_DOUBT; an accepted one stays info', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject({
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    });
    const ok = await p.exportFile('bien.json', jsonText([invoice(990_126_201)]));
    expect((await runCli(p, ['submit', ok, '--kind', 'invoice'])).code).toBe(0);
    await emulator.client.setFaults({ dropAfterCommitRate: 1 });
    const file = await p.exportFile(
      'soporte.json',
      jsonText([supportDocument(undefined, 'M-126')]),
    );
    await runCli(p, ['submit', file, '--kind', 'support-document']);
    const lines = finals(p.logLines());
    expect(lines.find((l) => l.status === 'accepted')).toMatchObject({ level: 'info' });
    expect(lines.find((l) => l.status === 'in-doubt')).toMatchObject({
      level: 'error',
      code: 'EDOC_SUBMIT_IN_DOUBT',
      doubt: 'no-answer',
    });
  });
});

describe('retry on a file none of whose documents failed', () => {
  test('says how each document of the file stands and what to do with the rejected and invalid ones; a mistyped name is named as unknown', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject();
    const wrongPrefix = invoice(990_126_302);
    wrongPrefix.SeriePrefix = 'SEPT'; // no range: the authority rejects it (FAD05)
    const wrongDigit = invoice(990_126_303);
    (
      (wrongDigit.CustomerParty as Record<string, Record<string, string>>).Identification as Record<
        string,
        string
      >
    ).CheckDigit = '0'; // invalid before sending
    const file = await p.exportFile(
      'lunes.json',
      jsonText([invoice(990_126_301), wrongPrefix, wrongDigit]),
    );
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(1);
    const result = await p.result('invoice', 'lunes.json');
    expect(result?.documents.map((d) => d.status)).toEqual(['accepted', 'rejected', 'invalid']);
    const sent = (await emulator.client.stats()).totalRequests;

    const run = await runCli(p, ['retry', '--file', 'lunes.json']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      'nothing to re-queue: no document of lunes.json is failed or in doubt',
    );
    expect(run.stderr).toContain(': 1 accepted, 1 rejected, 1 invalid');
    expect(run.stderr).toContain(
      'Rejected and invalid documents are not re-queued (the service would answer the same)',
    );
    // twice: the same answer, nothing sent
    expect((await runCli(p, ['retry', '--file', 'lunes.json'])).stderr).toContain(
      ': 1 accepted, 1 rejected, 1 invalid',
    );
    expect((await emulator.client.stats()).totalRequests).toBe(sent);

    const typo = await runCli(p, ['retry', '--file', 'lune.json']);
    expect(typo.stderr).toContain('the ledger holds no input file named lune.json');
  });
});

describe('retry on a document that did not fail', () => {
  test('an accepted one: says it is issued and how a change is made; a rejected one: correct and drop again; an unknown key is named as unknown', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject();
    const wrongPrefix = invoice(990_126_402);
    wrongPrefix.SeriePrefix = 'SEPT'; // no range: the authority rejects it (FAD05)
    const file = await p.exportFile('martes.json', jsonText([invoice(990_126_401), wrongPrefix]));
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(1);
    const sent = (await emulator.client.stats()).totalRequests;

    const accepted = await runCli(p, ['retry', '--document', 'main/invoice/SETP/990126401']);
    expect(accepted.code, accepted.stderr).toBe(1);
    expect(accepted.stderr).toContain(
      'nothing to re-queue: no copy of main/invoice/SETP/990126401 is failed or in doubt:\n  martes.json',
    );
    expect(accepted.stderr).toContain(': accepted\n');
    expect(accepted.stderr).toContain(
      'An accepted document is issued: nothing is sent again; a change to it is a credit or debit note.',
    );
    expect(accepted.stderr).not.toContain('Rejected and invalid');

    const rejected = await runCli(p, ['retry', '--document', 'main/invoice/SEPT/990126402']);
    expect(rejected.stderr).toContain(': rejected\n');
    expect(rejected.stderr).toContain(
      'Rejected and invalid documents are not re-queued (the service would answer the same)',
    );
    expect((await emulator.client.stats()).totalRequests).toBe(sent);

    const typo = await runCli(p, ['retry', '--document', 'main/invoice/SETP/990126499']);
    expect(typo.stderr).toContain(
      'the ledger holds no document main/invoice/SETP/990126499: give its key as the report shows it',
    );
  });
});

describe('an export with no document for its folder', () => {
  const ODOO = path.join(ROOT, 'config/mappings/erp/odoo-invoice.yaml');
  const notesExport = async (): Promise<string> => {
    // the shipped Odoo credit-note sample's header and its two refunds (rows 2-4), no invoice
    const text = await readFile(
      path.join(ROOT, 'examples/erp/odoo/odoo-notas-credito.csv'),
      'utf8',
    );
    return `${text.split('\n').slice(0, 4).join('\n')}\n`;
  };

  test('Odoo credit notes dropped in the invoice folder: the report names the skip rule that dropped them, not "holds no documents"; nothing is sent', async ({
    daemonProject,
  }) => {
    const { emulator, p } = await invoiceDaemon(daemonProject, ODOO);
    await p.drop('invoice', 'odoo-nc.csv', await notesExport());
    const result = await p.finalResult('invoice', 'odoo-nc.csv', { timeoutMs: 60_000 });
    expect(result.error?.code).toBe('EDOC_READ_EMPTY');
    expect(result.error?.message).toContain('dropped every one of them (rows.skip:');
    expect(result.error?.message).toContain('move_type in [out_refund');
    expect(result.error?.message).toContain("drop it in that kind's folder");
    expect((await emulator.client.issued()).length).toBe(0);
  });

  test('validate says what the daemon would: a header alone, or rows the mapping skips, exit 1 with EDOC_READ_EMPTY', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject({ kinds: { invoice: { mapping: ODOO } } });
    const notes = await p.exportFile('odoo-nc.csv', await notesExport());
    const skipped = await runCli(p, ['validate', notes, '--kind', 'invoice']);
    expect(skipped.code, skipped.stderr).toBe(1);
    expect(skipped.stderr).toContain('EDOC_READ_EMPTY: odoo-nc.csv: the file holds no documents');
    expect(skipped.stderr).toContain('rows.skip:');
    const header = (await notesExport()).split('\n')[0];
    const only = await p.exportFile('solo-encabezado.csv', `${header}\n`);
    const alone = await runCli(p, ['validate', only, '--kind', 'invoice']);
    expect(alone.code, alone.stderr).toBe(1);
    expect(alone.stderr).toContain('EDOC_READ_EMPTY');
  });
});

describe('a header the ERP renamed', () => {
  const SALES = path.join(ROOT, 'config/mappings/sales.csv.yaml');
  const header = (formaPago: string): string =>
    'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
    `cliente_correo;cliente_tipo_persona;medio_pago;${formaPago};linea;codigo;descripcion;cantidad;unidad;` +
    'precio_unitario;iva;motivo;ref_documento;ref_fecha;ref_cufe\r\n';
  // a credit sale (forma_pago 2), 30 days
  const row =
    'SETP;990126401;28/11/2026;09:15:00;28/12/2026;COP;10;31;800.197.268-4;Distribuidora Andina S.A.S.;' +
    'compras@andina.example;1;42;2;1;7702001;Producto 1;1;94;1.000,00;19;;;;\r\n';

  test('"forma_pago" exported as "FormaPago": refused naming both, never issued as a cash sale; the export fixed is issued as credit', async ({
    daemonProject,
  }) => {
    const { emulator, p } = await invoiceDaemon(daemonProject, SALES);
    await p.drop('invoice', 'ventas-renombrada.csv', header('FormaPago') + row);
    const refused = await p.finalResult('invoice', 'ventas-renombrada.csv', { timeoutMs: 60_000 });
    expect(refused.error?.code).toBe('EDOC_MAP_MISSING_COLUMN');
    expect(refused.error?.message).toContain('"forma_pago" (the header has "FormaPago")');
    expect(refused.error?.message).toContain('Nothing of the file is sent');
    expect((await emulator.client.issued()).length).toBe(0);

    await p.drop('invoice', 'ventas-corregida.csv', header('forma_pago') + row);
    const fixed = await p.finalResult('invoice', 'ventas-corregida.csv', { timeoutMs: 60_000 });
    expect(fixed.documents.map((d) => d.status)).toEqual(['accepted']);
    const [issued] = await emulator.client.documents({ withRequest: true });
    expect((issued?.request as { PaymentMeans: { Mean: string }[] }).PaymentMeans[0]?.Mean).toBe(
      '2',
    );
  });
});

describe("the outbox's errors.csv dropped back into the inbox", () => {
  test("said to be the bridge's own errors report, not an export missing columns; nothing of it is sent", async ({
    daemonProject,
  }) => {
    const SALES = path.join(ROOT, 'config/mappings/sales.csv.yaml');
    const { emulator, p } = await invoiceDaemon(daemonProject, SALES);
    const header =
      'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
      'cliente_correo;cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;' +
      'precio_unitario;iva;motivo;ref_documento;ref_fecha;ref_cufe\r\n';
    // the customer's check digit is 4: 5 is refused before sending
    const row =
      'SETP;990126501;28/11/2026;09:15:00;28/12/2026;COP;10;31;800.197.268-5;Distribuidora Andina S.A.S.;' +
      'compras@andina.example;1;42;2;1;7702001;Producto 1;1;94;1.000,00;19;;;;\r\n';
    await p.drop('invoice', 'ventas-mal.csv', header + row);
    const first = await p.finalResult('invoice', 'ventas-mal.csv', { timeoutMs: 60_000 });
    expect(first.documents.map((d) => d.status)).toEqual(['invalid']);
    const report = await readFile(path.join(p.outbox('invoice'), 'ventas-mal.errors.csv'), 'utf8');

    await p.drop('invoice', 'errores.csv', report);
    const refused = await p.finalResult('invoice', 'errores.csv', { timeoutMs: 60_000 });
    expect(refused.error?.code).toBe('EDOC_MAP_MISSING_COLUMN');
    expect(refused.error?.message).toContain(
      'errores.csv is an errors report of edoc-bridge (its header is index;key;status;source;code;field;value;message), ' +
        'not an export of the ERP: nothing of it is sent.',
    );
    expect(refused.documents).toHaveLength(0);
    expect(await emulator.client.issued()).toHaveLength(0);
  });
});

describe('an export saved with another delimiter', () => {
  test('an Odoo export re-saved with ";" under the "," preset: refused naming the delimiter, not only a list of missing columns', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject({
      kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/erp/odoo-invoice.yaml') } },
    });
    // the shipped sample's header and first row, its commas made semicolons (no cell of them holds one)
    const text = await readFile(
      path.join(ROOT, 'examples/erp/odoo/odoo-facturas-cliente.csv'),
      'utf8',
    );
    const [header] = text.split('\n');
    const file = await p.exportFile('odoo-punto-y-coma.csv', `${header!.replaceAll(',', ';')}\n`);
    const run = await runCli(p, ['validate', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('EDOC_MAP_MISSING_COLUMN');
    expect(run.stderr).toContain(
      'the file is delimited by ";", and mapping odoo-invoice reads ","',
    );
  });
});
