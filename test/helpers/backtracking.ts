/**
 * A mapping's capture pattern that backtracks without end on one row's cells: `^(?:(?:a|a)*b)?(.*)$`
 * takes 2^40 steps on forty `a`s without a `b`, and the load-time check for nested repetition
 * (map/capture.ts) does not see it; any other cell is taken whole. With the shipped sales mapping taking
 * the buyer's name through it, and sales CSVs whose chosen rows carry the poison name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sale, toCsv } from '../map/helpers.js';
import { ROOT } from './daemon-harness.js';

export const BACKTRACKING = '^(?:(?:a|a)*b)?(.*)$';
export const POISON_NAME = 'a'.repeat(40);

/** Writes the shipped sales mapping with the buyer's name taken through BACKTRACKING into `dir`; its path. */
export function writeBacktrackingMapping(dir: string): string {
  const shipped = fs.readFileSync(path.join(ROOT, 'config/mappings/sales.csv.yaml'), 'utf8');
  const line = '    Name: { column: cliente_nombre, required: true }';
  if (!shipped.includes(line)) throw new Error(`the shipped sales mapping lost the line ${line}`);
  const file = path.join(dir, 'sales-capture.csv.yaml');
  fs.writeFileSync(
    file,
    shipped.replace(
      line,
      () => `    Name: { column: cliente_nombre, capture: '${BACKTRACKING}', required: true }`,
    ),
  );
  return file;
}

/** A sales CSV of one-line invoices numbered from `first`; `names` sets a data row's buyer name (1-based). */
export function salesCsv(first: number, count: number, names: Record<number, string> = {}): string {
  return toCsv(
    Array.from({ length: count }, (_, i) =>
      sale(
        String(first + i),
        '1',
        names[i + 1] === undefined ? {} : { cliente_nombre: names[i + 1] },
      ),
    ),
  );
}
