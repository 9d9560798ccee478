/**
 * Rows of one key are one document wherever they stand in a file, so an export pasted or exported twice
 * into one file (POS exports are by date range, and ranges overlap) would be issued with every line
 * twice — Loyverse's "Receipts by item" has no receipt-total column that could catch it. A row that
 * repeats, exactly, a row of the same document in an earlier block of it refuses that document
 * (EDOC_MAP_REPEATED_ROWS). The real CLI (`validate`) with the shipped Loyverse preset on rows taken
 * from its sample (examples/erp/loyverse/).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { tempFile } from './helpers.js';

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Line {
  key?: string;
  source: { rows: number[] };
  request: { totales?: { valorNeto: number }; detalles?: unknown[] } | null;
  problems: { code: string; message: string }[];
}

async function validate(csv: string): Promise<Line[]> {
  const file = await tempFile('recibos.csv', csv);
  const args = [
    'validate',
    file,
    '--kind',
    'pos',
    '--mapping',
    'config/mappings/erp/loyverse-pos.yaml',
  ];
  const out = await run(process.execPath, ['bin/edoc-bridge.js', ...args], {
    cwd: root,
    env: { ...process.env, EDOC_API_KEY: 'test-key' },
  })
    .then((r) => r.stdout)
    .catch((e: { stdout: string }) => e.stdout);
  return out
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
}

let header: string;
let r1042: string[];
let r1045: string[];

describe('a document whose rows come twice in one file', () => {
  beforeAll(async () => {
    await buildCli();
    const sample = await readFile(
      join(root, 'examples/erp/loyverse/loyverse-recibos-por-articulo.csv'),
      'utf8',
    );
    const lines = sample.split(/\r?\n/).filter((l) => l !== '');
    header = lines[0];
    r1042 = lines.filter((l) => l.includes(',1-1042,'));
    r1045 = lines.filter((l) => l.includes(',1-1045,'));
    expect([r1042.length, r1045.length]).toEqual([2, 2]);
  }, 240_000);

  it('is refused naming both rows; the document between is mapped as usual', async () => {
    // rows 2-3: 1-1045, rows 4-5: 1-1042, rows 6-7: 1-1045 again (an overlapping export pasted below)
    const out = await validate([header, ...r1045, ...r1042, ...r1045, ''].join('\n'));
    const receipt = out.find((l) => l.source.rows.includes(2));
    expect(receipt?.request).toBeNull();
    expect(receipt?.problems.map((p) => p.code)).toContain('EDOC_MAP_REPEATED_ROWS');
    expect(receipt?.problems.find((p) => p.code === 'EDOC_MAP_REPEATED_ROWS')?.message).toMatch(
      /^Row 6 repeats row 2 of document .*1-1045/,
    );
    // 1-1042 by hand (the preset's own figures): 20,000.00 + 11,340.00 net of its 1,260.00 discount
    const other = out.find((l) => l.source.rows.includes(4));
    expect(other?.problems).toEqual([]);
    expect(other?.request?.totales?.valorNeto).toBe(31340);
  });

  it('two equal rows side by side are two of one item, and interleaved rows that differ are lines', async () => {
    // 1-1045's first row twice in a row, then 1-1042's first row, then 1-1045's second row
    const out = await validate([header, r1045[0], r1045[0], r1042[0], r1045[1], ''].join('\n'));
    const codes = out.flatMap((l) => l.problems.map((p) => p.code));
    expect(codes).not.toContain('EDOC_MAP_REPEATED_ROWS');
    const receipt = out.find((l) => l.source.rows.includes(2));
    expect(receipt?.source.rows).toEqual([2, 3, 5]);
    // 18,500.00 + 18,500.00 + 11,900.00 = 48,900.00
    expect(receipt?.request?.totales?.valorNeto).toBe(48900);
  });
});
