/**
 * Header row of a delimited export: names matched case-insensitively with
 * surrounding (and repeated inner) spaces ignored; extra columns ignored; a
 * missing required column is a file-level error naming it.
 */
import path from 'node:path';
import { EdocError } from '../errors.js';
import {
  columnsOf,
  expressionColumnsOf,
  requiredColumnsOf,
  specColumns,
} from '../map/compile-node.js';
import { reconcileColumns } from '../map/guards/compile-guards.js';
import { conditionColumns } from '../map/row-condition.js';
import { normaliseColumnName } from '../map/column-name.js';
import type { Mapping } from '../map/mapping-types.js';
import { excerpt } from '../policy/excerpt.js';
import { ERRORS_CSV_COLUMNS } from '../policy/outbox-names.js';
import type { DocumentKind } from '../kinds/index.js';

// the header's side of the match; a mapping's column names are matched the same way
export { normaliseColumnName };

/** Normalised column name -> cell index (the first column wins when a name repeats). */
export function indexHeader(cells: string[]): Map<string, number> {
  const index = new Map<string, number>();
  cells.forEach((cell, i) => {
    const name = normaliseColumnName(cell);
    if (name !== '' && !index.has(name)) index.set(name, i);
  });
  return index;
}

/** Enough for the header of any real export (40 columns of ~10 characters); a 200 MB line is cut. */
const FOUND_CHARS = 400;

export function checkRequiredColumns(
  file: string,
  mapping: Mapping,
  kind: DocumentKind,
  header: Map<string, number>,
  headerCells: string[],
): void {
  checkOwnErrorsReport(file, headerCells);
  checkRenamedColumns(file, mapping, header, headerCells);
  const required = requiredColumnsOf(mapping.document, kind);
  if (mapping.lines !== undefined) requiredColumnsOf(mapping.lines, kind, required);
  // amounts: a derivation's input (discount, tax, withholding) or an expression's column missing from the
  // file would read as blank, and the document would be issued without that amount
  expressionColumnsOf(mapping.document, kind, required);
  if (mapping.lines !== undefined) expressionColumnsOf(mapping.lines, kind, required);
  for (const d of mapping.derive)
    for (const spec of Object.values(d.lineInputs))
      if (spec.default === undefined) specColumns(spec, required);
  // a stated figure the mapping reconciles against: without its column the guard would be off without a word
  // (a tax the mapping does not recognise, left out of an issued total that nothing compares)
  for (const c of reconcileColumns(mapping.reconcile)) required.add(c);
  const has = (c: string): boolean => header.has(normaliseColumnName(c));
  const keyAlternative = mapping.key.find((alt) => alt.every(has)) ?? mapping.key[0];
  for (const c of keyAlternative) required.add(c);
  if (mapping.route !== undefined) required.add(mapping.route.column);
  const missing = [...required].filter((c) => !has(c));
  if (missing.length === 0) return;
  // bounded: the "header" may be a 200 MB line, or the one line of an API key file dropped by mistake
  const found = excerpt(
    headerCells
      .map((c) => c.trim())
      .filter((c) => c !== '')
      .join(', '),
    FOUND_CHARS,
  );
  const names = missing.map((c) => `"${c}"`).join(', ');
  throw new EdocError(
    'EDOC_MAP_MISSING_COLUMN',
    // the file's name, not its path: by the time the message is read the file has moved to the archive
    `${missing.length === 1 ? 'Column' : 'Columns'} ${names} missing from the header of ${path.basename(file)} (mapping ${mapping.name} for ${kind}; found: ${found})` +
      otherDelimiter(mapping, headerCells, missing),
    { file, column: missing[0], columns: missing, row: 1 },
  );
}

/**
 * The columns a mapping reads a value, an amount, a key or a stated figure from, and those whose cells
 * decide which rows count and what a document is (rows, kindCheck, fillDown).
 */
function readColumns(mapping: Mapping): Set<string> {
  const out = columnsOf(mapping.document);
  if (mapping.lines !== undefined) columnsOf(mapping.lines, out);
  for (const d of mapping.derive)
    for (const spec of Object.values(d.lineInputs)) specColumns(spec, out);
  for (const alt of mapping.key) for (const c of alt) out.add(c);
  for (const c of reconcileColumns(mapping.reconcile)) out.add(c);
  if (mapping.concepts !== undefined) {
    out.add(mapping.concepts.column);
    for (const fields of mapping.concepts.codes.values())
      for (const [, spec] of fields) specColumns(spec, out);
  }
  if (mapping.lineKey !== undefined) out.add(mapping.lineKey);
  if (mapping.route !== undefined) out.add(mapping.route.column);
  // a second `Estado` read by rows.skip, or a second `Tipo` read by kindCheck, decides as much as a price
  for (const cond of [mapping.rows?.skip, mapping.rows?.lines, mapping.rows?.document])
    if (cond !== undefined) conditionColumns(cond, out);
  for (const k of mapping.kindCheck ?? []) out.add(k.column);
  for (const c of mapping.framing?.fillDown ?? []) out.add(c);
  return out;
}

