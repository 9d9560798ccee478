/**
 * End to end through a real daemon on the emulator (shipped configuration, its invoice and support-document
 * mappings replaced by ERP-style ones): a discounted invoice is issued with the export's amounts; a support
 * document whose mapping does not read the withholding is refused by the reconciliation guard and never sent.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { EmulatorClient } from '../helpers/emulator-client.js';
import { shippedConfigFor } from '../helpers/shipped-config.js';
import {
  SIIGO_COLUMNS,
  siigoSalesMapping,
  SUPPORT_COLUMNS,
  supportMapping,
} from './values-amounts-helpers.js';

const root = join(import.meta.dirname, '../..');
let dir: string;
let daemon: ChildProcess;
let emulator: RunningEmulator;
const resources = fileResources();

interface ResultFile {
  finishedAt: string | null;
  documents: { status: string; errors: { code: string; field?: string; rows?: number[] }[] }[];
}

async function waitForResult(kind: string, name: string): Promise<ResultFile> {
  const file = join(dir, 'outbox', kind, `${name}.result.json`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const result = JSON.parse(await readFile(file, 'utf8')) as ResultFile;
      if (result.finishedAt !== null && result.finishedAt !== undefined) return result;
    } catch {
      // not written yet
    }
    if (Date.now() > deadline) throw new Error(`no finished ${file}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function drop(kind: string, name: string, text: string): Promise<void> {
  const part = join(dir, 'inbox', kind, `${name}.part`);
  await writeFile(part, text);
  await rename(part, join(dir, 'inbox', kind, name));
}

describe('reconciliation in a running daemon', () => {
  beforeAll(async () => {
    await buildCli();
    dir = await resources.tempDir('edoc-reconcile-');
    emulator = (await resources.emulator(join(root, 'config/emulator-seed.json'))).running;
    await writeFile(
      join(dir, 'siigo.csv.yaml'),
      siigoSalesMapping({ discount: true, reconcile: true }),
    );
    await writeFile(join(dir, 'support.csv.yaml'), supportMapping(false));
    const config = await shippedConfigFor(dir, emulator.url, {
      invoice: `${dir}/siigo.csv.yaml`,
      'support-document': `${dir}/support.csv.yaml`,
    });
    await writeFile(join(dir, 'edoc-bridge.yaml'), config);
    daemon = spawn(
      process.execPath,
      [join(root, 'bin/edoc-bridge.js'), 'run', '--config', join(dir, 'edoc-bridge.yaml')],
      { cwd: dir, stdio: 'ignore', env: { ...process.env, EDOC_API_KEY: 'demo-key-1001' } },
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const log = await readFile(join(dir, 'logs/edoc-bridge.log'), 'utf8').catch(() => '');
      if (log.includes('"watching the inbox"')) break;
      if (Date.now() > deadline)
        throw new Error(`the daemon did not start watching; log:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 240_000);

  afterAll(async () => {
    if (daemon !== undefined && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
  });

  it('issues the discounted invoice with the amounts of the export', async () => {
    // 2 × 50.000,00 − 10.000,00 = 90.000,00 (VAT 17.100,00); 1 × 30.000,00 (VAT 5.700,00): total 142.800,00
    const csv =
      [
        SIIGO_COLUMNS,
        'SETP;990000777;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-001;Silla ergonómica;2;50.000,00;10.000,00;19;142.800,00',
        'SETP;990000777;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-002;Lámpara de escritorio;1;30.000,00;;19;142.800,00',
      ].join('\r\n') + '\r\n';
    await drop('invoice', 'ventas-siigo.csv', csv);
    const result = await waitForResult('invoice', 'ventas-siigo');
    expect(result.documents.map((d) => d.status)).toEqual(['accepted']);
    const issued = await new EmulatorClient(emulator.url).documents({
      company: 1001,
      kind: 'invoice',
      withRequest: true,
    });
    expect(issued).toHaveLength(1);
    const request = (
      issued[0] as unknown as {
        request: { Total: Record<string, string>; Lines: Record<string, string>[] };
      }
    ).request;
    expect(request.Total).toEqual({
      GrossAmount: '120000.00',
      TaxableAmount: '120000.00',
      TotalBillableAmount: '142800.00',
      PayableAmount: '142800.00',
    });
    expect(request.Lines.map((l) => [l.GrossAmount, l.NetAmount, l.UnitPrice])).toEqual([
      ['100000.00', '90000.00', '45000.00'],
      ['30000.00', '30000.00', '30000.00'],
    ]);
  }, 120_000);

  it('refuses the support document whose withholding the mapping does not read; nothing is sent', async () => {
    // withholdings 30.000,00 + 6.000,00 = 36.000,00 stated; the mapping computes 0,00
    const csv =
      [
        SUPPORT_COLUMNS,
        'DS;2041;20/11/2026;79456123;Pedro Antonio Gómez;Arriendo bodega noviembre;1;1.200.000,00;30.000,00;36.000,00;1.350.000,00',
        'DS;2041;20/11/2026;79456123;Pedro Antonio Gómez;Servicio de vigilancia (turnos);3;50.000,00;6.000,00;36.000,00;1.350.000,00',
      ].join('\r\n') + '\r\n';
    await drop('support-document', 'compras.csv', csv);
    const result = await waitForResult('support-document', 'compras');
    expect(
      result.documents.map((d) => [d.status, d.errors.map((e) => [e.code, e.field, e.rows])]),
    ).toEqual([['invalid', [['EDOC_MAP_TOTAL_MISMATCH', 'Total Retención', [2, 3]]]]]);
    expect(
      await new EmulatorClient(emulator.url).documents({ company: 1001, kind: 'support-document' }),
    ).toEqual([]);
  }, 120_000);
});
