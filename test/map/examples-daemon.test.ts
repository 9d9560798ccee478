/**
 * A new user's first hour: the real daemon on the SHIPPED configuration
 * (config/edoc-bridge.yaml, only its folders and the service URL changed)
 * against the emulator seeded exactly as the embedded default is
 * (config/emulator-seed.json), on a free port; every example file of
 * examples/ dropped into its inbox folder, in the order examples/README.md
 * gives; every document of every example must end `accepted` in result.json.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFile, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { EmulatorClient } from '../helpers/emulator-client.js';
import { EXAMPLES, sale, toCsv } from './helpers.js';

const root = join(import.meta.dirname, '../..');

interface ResultFile {
  file: string;
  finishedAt: string | null;
  error?: { code: string; message: string };
  counts: Record<string, number>;
  documents: {
    status: string;
    key: string | null;
    source: { rows?: number[]; lines?: number[] };
    errors: unknown[];
  }[];
}

let dir: string;
let daemon: ChildProcess;
let emulator: RunningEmulator;
const resources = fileResources();

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

/** Drops a file the way an ERP should: written under a .part name, then renamed in. */
async function drop(kind: string, name: string, bytes: Buffer): Promise<void> {
  const part = join(dir, 'inbox', kind, `${name}.part`);
  await writeFile(part, bytes);
  await rename(part, join(dir, 'inbox', kind, name));
}

/** The example files of a kind, by their stem in examples/. */
const KIND_OF: Record<string, string> = {
  invoices: 'invoice',
  'credit-notes': 'credit-note',
  'debit-notes': 'debit-note',
  payroll: 'payroll',
  'support-documents': 'support-document',
  'support-adjustments': 'support-adjustment',
  pos: 'pos',
};

