/**
 * Issue 12 item 2: a file still being written must never have documents issued
 * from part of it. The daemon releases a file's documents only after a complete
 * read that it verified (inode, size, mtime and the hash of the bytes read); a
 * file that changed while read is dropped and taken again; a file that changes
 * after sending began gets EDOC_READ_CHANGED_AFTER_SEND, loudly.
 * Real daemon, real emulator, real slow writers.
 */
import { open, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  type DaemonProcess,
  eventually,
  type Project,
  ROOT,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { daemonTest as test, type DaemonFixtures } from '../helpers/daemon-fixture.js';

const HEADER =
  'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
  'cliente_correo;cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;' +
  'iva;motivo;ref_documento;ref_fecha;ref_cufe\r\n';

/** One CSV line of invoice SETP<number>: line `line`, quantity `qty` at 1.000,00 with 19 % VAT. */
function row(number: number, line: number, qty: number): string {
  return (
    `SETP;${number};18/11/2026;09:15:00;18/12/2026;COP;10;31;800.197.268-4;Distribuidora Andina S.A.S.;` +
    `compras@andina.example;1;42;2;${line};77020${line};Producto ${line};${qty};94;1.000,00;19;;;;\r\n`
  );
}

beforeAll(async () => {
  await buildCli();
}, 240_000);

async function start(
  daemonProject: DaemonFixtures['daemonProject'],
): Promise<{ p: Project; emulator: TestEmulator; daemon: DaemonProcess }> {
  const { project, emulator, startDaemon } = await daemonProject({
    companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 400, concurrency: 8 } }],
    stableMs: 200,
    kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } },
  });
  return { p: project, emulator, daemon: await startDaemon() };
}

interface IssuedRequest {
  Lines?: unknown[];
  Total?: { PayableAmount?: string };
}

