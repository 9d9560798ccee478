import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, sale, toCsv } from './helpers.js';

const root = join(import.meta.dirname, '../..');

interface ResultFile {
  finishedAt: string | null;
  counts: Record<string, number>;
  documents: { status: string; source: { rows: number[] }; errors: unknown[] }[];
}

let dir: string;
let daemon: ChildProcess;

async function waitForResult(kind: string, name: string): Promise<ResultFile> {
  const file = join(dir, 'outbox', kind, `${name}.result.json`);
  const deadline = Date.now() + 30_000;
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

/** Drops a file the way an ERP should: written under a .part name, then renamed in. */
async function drop(kind: string, name: string, bytes: Buffer): Promise<void> {
  const part = join(dir, 'inbox', kind, `${name}.part`);
  await writeFile(part, bytes);
  await rename(part, join(dir, 'inbox', kind, name));
}

describe('the shipped examples in a running daemon on the embedded emulator', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edoc-examples-'));
    const config = (await readFile(join(root, 'config/edoc-bridge.yaml'), 'utf8'))
      .replace('paths: { inbox: inbox, outbox: outbox, state: state, logs: logs }', `paths: { inbox: ${dir}/inbox, outbox: ${dir}/outbox, state: ${dir}/state, logs: ${dir}/logs }`)
      .replaceAll('config/mappings/', `${root}/config/mappings/`)
      .replace('seed: config/emulator-seed.json', `seed: ${root}/config/emulator-seed.json`)
      .replace('stableMs: 1000', 'stableMs: 200')
      .replace('enabled: true, every: 15m', 'enabled: false, every: 15m');
    await writeFile(join(dir, 'edoc-bridge.yaml'), config);
    daemon = spawn(process.execPath, [join(root, 'bin/edoc-bridge.js'), 'run', '--config', join(dir, 'edoc-bridge.yaml')], { cwd: dir, stdio: 'ignore', env: { ...process.env, EDOC_API_KEY: 'demo-key-1001' } });
    const deadline = Date.now() + 15_000;
    while (!(await readdir(join(dir, 'inbox')).catch(() => [] as string[])).includes('invoice')) {
      if (Date.now() > deadline) throw new Error('daemon did not create its inbox');
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
  }, 30_000);

  afterAll(async () => {
    if (daemon.exitCode === null) {
      const exited = new Promise((r) => daemon.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
  });

  it('accepts every document of every example, invoices first', async () => {
    await copyFile(join(EXAMPLES, 'invoices.csv'), join(dir, 'inbox/invoice/invoices.csv'));
    expect((await waitForResult('invoice', 'invoices')).counts).toMatchObject({ total: 3, accepted: 3 });
    for (const [name, kind, total] of [['credit-notes', 'credit-note', 1], ['debit-notes', 'debit-note', 1], ['support-documents', 'support-document', 2], ['payroll', 'payroll', 2]] as const) {
      await copyFile(join(EXAMPLES, `${name}.csv`), join(dir, 'inbox', kind, `${name}.csv`));
      const result = await waitForResult(kind, name);
      expect([name, result.counts]).toEqual([name, expect.objectContaining({ total, accepted: total })]);
    }
  }, 90_000);

  it('reports a CSV with one bad document as invalid with its rows, and writes the retry file in Windows-1252', async () => {
    const rows = [sale('990000301', '1', { cliente_nombre: 'Peña y Compañía' }), sale('990000302', '1', { fecha: '31/02/2026' }), sale('990000301', '2', { cliente_nombre: 'Peña y Compañía' })];
    const text = toCsv(rows);
    await drop('invoice', 'ventas-nov.csv', iconv.encode(text, 'windows-1252'));
    const result = await waitForResult('invoice', 'ventas-nov');
    expect(result.counts).toMatchObject({ total: 2, accepted: 1, invalid: 1 });
    expect(result.documents.map((d) => [d.status, d.source.rows])).toEqual([['accepted', [2, 4]], ['invalid', [3]]]);
    const lines = text.split('\r\n');
    const retry = await readFile(join(dir, 'outbox/invoice/ventas-nov.retry.csv'));
    expect(retry.equals(iconv.encode(`${lines[0]}\r\n${lines[2]}\r\n`, 'windows-1252'))).toBe(true);
    const errorsCsv = await readFile(join(dir, 'outbox/invoice/ventas-nov.errors.csv'), 'utf8');
    expect(errorsCsv).toContain('EDOC_MAP_BAD_DATE');
    expect(errorsCsv).toContain('31/02/2026');
  }, 60_000);
});
