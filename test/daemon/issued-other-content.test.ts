/**
 * A number the ledger holds as accepted comes again with other content: a corrected re-export (the
 * accountant changed 100.00 to 250.00 and exported again), or the complete content of a file whose writer
 * paused longer than the stability window after the half file's documents were issued. Neither is sent;
 * both are EDOC_ISSUED_OTHER_CONTENT, at error level, in errors.csv and the retry file, naming what was
 * issued, what the file now says and the note to issue. An unchanged re-export stays a quiet duplicate.
 * Real daemon, real emulator, the shipped CSV mapping (totals derived from the lines).
 */
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, eventually, ROOT } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const HEADER =
  'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
  'cliente_correo;cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;' +
  'iva;motivo;ref_documento;ref_fecha;ref_cufe\r\n';

/** One CSV line of invoice SETP<number>: line `line`, one unit at `price` (decimal comma) with `vat` % VAT. */
function row(number: number, line: number, price: string, vat = 0): string {
  return (
    `SETP;${number};20/11/2026;10:00:00;20/12/2026;COP;10;31;800.197.268-4;Distribuidora Andina S.A.S.;` +
    `compras@andina.example;1;42;2;${line};77020${line};Producto ${line};1;94;${price};${vat};;;;\r\n`
  );
}

const mapping = { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } };

interface Problem {
  code?: string;
  field?: string;
  message: string;
}

