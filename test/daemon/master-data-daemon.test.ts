/**
 * Master data through a real daemon on the emulator: the ERP's third-party export dropped in the
 * customers folder becomes the table the invoice mapping reads the buyer from (checked in the request
 * the emulator stored); an id the table lacks refuses its document naming the id and the table; a newer
 * export becomes the next version; a broken export is refused naming file, row and column while the
 * table in use stays; a table exported longer ago than its maxAge gets one warning line.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, rename, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { EmulatorClient } from '../helpers/emulator-client.js';
import { shippedConfigFor } from '../helpers/shipped-config.js';
import { customersMapping } from '../helpers/customers-mapping.js';

const root = join(import.meta.dirname, '../..');
let dir: string;
let daemon: ChildProcess;
let emulator: RunningEmulator;
const resources = fileResources();

const HEADER = 'Tipo identificación;Identificación;Razón social;Correo;Dirección';
const SALES_HEADER = 'Factura;Fecha;Cliente;Producto;Cantidad;Precio;IVA';

const MAPPING = customersMapping({
  prefix: 'SETP',
  date: 'datetime',
  email: 'lookup(customers, Cliente, Correo)',
});

interface ResultFile {
  finishedAt: string | null;
  documents: { status: string; errors: { code: string; message: string; field?: string }[] }[];
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const result = (name: string): Promise<ResultFile> =>
  waitFor(name, async () => {
    const r = JSON.parse(
      await readFile(join(dir, 'outbox', 'invoice', `${name}.result.json`), 'utf8'),
    ) as ResultFile;
    return r.finishedAt ? r : undefined;
  });

type LogLine = Record<string, unknown>;
async function logLines(): Promise<LogLine[]> {
  const text = await readFile(join(dir, 'logs/edoc-bridge.log'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}
const logLine = (what: string, test: (l: LogLine) => boolean): Promise<LogLine> =>
  waitFor(what, async () => (await logLines()).find(test));

async function drop(folder: string, name: string, text: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, `.${name}.tmp`), text);
  await rename(join(folder, `.${name}.tmp`), join(folder, name));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request is read deep
async function issuedRequest(number: string): Promise<Record<string, any>> {
  const docs = await new EmulatorClient(emulator.url).documents({
    company: 1001,
    kind: 'invoice',
    withRequest: true,
  });
  const found = docs
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
    .map((d) => (d as unknown as { request: Record<string, any> }).request)
    .find((r) => r.SerieNumber === number);
  if (found === undefined) throw new Error(`${number} was not issued`);
  return found;
}

describe('master data in a running daemon', () => {
  const customers = (): string => join(dir, 'master', 'customers');

  beforeAll(async () => {
    await buildCli();
    dir = await resources.tempDir('edoc-master-');
    emulator = (await resources.emulator(join(root, 'config/emulator-seed.json'))).running;
    await writeFile(join(dir, 'sales.csv.yaml'), MAPPING);
    // the first export, made three days ago: older than the table's maxAge of one day
    await drop(
      customers(),
      'terceros-2026-11-25.csv',
      [
        HEADER,
        '31;900123456;Ferretería Andina S.A.S.;compras@andina.example;Cra 7 # 12-40',
        '13;79456123;Juan Carlos Gómez Pérez;;Calle 45 # 3-10',
      ].join('\r\n') + '\r\n',
    );
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
    await utimes(join(customers(), 'terceros-2026-11-25.csv'), threeDaysAgo, threeDaysAgo);
    const config =
      (await shippedConfigFor(dir, emulator.url, { invoice: `${dir}/sales.csv.yaml` })) +
      `masterData:\n  every: 1s\n  tables:\n    customers: { folder: ${customers()}, key: Identificación, columns: [Tipo identificación, Razón social, Correo], maxAge: 1d }\n`;
    await writeFile(join(dir, 'edoc-bridge.yaml'), config);
    daemon = spawn(
      process.execPath,
      [join(root, 'bin/edoc-bridge.js'), 'run', '--config', join(dir, 'edoc-bridge.yaml')],
      { cwd: dir, stdio: 'ignore', env: { ...process.env, EDOC_API_KEY: 'demo-key-1001' } },
    );
    await logLine('the daemon watching its inbox', (l) => l.msg === 'watching the inbox');
  }, 240_000);

  afterAll(async () => {
    if (daemon !== undefined && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
  });

  it('issues the buyer from the table; refuses the id it lacks naming id and table; warns the table is old', async () => {
    const loaded = await logLine('version 1', (l) => l.msg === 'master table loaded');
    expect(loaded).toMatchObject({
      table: 'customers',
      version: 1,
      file: 'terceros-2026-11-25.csv',
      rows: 2,
    });
    const stale = await logLine('the stale warning', (l) => l.code === 'EDOC_MASTER_STALE');
    expect(stale).toMatchObject({
      level: 'warn',
      table: 'customers',
      version: 1,
      file: 'terceros-2026-11-25.csv',
    });
    expect(String(stale.msg)).toMatch(/was exported 7\d h ago, more than its maxAge of 24 h/);
    // 2 × 10.000,00 = 20.000,00 net; VAT 19 % 3.800,00; payable 23.800,00 (each invoice)
    await drop(
      join(dir, 'inbox', 'invoice'),
      'ventas-1.csv',
      [
        SALES_HEADER,
        'SETP990000881;27/11/2026;900123456;Tornillos;2;10.000,00;19',
        'SETP990000882;27/11/2026;55555555;Tornillos;2;10.000,00;19',
      ].join('\r\n') + '\r\n',
    );
    const r = await result('ventas-1');
    expect(r.documents.map((d) => d.status)).toEqual(['accepted', 'invalid']);
    expect(r.documents[1].errors).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_MASTER_MISSING',
        field: 'Cliente',
        value: '55555555',
        rows: [3],
      }),
    ]);
    expect(r.documents[1].errors[0].message).toContain(
      'id "55555555" is not in master table "customers" (version 1, from terceros-2026-11-25.csv)',
    );
    const issued = await issuedRequest('990000881');
    expect(issued.CustomerParty).toEqual({
      Identification: { DocumentType: '31', DocumentNumber: '900123456', CountryCode: 'CO' },
      Name: 'Ferretería Andina S.A.S.',
      Email: 'compras@andina.example',
    });
    expect(issued.Total.PayableAmount).toBe('23800.00');
  }, 120_000);

  it('takes a newer export as the next version; a broken one is refused naming file, row and column, the table in use stays', async () => {
    await drop(
      customers(),
      'terceros-2026-11-28.csv',
      [
        HEADER,
        '31;900123456;Ferretería Andina S.A.S.;facturacion@andina.example;Cra 7 # 12-40',
        '13;55555555;María Fernanda Ríos;mfrios@correo.example;Av 30 # 8-20',
      ].join('\r\n') + '\r\n',
    );
    expect(
      await logLine('version 2', (l) => l.msg === 'master table loaded' && l.version === 2),
    ).toMatchObject({ file: 'terceros-2026-11-28.csv', rows: 2 });
    // the newest file, but its fourth row repeats an id with another name
    await drop(
      customers(),
      'terceros-2026-11-28b.csv',
      [
        HEADER,
        '31;900123456;Ferretería Andina S.A.S.;;',
        '13;55555555;María Ríos;;',
        '13;55555555;Otra persona;;',
      ].join('\r\n') + '\r\n',
    );
    const refused = await logLine('the refusal', (l) => l.code === 'EDOC_MASTER_BAD_FILE');
    expect(refused).toMatchObject({
      level: 'error',
      table: 'customers',
      file: 'terceros-2026-11-28b.csv',
      row: 4,
      column: 'Razón social',
    });
    expect(String(refused.msg)).toContain(
      'terceros-2026-11-28b.csv, row 4, column "Razón social": id "55555555" is on row 3 too',
    );
    await drop(
      join(dir, 'inbox', 'invoice'),
      'ventas-2.csv',
      [SALES_HEADER, 'SETP990000883;27/11/2026;55555555;Tornillos;2;10.000,00;19'].join('\r\n') +
        '\r\n',
    );
    expect((await result('ventas-2')).documents.map((d) => d.status)).toEqual(['accepted']);
    const issued = await issuedRequest('990000883');
    expect(issued.CustomerParty).toEqual({
      Identification: { DocumentType: '13', DocumentNumber: '55555555', CountryCode: 'CO' },
      Name: 'María Fernanda Ríos',
      Email: 'mfrios@correo.example',
    });
    // the intake worker holds version 2 now: the next file's read gets it by name, not whole
    await drop(
      join(dir, 'inbox', 'invoice'),
      'ventas-3.csv',
      [
        SALES_HEADER,
        'SETP990000884;27/11/2026;55555555;Tornillos;2;10.000,00;19',
        'SETP990000885;27/11/2026;79456123;Tornillos;2;10.000,00;19',
      ].join('\r\n') + '\r\n',
    );
    const third = await result('ventas-3');
    expect(third.documents.map((d) => [d.status, d.errors.map((e) => e.code)])).toEqual([
      ['accepted', []],
      ['invalid', ['EDOC_MAP_MASTER_MISSING']],
    ]);
    expect(third.documents[1].errors[0].message).toContain(
      'id "79456123" is not in master table "customers" (version 2, from terceros-2026-11-28.csv)',
    );
    expect((await issuedRequest('990000884')).CustomerParty.Name).toBe('María Fernanda Ríos');
    expect(
      (await logLines()).filter((l) => l.msg === 'master table loaded').map((l) => l.version),
    ).toEqual([1, 2]);
  }, 120_000);
});
