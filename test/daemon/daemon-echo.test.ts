/**
 * Issue 12, items 8 and 9, through the real daemon: what the bridge writes about a bad input quotes
 * it only as a short excerpt and never repeats a configured API key (result.json, errors.csv, the
 * ledger file's bytes, the log); one enormous CSV record neither floods those nor holds the daemon
 * back; and SIGTERM while such a record is being read stops the daemon promptly.
 */
import { createWriteStream } from 'node:fs';
import { readdir, readFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  type DaemonProcess,
  eventually,
  type Project,
  ROOT,
  type TestCompany,
} from '../helpers/daemon-harness.js';
import { daemonTest as test, fileResources } from '../helpers/daemon-fixture.js';

// Longer than an excerpt (60 characters), so a cut-off start of it would be caught too.
const KEY = 'sk_live_9fQ2xLm7Rt4ZpW8vNc3Kd6HyBj1SgAe5Uo0TiXr7MwYqPz2LnVb4Ch8Fs';
const COMPANY: TestCompany = { ...COMPANY_MAIN, apiKey: KEY };
const sales = { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') };
const HEADER =
  'prefijo;numero;fecha;hora;vence;cliente_tipo_doc;cliente_doc;cliente_nombre;cliente_correo;linea;codigo;descripcion;cantidad;precio_unitario;iva';

beforeAll(async () => {
  await buildCli();
}, 120_000);

/** Every file under `dir` except the archived originals, as bytes. */
async function outboxFiles(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || full.split(path.sep).includes('archive')) continue;
    out.set(path.relative(dir, full), await readFile(full));
  }
  return out;
}

/** The ledger's bytes as on disk: the database file and its write-ahead log. */
async function ledgerBytes(project: Project): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const name of ['ledger.sqlite', 'ledger.sqlite-wal']) {
    try {
      parts.push(await readFile(path.join(project.stateDir, name)));
    } catch {
      /* no WAL right now */
    }
  }
  return Buffer.concat(parts);
}

function expectNoKey(where: string, bytes: Buffer): void {
  // the whole key, and any 12-character piece of it (an excerpt or a JSON parser's quote)
  const text = bytes.toString('latin1');
  for (let i = 0; i + 12 <= KEY.length; i += 6) {
    expect(
      text.includes(KEY.slice(i, i + 12)),
      `${where} holds ${KEY.slice(i, i + 12)}… of the key`,
    ).toBe(false);
  }
}

/** A sales export whose single data row has a description of `mb` MiB. */
async function writeLongRecord(file: string, mb: number): Promise<void> {
  const out = createWriteStream(file);
  const write = (text: string): Promise<void> =>
    new Promise((resolve) => {
      if (out.write(text)) resolve();
      else out.once('drain', resolve);
    });
  await write(
    `${HEADER}\r\nSETP;990000901;01/11/2026;09:15:00;01/11/2026;31;800197268;Cliente;c@example.com;1;7702;"`,
  );
  const block = 'x'.repeat(1 << 20);
  for (let i = 0; i < mb; i += 1) await write(block);
  await write('";1;1.000,00;19\r\n');
  await new Promise((resolve) => out.end(resolve));
}