describe('the shipped examples in a running daemon on the shipped configuration and emulator seed', () => {
  beforeAll(async () => {
    await buildCli();
    dir = await resources.tempDir('edoc-examples-');
    emulator = (await resources.emulator(join(root, 'config/emulator-seed.json'))).running;
    const shipped = await readFile(join(root, 'config/edoc-bridge.yaml'), 'utf8');
    const config = shipped
      .replace('baseUrl: embedded', `baseUrl: ${emulator.url}`)
      .replace(
        'paths: { inbox: ../inbox, outbox: ../outbox, state: ../state, logs: ../logs }',
        `paths: { inbox: ${dir}/inbox, outbox: ${dir}/outbox, state: ${dir}/state, logs: ${dir}/logs }`,
      )
      .replaceAll('{ mapping: mappings/', `{ mapping: ${root}/config/mappings/`)
      .replace(
        'seed: emulator-seed.json, state: ../state/emulator-state.json',
        `seed: ${root}/config/emulator-seed.json`,
      )
      .replace('stableMs: 1000', 'stableMs: 200')
      .replace('enabled: true, every: 15m', 'enabled: false, every: 15m');
    expect(config).not.toBe(shipped);
    expect(config).toContain(`baseUrl: ${emulator.url}`);
    await writeFile(join(dir, 'edoc-bridge.yaml'), config);
    daemon = spawn(
      process.execPath,
      [join(root, 'bin/edoc-bridge.js'), 'run', '--config', join(dir, 'edoc-bridge.yaml')],
      { cwd: dir, stdio: 'ignore', env: { ...process.env, EDOC_API_KEY: 'demo-key-1001' } },
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      const log = await readFile(join(dir, 'logs/edoc-bridge.log'), 'utf8').catch(() => '');
      if (log.includes('"watching the inbox"')) break;
      if (Date.now() > deadline)
        throw new Error(`the daemon did not start watching; log:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);

  afterAll(async () => {
    if (daemon !== undefined && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
  });

  it('every kind has a CSV, a JSON and a JSONL example', async () => {
    const files = (await readdir(EXAMPLES)).filter((f) => /\.(csv|json|jsonl)$/.test(f));
    const expected = Object.keys(KIND_OF).flatMap((stem) => [
      `${stem}.csv`,
      `${stem}-json.json`,
      `${stem}-jsonl.jsonl`,
    ]);
    expect(files.sort()).toEqual(expected.sort());
  });

  it("accepts every document of every example file (CSV, JSON, JSONL), dropped in the README's order", async () => {
    const files = (await readdir(EXAMPLES)).filter((f) => /\.(csv|json|jsonl)$/.test(f));
    // examples/README.md: originals first (wait for their results), then the notes that reference them.
    const notes = new Set(['credit-notes', 'debit-notes', 'support-adjustments']);
    const stemOf = (f: string): string => f.replace(/(-jsonl?)?\.[a-z]+$/, '');
    const waves = [
      files.filter((f) => !notes.has(stemOf(f))),
      files.filter((f) => notes.has(stemOf(f))),
    ];
    const outcomes: [string, Record<string, number>, string[]][] = [];
    let documents = 0;
    for (const wave of waves) {
      await Promise.all(
        wave.map((f) => copyFile(join(EXAMPLES, f), join(dir, 'inbox', KIND_OF[stemOf(f)], f))),
      );
      for (const f of wave) {
        const kind = KIND_OF[stemOf(f)];
        const stem = f.slice(0, f.lastIndexOf('.'));
        const result = await waitForResult(kind, stem);
        outcomes.push([f, result.counts, result.documents.map((d) => d.status)]);
        documents += result.counts.total;
        expect([result.file, result.error, result.counts.total > 0]).toEqual([f, undefined, true]);
        expect([f, result.documents.map((d) => d.status)]).toEqual([
          f,
          Array(result.counts.total).fill('accepted'),
        ]);
      }
    }
    expect(outcomes).toHaveLength(21);
    // The emulator issued exactly as many documents as the outbox reports, none rejected.
    const client = new EmulatorClient(emulator.url);
    const issued = await client.documents({ company: 1001 });
    expect(issued.filter((d) => !d.accepted)).toEqual([]);
    const byKind = (list: { kind: string }[]): Record<string, number> =>
      list.reduce<Record<string, number>>((m, d) => ({ ...m, [d.kind]: (m[d.kind] ?? 0) + 1 }), {});
    expect(byKind(issued)).toEqual({
      invoice: 7,
      'credit-note': 3,
      'debit-note': 3,
      payroll: 6,
      'support-document': 6,
      'support-adjustment': 6,
      pos: 6,
    });
    expect(issued).toHaveLength(documents);
  }, 240_000);

  it('reports a CSV with one bad document as invalid with its rows, and writes the retry file in Windows-1252', async () => {
    const rows = [
      sale('990000901', '1', { cliente_nombre: 'Peña y Compañía' }),
      sale('990000902', '1', { fecha: '31/02/2026' }),
      sale('990000901', '2', { cliente_nombre: 'Peña y Compañía' }),
    ];
    const text = toCsv(rows);
    await drop('invoice', 'ventas-nov.csv', iconv.encode(text, 'windows-1252'));
    const result = await waitForResult('invoice', 'ventas-nov');
    expect(result.counts).toMatchObject({ total: 2, accepted: 1, invalid: 1 });
    expect(result.documents.map((d) => [d.status, d.source.rows])).toEqual([
      ['accepted', [2, 4]],
      ['invalid', [3]],
    ]);
    const lines = text.split('\r\n');
    const retry = await readFile(join(dir, 'outbox/invoice/ventas-nov.retry.csv'));
    expect(retry.equals(iconv.encode(`${lines[0]}\r\n${lines[2]}\r\n`, 'windows-1252'))).toBe(true);
    const errorsCsv = await readFile(join(dir, 'outbox/invoice/ventas-nov.errors.csv'), 'utf8');
    expect(errorsCsv).toContain('EDOC_MAP_BAD_DATE');
    expect(errorsCsv).toContain('31/02/2026');
  }, 60_000);
});