/**
 * A column the mapping reads that the header names twice refuses the file: an export with two `Precio`
 * columns (a list price and a net price) would otherwise be read from whichever comes first.
 */
export function checkRepeatedColumns(
  file: string,
  mapping: Mapping,
  headerCells: string[],
  row: number,
): void {
  const read = new Set([...readColumns(mapping)].map(normaliseColumnName));
  const seen = new Map<string, number>();
  headerCells.forEach((cell, i) => {
    const name = normaliseColumnName(cell);
    if (!read.has(name)) return;
    const first = seen.get(name);
    if (first === undefined) {
      seen.set(name, i);
      return;
    }
    const column = excerpt(cell.trim(), 80);
    throw new EdocError(
      'EDOC_MAP_REPEATED_COLUMN',
      `Column "${column}" appears twice in the header of ${path.basename(file)} (row ${row}, columns ${first + 1} and ${i + 1}) and mapping ${mapping.name} reads it: which one is meant cannot be told, so nothing of the file is sent; rename one of them in the export`,
      { file, column, row },
    );
  });
}

/** A name with case, accents, spaces and punctuation left out: `Forma_Pago`, `forma pago`, `formapago` → `formapago`. */
function looseName(name: string): string {
  return normaliseColumnName(name)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * A column the mapping reads that is missing, while the header holds a column it does not read under the
 * same name but for case, accents, spaces or punctuation (`formapago` for `forma_pago`): the ERP renamed
 * it. Read without it, an optional column would silently take its default (a credit sale issued as cash),
 * so the file is refused naming both.
 */
function checkRenamedColumns(
  file: string,
  mapping: Mapping,
  header: Map<string, number>,
  headerCells: string[],
): void {
  const read = readColumns(mapping);
  const readNames = new Set([...read].map(normaliseColumnName));
  const unread = new Map<string, string>();
  for (const cell of headerCells) {
    const name = normaliseColumnName(cell);
    if (name !== '' && !readNames.has(name) && !unread.has(looseName(cell)))
      unread.set(looseName(cell), cell.trim());
  }
  const renamed = [...read]
    .filter((c) => !header.has(normaliseColumnName(c)))
    .map((c) => [c, unread.get(looseName(c))] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined && pair[1] !== '');
  if (renamed.length === 0) return;
  const pairs = renamed.map(([c, h]) => `"${c}" (the header has "${excerpt(h, 80)}")`).join(', ');
  throw new EdocError(
    'EDOC_MAP_MISSING_COLUMN',
    `${renamed.length === 1 ? 'Column' : 'Columns'} ${pairs} of mapping ${mapping.name} missing from the header of ` +
      `${path.basename(file)}: the export seems to name ${renamed.length === 1 ? 'it' : 'them'} otherwise, and read ` +
      "without it its cells would be left out or take the mapping's default. Nothing of the file is sent: write the " +
      'column as the mapping names it in the export (or change the mapping), and drop the file again',
    { file, column: renamed[0]![0], columns: renamed.map(([c]) => c), row: 1 },
  );
}

const DELIMITERS = [';', ',', '\t'] as const;

/**
 * A header read as one cell that another delimiter splits into the missing columns: the export was saved
 * with `;` (a spreadsheet in a Spanish locale) for a mapping that reads `,`, or the other way round.
 */
function otherDelimiter(mapping: Mapping, headerCells: string[], missing: string[]): string {
  const cells = headerCells.filter((c) => c.trim() !== '');
  if (cells.length !== 1) return '';
  for (const d of DELIMITERS) {
    if (d === mapping.format.delimiter) continue;
    const split = new Set(cells[0]!.split(d).map(normaliseColumnName));
    if (split.size < 2 || !missing.every((c) => split.has(normaliseColumnName(c)))) continue;
    const shown = d === '\t' ? 'tab' : `"${d}"`;
    return (
      `. The header is one cell that ${shown} splits into these columns: the file is delimited by ${shown}, and ` +
      `mapping ${mapping.name} reads "${mapping.format.delimiter === '\t' ? 'tab' : mapping.format.delimiter}". ` +
      `Export it with the mapping's delimiter, or set format.delimiter to ${shown} (or auto) in your copy of the mapping`
    );
  }
  return '';
}

/**
 * The outbox's own `NAME.errors.csv` dropped back into the inbox (an operator who took it for the file to
 * correct): said as such, rather than as an export missing the mapping's columns.
 */
function checkOwnErrorsReport(file: string, headerCells: string[]): void {
  const cells = headerCells.map(normaliseColumnName).filter((c) => c !== '');
  if (cells.join(';') !== ERRORS_CSV_COLUMNS.join(';')) return;
  throw new EdocError(
    'EDOC_MAP_MISSING_COLUMN',
    `${path.basename(file)} is an errors report of edoc-bridge (its header is ${ERRORS_CSV_COLUMNS.join(';')}), ` +
      'not an export of the ERP: nothing of it is sent. Correct the documents it names in the ERP (or in the ' +
      "retry file beside the report, which is in the export's own format) and drop that file into the inbox",
    { file, row: 1 },
  );
}