describe('a number issued before comes again with other content', () => {
  test('a corrected re-export (100.00 became 250.00) is EDOC_ISSUED_OTHER_CONTENT: not sent, error line, errors.csv and retry file; the unchanged one stays a quiet duplicate', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({ companies: [COMPANY_MAIN], kinds: mapping, stableMs: 200 });
    const daemon = await startDaemon();
    // 1 unit × 100,00 at 0 % VAT: payable 100.00; 1 unit × 40,00: payable 40.00
    await p.drop(
      'invoice',
      'ventas-20.csv',
      HEADER + row(990_600_001, 1, '100,00') + row(990_600_002, 1, '40,00'),
    );
    expect((await p.finalResult('invoice', 'ventas-20.csv')).counts).toMatchObject({
      total: 2,
      accepted: 2,
    });

    // the accountant corrects the first invoice (1 unit × 250,00: payable 250.00) and exports the day again
    await p.drop(
      'invoice',
      'ventas-20-corregido.csv',
      HEADER + row(990_600_001, 1, '250,00') + row(990_600_002, 1, '40,00'),
    );
    const result = await p.finalResult('invoice', 'ventas-20-corregido.csv');
    expect(result.counts).toMatchObject({ total: 2, duplicate: 2 });
    const [corrected, same] = result.documents as unknown as {
      key: string;
      status: string;
      errors: Problem[];
      issued: unknown;
    }[];
    expect(corrected.key).toBe('main/invoice/SETP/990600001');
    expect(corrected.status).toBe('duplicate');
    expect(corrected.issued).toBeNull();
    expect(corrected.errors).toHaveLength(1);
    expect(corrected.errors[0].code).toBe('EDOC_ISSUED_OTHER_CONTENT');
    expect(corrected.errors[0].field).toBe('payable amount');
    expect(corrected.errors[0].message).toBe(
      'SETP990600001 was issued (accepted from ventas-20.csv) with other content than this file ' +
        'holds (payable amount: issued 100.00, the file now says 250.00). Not sent: the number is issued and the service keeps what ' +
        'it issued. To correct it, issue a credit note (a lower amount, or to annul it) or a debit note (a higher amount) referencing ' +
        'SETP990600001.',
    );
    expect(same.status).toBe('duplicate');
    expect(same.errors.map((e) => e.code)).toEqual(['EDOC_LEDGER_DUPLICATE_KEY']);

    // errors.csv: one row, the corrected invoice's; the retry file holds its row as exported
    const csv = await readFile(
      path.join(p.outbox('invoice'), 'ventas-20-corregido.errors.csv'),
      'utf8',
    );
    const rows = csv
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(
      /^0;main\/invoice\/SETP\/990600001;duplicate;rows 2;EDOC_ISSUED_OTHER_CONTENT;payable amount;;/,
    );
    const retry = await readFile(
      path.join(p.outbox('invoice'), 'ventas-20-corregido.retry.csv'),
      'utf8',
    );
    expect(retry).toBe(HEADER + row(990_600_001, 1, '250,00'));

    // the log: one error line with the code for the corrected invoice, the unchanged one at info (its code the quiet duplicate's)
    const lines = daemon
      .logLines()
      .filter((l) => l.msg === 'document final' && l.file === 'ventas-20-corregido.csv');
    const byDoc = new Map(lines.map((l) => [l.doc, l]));
    expect(byDoc.get('main/invoice/SETP/990600001')).toMatchObject({
      level: 'error',
      code: 'EDOC_ISSUED_OTHER_CONTENT',
      status: 'duplicate',
    });
    expect(byDoc.get('main/invoice/SETP/990600002')).toMatchObject({
      level: 'info',
      status: 'duplicate',
    });
    expect(byDoc.get('main/invoice/SETP/990600002')?.code).toBe('EDOC_LEDGER_DUPLICATE_KEY');

    // nothing sent again: each number issued once, with its first content
    const issued = await emulator.client.documents({ withRequest: true });
    expect(issued.map((d) => d.documentNumber).sort()).toEqual(['SETP990600001', 'SETP990600002']);
    const first = issued.find((d) => d.documentNumber === 'SETP990600001')?.request as {
      Total: { PayableAmount: string };
    };
    expect(first.Total.PayableAmount).toBe('100.00');
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);

  test('a writer that pauses longer than the stability window: the complete content reports the invoice issued from the half file as EDOC_ISSUED_OTHER_CONTENT, the others as they are', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 50, concurrency: 1 } }],
      kinds: mapping,
      stableMs: 200,
    });
    const daemon = await startDaemon();
    // the start-up log says how a file counts as complete, and what a pausing writer needs
    const mode = await daemon.waitForLog(
      (l) => l.mode === 'rename-or-stability-window' && l.msg !== 'watching the inbox',
    );
    expect(mode?.msg).toBe(
      'every inbox: rename or stability window — a file renamed in from *.part or *.tmp is taken at once, ' +
        'any other once its size and mtime held still for 200 ms; a writer that pauses longer than that needs a done marker ' +
        '(watch.doneMarker) or a rename',
    );
    // slow answers: the half file is still being sent when the writer goes on
    await emulator.client.setFaults({ latencyMs: 1_000 });
    const file = path.join(p.inbox('invoice'), 'ventas-lentas.csv');
    // the half file: SETP990600011 with its first line only (1 unit × 1.000,00 + 19 % VAT = 1,190.00), and three whole invoices
    await writeFile(
      file,
      HEADER +
        row(990_600_011, 1, '1.000,00', 19) +
        row(990_600_012, 1, '10,00') +
        row(990_600_013, 1, '10,00') +
        row(990_600_014, 1, '10,00'),
    );
    await eventually(
      () =>
        p.ledgerQuery<{
          n: number;
        }>(`SELECT count(*) AS n FROM documents WHERE key = 'main/invoice/SETP/990600011'
      AND state = 'accepted'`)[0].n === 1
          ? true
          : undefined,
      'SETP990600011 issued from the half file',
      30_000,
    );
    // the writer finishes: the invoice's second line (2 lines × 1.000,00 = 2,000.00 + 19 % VAT 380.00 = 2,380.00)
    await appendFile(file, row(990_600_011, 2, '1.000,00', 19));
    await emulator.client.setFaults({});

    const later = await eventually(
      async () => {
        const names = (await readdir(p.outbox('invoice'))).filter(
          (n) => n.startsWith('ventas-lentas (') && n.endsWith('.result.json'),
        );
        if (names.length === 0) return undefined;
        const r = await p.finalResult('invoice', names[0].replace(/\.result\.json$/, '.csv'), {
          timeoutMs: 60_000,
        });
        return r;
      },
      "the complete content's report",
      60_000,
    );
    const docs = later.documents as unknown as { key: string; status: string; errors: Problem[] }[];
    expect(docs.map((d) => d.key)).toEqual(
      [11, 12, 13, 14].map((n) => `main/invoice/SETP/9906000${n}`),
    );
    expect(docs[0].status).toBe('duplicate');
    expect(docs[0].errors.map((e) => e.code)).toEqual(['EDOC_ISSUED_OTHER_CONTENT']);
    expect(docs[0].errors[0].message).toContain(
      'payable amount: issued 1190.00, the file now says 2380.00; ' +
        'line count: issued 1, the file now says 2',
    );
    expect(docs[0].errors[0].message).toContain('accepted from ventas-lentas.csv');
    // the others: whole in both contents, so issued once and never EDOC_ISSUED_OTHER_CONTENT
    for (const d of docs.slice(1)) {
      expect(['accepted', 'duplicate']).toContain(d.status);
      expect(d.errors.map((e) => e.code)).not.toContain('EDOC_ISSUED_OTHER_CONTENT');
    }
    const line = await daemon.waitForLog((l) => l.code === 'EDOC_ISSUED_OTHER_CONTENT', 10_000);
    expect(line).toMatchObject({ level: 'error', doc: 'main/invoice/SETP/990600011' });
    const numbers = (await emulator.client.issued()).map((d) => d.documentNumber).sort();
    expect(numbers).toEqual([11, 12, 13, 14].map((n) => `SETP9906000${n}`));
    expect((await daemon.stop()).code).toBe(0);
  }, 180_000);
});
