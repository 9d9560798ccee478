/**
 * A file in the other number convention than its mapping through the real CLI: `validate` ends the file
 * with its file-level error line, and the daemon (a child process, the emulator over HTTP) refuses the
 * whole file even when the evidence comes after its first batch of documents was stored: nothing is
 * sent, the stored documents are removed, no retry file. Figures worked by hand in comments.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { INSERT_BATCH } from '../../src/intake/intake-documents.js';
import { buildCli, type Project, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { sale, tempFile, toCsv } from './helpers.js';

const root = path.join(import.meta.dirname, '../..');
const run = promisify(execFile);
let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
  ({ emulator, project } = await resources.daemonProject({
    kinds: { invoice: { mapping: path.join(root, 'config/mappings/sales.csv.yaml') } },
  }));
  await resources.startDaemon(project);
}, 120_000);

/** `count` invoices of 1 × 1.250 (under decimal "," 1,250.00, meant 1.25), then one of 1 × 12.50. */
function pointExport(count: number): string {
  const rows = Array.from({ length: count }, (_, i) =>
    sale(String(990001001 + i), '1', { precio_unitario: '1.250' }),
  );
  rows.push(sale(String(990001001 + count), '1', { precio_unitario: '12.50' }));
  return toCsv(rows);
}

describe('a file in the other number convention than its mapping', () => {
  test('validate prints the file-level refusal as its last line and exits 1', async () => {
    const file = await tempFile('ventas.csv', pointExport(2));
    const out = await run(
      process.execPath,
      ['bin/edoc-bridge.js', 'validate', file, '--kind', 'invoice'],
      { cwd: root, env: { ...process.env, EDOC_API_KEY: 'test-key' } },
    ).catch((e: { code: number; stdout: string }) => e);
    expect('code' in out ? out.code : 0).toBe(1);
    const lines = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { error?: Record<string, unknown> });
    // rows 2 and 3 read as 1,250.00 each; row 4 (12.50) shows the decimal point: the file's error line
    expect(lines.at(-1)).toMatchObject({
      file,
      error: {
        code: 'EDOC_MAP_FORMAT_MISMATCH',
        file: 'ventas.csv',
        row: 4,
        column: 'precio_unitario',
        value: '12.50',
      },
    });
    expect(lines.at(-1)!.error!.message).toContain('Nothing of the file is sent');
  }, 60_000);

  test('the daemon sends nothing of it, even when the evidence comes after the first stored batch', async () => {
    // more documents than one batch before the evidence row: the first batch is in the ledger when it comes
    const count = INSERT_BATCH + 100;
    await project.drop('invoice', 'ventas-punto.csv', pointExport(count));
    const result = await project.finalResult('invoice', 'ventas-punto.csv', {
      timeoutMs: 60_000,
    });
    expect(result.error).toMatchObject({ code: 'EDOC_MAP_FORMAT_MISMATCH' });
    expect(result.error!.message).toMatch(
      /^ventas-punto\.csv row 602, column "precio_unitario": "12\.50" is not a number in the mapping's format/,
    );
    expect(result.counts.total).toBe(0);
    expect(result.documents).toEqual([]);
    expect(await emulator.client.documents({ kind: 'invoice' })).toEqual([]);
    // the documents stored before the evidence row were removed, not released
    const [event] = project.ledgerQuery<{ data: string }>(
      "SELECT data FROM events WHERE type = 'file-failed-read'",
    );
    expect((JSON.parse(event.data) as { removed: number }).removed).toBeGreaterThanOrEqual(
      INSERT_BATCH,
    );
    expect(project.ledgerStates()).toEqual({});
    const names = await readdir(project.outbox('invoice'));
    expect(names.filter((n) => n.startsWith('ventas-punto.')).sort()).toEqual([
      'ventas-punto.errors.csv',
      'ventas-punto.result.json',
    ]);
    const errorsCsv = await readFile(
      path.join(project.outbox('invoice'), 'ventas-punto.errors.csv'),
      'utf8',
    );
    // the cell at fault in the value column, as a document's problem gives it
    expect(errorsCsv).toContain(';error;rows 602;EDOC_MAP_FORMAT_MISMATCH;precio_unitario;12.50;');
    expect(project.logLines().filter((l) => l.code === 'EDOC_MAP_FORMAT_MISMATCH')).toHaveLength(1);
  }, 90_000);
});