describe('input quoted back: bounded, and never a configured key', () => {
  let project: Project;
  let daemon: DaemonProcess;
  const resources = fileResources();

  beforeAll(async () => {
    ({ project } = await resources.daemonProject({
      companies: [COMPANY],
      kinds: { invoice: sales },
    }));
    daemon = await resources.startDaemon(project);
  }, 60_000);

  test('a copy of the API key file dropped as a CSV, a TXT and a JSONL file: the key is in no report, no ledger byte and no log line', async () => {
    await project.drop('invoice', 'clave.csv', `${KEY}\n`);
    await project.drop('invoice', 'clave-copia.txt', `${KEY}\r\n`);
    // the same bytes twice would be one file taken twice (content dedup): each copy ends differently
    await project.drop('invoice', 'clave-lineas.jsonl', KEY);
    const csv = await project.finalResult('invoice', 'clave.csv');
    expect(csv.error?.code).toBe('EDOC_MAP_MISSING_COLUMN');
    expect(csv.error?.message).toContain('found: [redacted]');
    const txt = await project.finalResult('invoice', 'clave-copia.txt');
    expect(txt.error?.code).toBe('EDOC_MAP_MISSING_COLUMN');
    const jsonl = await project.finalResult('invoice', 'clave-lineas.jsonl');
    expect(jsonl.counts, JSON.stringify(jsonl)).toMatchObject({ total: 1, invalid: 1 });
    expect(jsonl.documents[0].errors.map((e) => e.code)).toContain('EDOC_READ_SECRET');
    await daemon.waitForLog((l) => l.msg === 'file complete' && l.file === 'clave-lineas.jsonl');

    const files = await outboxFiles(path.join(project.dir, 'outbox'));
    expect([...files.keys()].sort()).toEqual(
      expect.arrayContaining(['invoice/clave.result.json', 'invoice/clave.errors.csv']),
    );
    for (const [name, bytes] of files) expectNoKey(name, bytes);
    expectNoKey('the ledger', await ledgerBytes(project));
    expectNoKey('the log', await readFile(project.logFile));
  });

  test('a 20 MB one-line CSV: the log, the reports and the ledger hold a short excerpt of it; the next file goes through', async () => {
    const logBefore = (await stat(project.logFile)).size;
    await project.drop('invoice', 'enorme.csv', `${'columna_larga;'.repeat(1_500_000)}\r\n`);
    const result = await project.finalResult('invoice', 'enorme.csv', { timeoutMs: 60_000 });
    expect(result.error?.code).toBe('EDOC_MAP_MISSING_COLUMN');
    expect(result.error?.message).toMatch(
      /found: columna_larga, columna_larga, .*… \([\d,]+ characters\)\)$/,
    );

    const files = await outboxFiles(project.outbox('invoice'));
    for (const name of ['enorme.result.json', 'enorme.errors.csv']) {
      expect(files.get(name)?.length, name).toBeGreaterThan(0);
      expect(files.get(name)?.length, name).toBeLessThan(4_000);
    }
    expect((await stat(project.logFile)).size - logBefore).toBeLessThan(20_000);
    const ledger = await ledgerBytes(project);
    expect(ledger.length).toBeLessThan(8 << 20);
    expect(
      ledger.includes('columna_larga;'.repeat(40)),
      'the ledger holds a long piece of the line',
    ).toBe(false);

    await project.drop(
      'invoice',
      'invoices.csv',
      await readFile(path.join(ROOT, 'examples/invoices.csv')),
    );
    expect((await project.finalResult('invoice', 'invoices.csv')).counts).toMatchObject({
      total: 3,
      accepted: 3,
    });
    expect(daemon.running).toBe(true);
  }, 120_000);

  // last: the emulator does not know the new key, so nothing can be sent afterwards
  test('after a reload the new key is the one kept out (SIGHUP, the new configuration in force)', async () => {
    const next = 'sk_live_Zq8Wm3Xr5Tn7Vb2Lc9Kd4Hy6Pj1Sg0AeUoTiR7MwYqPz2LnVb4Ch8FsX';
    await project.writeConfig({ ...project.options, apiKeys: { main: next } });
    daemon.signal('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    await project.drop('invoice', 'clave-nueva.csv', `${next}\n`);
    const result = await project.finalResult('invoice', 'clave-nueva.csv');
    expect(result.error?.message).toContain('found: [redacted]');
    const scan = (where: string, bytes: Buffer): void => {
      expect(
        bytes.toString('latin1').includes(next.slice(0, 16)),
        `${where} holds the start of the new key`,
      ).toBe(false);
    };
    for (const [name, bytes] of await outboxFiles(path.join(project.dir, 'outbox')))
      scan(name, bytes);
    scan('the ledger', await ledgerBytes(project));
    scan('the log', await readFile(project.logFile));
  });
});

describe('SIGTERM while one huge record is being read', () => {
  test('the daemon stops promptly and leaves the file to be read at the next start', async ({
    daemonProject,
  }) => {
    const { project, startDaemon } = await daemonProject({
      companies: [COMPANY],
      kinds: { invoice: sales },
    });
    const daemon = await startDaemon();
    // 30 MiB: under the default read.maxRecordBytes (32 MiB), so it is read, not refused
    const part = path.join(project.inbox('invoice'), 'grande.csv.part');
    await writeLongRecord(part, 30);
    await rename(part, path.join(project.inbox('invoice'), 'grande.csv'));
    await daemon.waitForLog((l) => l.msg === 'file taken' && l.file === 'grande.csv', 60_000);
    daemon.signal('SIGTERM');
    // generous: it takes about a second; reading the record to the end took 20 s and more before
    const exit = await Promise.race([
      daemon.exited,
      new Promise<'late'>((resolve) => {
        setTimeout(() => resolve('late'), 10_000);
      }),
    ]);
    if (exit === 'late') await daemon.kill();
    expect(exit).toEqual({ code: 0, signal: null });
    const [file] = project.ledgerQuery<{ state: string }>(
      "SELECT state FROM files WHERE name = 'grande.csv'",
    );
    expect(file.state).toBe('reading');
    await eventually(
      () => (project.logLines().some((l) => l.msg === 'stopped') ? true : undefined),
      'the stopped line',
    );
  }, 120_000);
});
