/**
 * Issue 12 item 2, after the archive: a writer that keeps its file open and writes on after the daemon
 * sent and archived it writes into the archived copy (archiving is a rename, same inode). The archive
 * watch notices: the file gets EDOC_READ_CHANGED_AFTER_SEND, loudly, and the grown copy goes back to the
 * inbox, where its whole content is taken as a new file. Real daemon, real emulator, a real open writer.
 * A half file refused whole at the writer's pause (its last row cut in a number) is watched too: its
 * report stops blaming the mapping once the rest arrives, and the whole export is issued once.
 */
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  eventually,
  type Project,
  ROOT,
} from '../helpers/daemon-harness.js';
import {
  type DaemonProject,
  type DaemonProjectOptions,
  daemonTest as test,
} from '../helpers/daemon-fixture.js';

const HEADER =
  'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
  'cliente_correo;cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;' +
  'iva;motivo;ref_documento;ref_fecha;ref_cufe\r\n';

function row(number: number): string {
  return (
    `SETP;${number};18/11/2026;09:15:00;18/12/2026;COP;10;31;800.197.268-4;Distribuidora Andina S.A.S.;` +
    'compras@andina.example;1;42;2;1;7702001;Producto 1;1;94;1.000,00;19;;;;\r\n'
  );
}

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** A running daemon whose invoices come as the sales CSV, files taken after 300 ms still. */
async function salesDaemon(daemonProject: (o: DaemonProjectOptions) => Promise<DaemonProject>) {
  const {
    emulator,
    project: p,
    startDaemon,
  } = await daemonProject({
    companies: [COMPANY_MAIN],
    stableMs: 300,
    kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } },
  });
  return { emulator, p, daemon: await startDaemon() };
}

/** Waits until the first file recorded as `name` has been moved to the archive. */
async function waitArchived(p: Project, name: string, what: string): Promise<void> {
  await eventually(
    () =>
      (
        p.ledgerQuery<{ a: string | null }>(
          `SELECT archived_path AS a FROM files WHERE name = ? ORDER BY id`,
          name,
        )[0]?.a ?? ''
      ).includes('archive')
        ? true
        : undefined,
    what,
    30_000,
  );
}

describe('a file written on after it was archived', () => {
  test('the archived copy that grows gets EDOC_READ_CHANGED_AFTER_SEND in its result.json and the log, and goes back to the inbox as a new file', async ({
    daemonProject,
  }) => {
    const { emulator, p, daemon } = await salesDaemon(daemonProject);
    const first = 990_300_000;
    const file = path.join(p.inbox('invoice'), 'hold.csv');
    const writer = await open(file, 'w');
    try {
      await writer.write(HEADER + row(first));
      await writer.sync();
      // the daemon takes, sends and archives the file while the writer still holds it open
      const result = await p.finalResult('invoice', 'hold.csv', { timeoutMs: 60_000 });
      expect(result.counts).toMatchObject({ total: 1, accepted: 1 });
      await waitArchived(p, 'hold.csv', 'the original archived');
      await writer.write(row(first + 1));
      await writer.sync();
    } finally {
      await writer.close();
    }

    const line = await daemon.waitForLog(
      (l) => l.code === 'EDOC_READ_CHANGED_AFTER_SEND' && l.file === 'hold.csv',
      30_000,
    );
    expect(line.level).toBe('error');
    expect(line.inbox).toBe(file);
    const earlier = await eventually(
      async () => {
        const r = await p.result('invoice', 'hold.csv');
        return r?.error?.code === 'EDOC_READ_CHANGED_AFTER_SEND' ? r : undefined;
      },
      'the first report rewritten with the error',
      30_000,
    );
    expect(earlier.error?.message).toMatch(/archived/);
    expect(earlier.documents.map((d) => d.status)).toEqual(['accepted']);
    // the grown content is taken again as a new file: the first document a duplicate by its number, the second sent
    const later = await p.finalResult('invoice', 'hold (2).csv', { timeoutMs: 60_000 });
    expect(later.error).toBeUndefined();
    expect(later.documents.map((d) => d.status)).toEqual(['duplicate', 'accepted']);
    // the grown content is archived in its turn, whole
    const archived = await eventually(
      () =>
        p.ledgerQuery<{ a: string | null }>(
          `SELECT archived_path AS a FROM files WHERE name = 'hold.csv' ORDER BY id`,
        )[1]?.a ?? undefined,
      'the grown file archived',
      30_000,
    );
    expect(await readFile(archived, 'utf8')).toBe(HEADER + row(first) + row(first + 1));
    const numbers = (await emulator.client.issued()).map((d) => d.documentNumber).sort();
    expect(numbers).toEqual([`SETP${first}`, `SETP${first + 1}`]);
  }, 240_000);

  test("a half file refused whole at the writer's pause: the rest written into the archive is put back and issued once, and the first report stops blaming the mapping", async ({
    daemonProject,
  }) => {
    const { emulator, p, daemon } = await salesDaemon(daemonProject);
    const first = 990_300_100;
    const whole = HEADER + row(first) + row(first + 1);
    // the pause falls inside the second row's price: "1.000,00" is cut to "1.0"
    const cut = whole.lastIndexOf('1.000,00') + 3;
    const file = path.join(p.inbox('invoice'), 'pausa.csv');
    const writer = await open(file, 'w');
    try {
      await writer.write(whole.slice(0, cut));
      await writer.sync();
      const half = await p.finalResult('invoice', 'pausa.csv', { timeoutMs: 60_000 });
      expect(half.error?.code).toBe('EDOC_MAP_FORMAT_MISMATCH');
      await waitArchived(p, 'pausa.csv', 'the half file archived');
      await writer.write(whole.slice(cut));
      await writer.sync();
    } finally {
      await writer.close();
    }

    const line = await daemon.waitForLog(
      (l) => l.code === 'EDOC_READ_CHANGED' && l.file === 'pausa.csv',
      30_000,
    );
    expect(line.level).toBe('error');
    expect(line.inbox).toBe(file);
    // the first report now says why it failed, and that nothing of it was sent
    const earlier = await eventually(
      async () => {
        const r = await p.result('invoice', 'pausa.csv');
        return r?.error?.code === 'EDOC_READ_CHANGED' ? r : undefined;
      },
      'the first report rewritten',
      30_000,
    );
    expect(earlier.error?.message).toMatch(/written on after it was read/);
    expect(earlier.error?.message).toMatch(/EDOC_MAP_FORMAT_MISMATCH/);
    expect(earlier.error?.message).toMatch(/nothing of it was sent/);
    // the complete export is taken as a new file and both invoices are issued, once
    await eventually(
      async () => {
        const issued = (await emulator.client.issued()).map((d) => d.documentNumber).sort();
        return issued.length === 2 ? issued : undefined;
      },
      'both invoices issued',
      60_000,
    );
    const ids = p.ledgerQuery<{ id: number; sha: string }>(
      `SELECT id, sha256 AS sha FROM files WHERE name = 'pausa.csv' ORDER BY id`,
    );
    expect(ids).toHaveLength(2);
    const archived = await eventually(
      () =>
        p.ledgerQuery<{ a: string | null }>(
          `SELECT archived_path AS a FROM files WHERE id = ?`,
          ids[1]!.id,
        )[0]?.a ?? undefined,
      'the complete file archived',
      30_000,
    );
    expect(await readFile(archived, 'utf8')).toBe(whole);
    const numbers = (await emulator.client.issued()).map((d) => d.documentNumber).sort();
    expect(numbers).toEqual([`SETP${first}`, `SETP${first + 1}`]);
  }, 240_000);
});