describe('a file still being written', () => {
  test('a CSV whose writer pauses longer than stableMs in the middle of a document issues every document whole, none from the part written before the pause', async ({
    daemonProject,
  }) => {
    const { p, emulator, daemon } = await start(daemonProject);
    // big enough that its read takes far longer than the test needs to see 'file taken' and freeze the daemon
    const count = 2_500;
    const first = 990_100_000;
    const file = path.join(p.inbox('invoice'), 'ventas-lentas.csv');
    const writer = await open(file, 'w');
    // every document has 2 lines but the last, whose 2nd and 3rd lines come after the pause
    let part1 = HEADER;
    for (let i = 0; i < count - 1; i++) part1 += row(first + i, 1, 1) + row(first + i, 2, 2);
    part1 += row(first + count - 1, 1, 1);
    await writer.write(part1);
    await writer.sync();

    // the pause is longer than stableMs: the daemon takes the file; it is frozen while it reads it
    await daemon.waitForLog(
      (l) => l.msg === 'file taken' && l.file === 'ventas-lentas.csv',
      30_000,
    );
    daemon.signal('SIGSTOP');
    const rows = p.ledgerQuery<{ state: string }>(
      `SELECT state FROM files WHERE name = 'ventas-lentas.csv'`,
    );
    expect(
      rows.map((r) => r.state),
      'the read ended before the test could freeze the daemon: make part 1 bigger',
    ).toEqual(['reading']);
    expect(await emulator.client.documents()).toEqual([]);
    // the writer goes on: the rest of the last document, then the file is complete
    await writer.write(row(first + count - 1, 2, 2) + row(first + count - 1, 3, 3));
    await writer.close();
    daemon.signal('SIGCONT');

    await daemon.waitForLog(
      (l) => l.code === 'EDOC_READ_CHANGED' && l.file === 'ventas-lentas.csv',
      30_000,
    );
    const result = await p.finalResult('invoice', 'ventas-lentas.csv', { timeoutMs: 120_000 });
    expect(result.error).toBeUndefined();
    expect(result.counts).toMatchObject({ total: count, accepted: count, duplicate: 0 });

    const issued = await emulator.client.documents({ withRequest: true });
    expect(issued).toHaveLength(count);
    const last = issued.find((d) => d.documentNumber === `SETP${first + count - 1}`);
    const request = last?.request as IssuedRequest;
    expect(request.Lines).toHaveLength(3);
    // 1 + 2 + 3 units at 1,000.00 plus 19 % VAT
    expect(request.Total?.PayableAmount).toBe('7140.00');
    for (const d of issued.filter((x) => x !== last))
      expect((d.request as IssuedRequest).Lines).toHaveLength(2);
  }, 240_000);

  test('a file rewritten after sending began gets EDOC_READ_CHANGED_AFTER_SEND in its result.json and the log; its new content is taken as a new file', async ({
    daemonProject,
  }) => {
    const { p, emulator, daemon } = await start(daemonProject);
    // answers are slow, so the file can be changed while its documents are being sent
    await emulator.client.setFaults({ latencyMs: 1_500 });
    const first = 990_200_000;
    let content = HEADER;
    for (let i = 0; i < 4; i++) content += row(first + i, 1, 1);
    const file = await p.drop('invoice', 'reescrito.csv', content);
    await eventually(
      () =>
        p.ledgerQuery<{ n: number }>(
          `SELECT count(*) AS n FROM documents WHERE state = 'sending'`,
        )[0].n > 0
          ? true
          : undefined,
      'a document being sent',
      30_000,
    );
    await appendFile(file, row(first + 4, 1, 1));
    await emulator.client.setFaults({});

    const line = await daemon.waitForLog((l) => l.code === 'EDOC_READ_CHANGED_AFTER_SEND', 30_000);
    expect(line.level).toBe('error');
    // what became of the 4 earlier documents when the change was found, counted, never "were sent".
    // Found by the intake taking the new content (": of its"), or, when the 4 were final first, by the
    // settling of the earlier file's report (", of its"): which comes first is a race of the two.
    expect(line.msg).toMatch(
      /^FILE CHANGED AFTER SENDING BEGAN[:,] of its 4 document\(s\) read from the earlier content: /,
    );
    expect(line.msg).not.toContain('documents were sent');
    const counted = [
      ...String(line.msg).matchAll(/(\d+) (accepted|in doubt|being sent|waiting to be sent)/g),
    ];
    expect(counted.reduce((n, m) => n + Number(m[1]), 0)).toBe(4);
    const earlier = await p.finalResult('invoice', 'reescrito.csv', { timeoutMs: 60_000 });
    expect(earlier.error?.code).toBe('EDOC_READ_CHANGED_AFTER_SEND');
    expect(earlier.documents).toHaveLength(4);
    expect(earlier.documents.some((d) => d.status === 'accepted')).toBe(true);
    // the new content is a new file with its own report; nothing of it was archived as the first file's original
    const later = await p.finalResult('invoice', 'reescrito (2).csv', { timeoutMs: 60_000 });
    expect(later.counts.total).toBe(5);
    expect(later.documents[4].status).toBe('accepted');
    expect(later.counts.accepted + later.counts.duplicate).toBe(5);
    const archived = await eventually(
      () => {
        const rows = p
          .ledgerQuery<{ archived_path: string | null }>(
            `SELECT archived_path FROM files WHERE name = 'reescrito.csv' ORDER BY id`,
          )
          .map((r) => r.archived_path);
        return rows.every((r) => r !== null) ? rows : undefined;
      },
      'both files settled',
      30_000,
    );
    expect(archived[0]).toBe('');
    expect(archived[1]).toMatch(/archive/);
    // every number issued once, the fifth from the new content
    const numbers = (await emulator.client.issued()).map((d) => d.documentNumber).sort();
    expect(numbers).toEqual([0, 1, 2, 3, 4].map((i) => `SETP${first + i}`));
  }, 240_000);
});
