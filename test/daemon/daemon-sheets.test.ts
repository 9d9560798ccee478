/**
 * Spreadsheets through the real daemon on the emulator: .xlsx and .xls written by LibreOffice
 * (test/fixtures/sheets/make-fixtures.py) dropped into an inbox whose kind has a mapping are
 * issued with the amounts their typed cells give (computed by hand below); an invalid row goes
 * to a CSV retry file; a password-protected workbook gets a file-level error.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import CFB from 'cfb';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Project, ROOT, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

const SHEETS = path.join(ROOT, 'test', 'fixtures', 'sheets');
let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  ({ emulator, project } = await resources.runningDaemon({
    kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } },
  }));
}, 120_000);

const fixture = (name: string): Promise<Buffer> => readFile(path.join(SHEETS, name));

interface Issued {
  SerieNumber: string;
  IssueDate: string;
  Total: { PayableAmount: string };
  Lines: { UnitPrice: string }[];
}

describe('spreadsheets dropped into an inbox', () => {
  test('an .xlsx is issued with the values of its cells; the same rows as .xls are the same documents', async () => {
    await project.drop('invoice', 'ventas.xlsx', await fixture('ventas.xlsx'));
    const result = await project.finalResult('invoice', 'ventas.xlsx');
    expect(result.counts).toMatchObject({ total: 2, accepted: 2 });
    expect(result.documents.map((d) => d.source.rows)).toEqual([[2, 3], [4]]);
    const sent = (await emulator.client.documents({ kind: 'invoice', withRequest: true }))
      .map((d) => d.request as Issued)
      .sort((a, b) => a.SerieNumber.localeCompare(b.SerieNumber));
    // 990000201: 10 x 12,500 = 125,000 + 19 % 23,750; 4 x 21,900.50 = 87,602 + 5 % 4,380.10 -> 240,732.10
    // 990000202: 3 x 3,333.33 = 9,999.99 + 19 % 1,899.9981 -> 1,900.00 -> 11,899.99
    expect(sent.map((r) => [r.SerieNumber, r.IssueDate, r.Total.PayableAmount])).toEqual([
      ['990000201', '2026-11-18T09:15:00', '240732.10'],
      ['990000202', '2026-11-19T14:02:30', '11899.99'],
    ]);

    // the .xls holds the same typed cells: the same documents, so a quiet duplicate, nothing sent again
    await project.drop('invoice', 'ventas-97.xls', await fixture('ventas.xls'));
    const again = await project.finalResult('invoice', 'ventas-97.xls');
    expect(again.counts).toMatchObject({ total: 2, duplicate: 2 });
    expect(await emulator.client.issued({ kind: 'invoice' })).toHaveLength(2);
  });

  test("an invalid row goes to NAME.retry.csv with the sheet's columns, and the report says so", async () => {
    await project.drop('invoice', 'ventas-con-error.xlsx', await fixture('ventas-con-error.xlsx'));
    const result = await project.finalResult('invoice', 'ventas-con-error.xlsx');
    expect(result.counts).toMatchObject({ total: 2, accepted: 1, invalid: 1 });
    expect((result as unknown as { retryFormat: string }).retryFormat).toMatch(/^csv: /);
    const bad = result.documents.find((d) => d.status === 'invalid');
    expect(bad?.source.rows).toEqual([3]);
    expect(bad?.errors.map((e) => e.code)).toContain('EDOC_MAP_BAD_NUMBER');
    const retry = await readFile(
      path.join(project.outbox('invoice'), 'ventas-con-error.retry.csv'),
      'utf8',
    );
    expect(retry).toBe(
      'prefijo;numero;fecha;hora;vence;cliente_tipo_doc;cliente_doc;cliente_nombre;cliente_correo;cliente_tipo_persona;' +
        'medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;iva\r\n' +
        'SETP;990000205;21/11/2026;10:45:00;;31;800197268;Distribuidora Andina S.A.S.;compras@andina.example;1;42;2;1;' +
        '0077021;Arroz blanco 5 kg;1;94;doce mil;5\r\n',
    );
    expect(existsSync(path.join(project.outbox('invoice'), 'ventas-con-error.retry.xlsx'))).toBe(
      false,
    );
  });

  test('a password-protected workbook is a file-level error and nothing is sent', async () => {
    const cfb = CFB.utils.cfb_new();
    CFB.utils.cfb_add(cfb, 'EncryptionInfo', Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]));
    CFB.utils.cfb_add(cfb, 'EncryptedPackage', Buffer.alloc(4096, 0x5a));
    const before = (await emulator.client.documents()).length;
    await project.drop('invoice', 'protegido.xlsx', CFB.write(cfb, { type: 'buffer' }) as Buffer);
    const result = await project.finalResult('invoice', 'protegido.xlsx');
    expect(result.error?.code).toBe('EDOC_READ_SHEET_ENCRYPTED');
    expect(result.counts.total).toBe(0);
    expect(await emulator.client.documents()).toHaveLength(before);
  });
});
