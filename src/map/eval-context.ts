/**
 * What evaluating a value works on (the row, the company, the context that
 * collects problems) and how a value's problem is reported against it.
 */
import type { ErrorCode } from '../errors.js';
import { excerpt } from '../policy/excerpt.js';
import type { Problem } from '../validate/problem.js';
import type { DocumentKind } from '../kinds/index.js';
import type { Mapping, ValueSpec } from './mapping-types.js';
import type { ColumnNumbers } from './column-numbers.js';
import type { MasterTables } from './master-tables.js';

/**
 * What a spec reads, before lookup and conversion: its text ('' when empty);
 * `plain` when an expression computed it (numbers written `12.5`, not in the
 * export's format); `column` when it is that column's cell as the export wrote it.
 */
export interface Source {
  text: string;
  plain: boolean;
  column?: string;
  /** A master-data table's cell (`lookup()`): not the export's, so not read for its format (format-evidence.ts). */
  master?: boolean;
}

export interface CompanyInfo {
  alias: string;
  nit: string;
  [key: string]: unknown;
}

/** One CSV record as the engine sees it. `get` answers '' for an absent column. */
export interface RowView {
  row: number;
  get(column: string): string;
  /** The cell is a spreadsheet's number cell, not text: it says nothing of the export's convention. */
  typed?(column: string): boolean;
}

export interface EvalContext {
  mapping: Mapping;
  kind: DocumentKind;
  company: CompanyInfo;
  /** Rows blamed by problems (a document field: all the document's rows; a line field: its row). */
  rows: number[];
  position?: number;
  problems: Problem[];
  /** The master-data tables the mapping's `lookup()` reads (map/master-tables.ts). */
  master?: MasterTables;
  /**
   * On a line's context: the exact value of each `as: decimal` conversion that rounded away digits,
   * by path, so the guards can tell a unit price whose rounding changes quantity × price.
   */
  rounded?: Map<string, string>;
  /** The file's number cells, per column, judged once it is read (column-numbers.ts). */
  numbers?: ColumnNumbers;
}

/** Tells `ctx.numbers` of the export's cell `text` of `column` read as a number on `row`. */
export function sawNumber(ctx: EvalContext, column: string, text: string, row: RowView): void {
  if (ctx.numbers !== undefined && row.typed?.(column) !== true)
    ctx.numbers.seen(column, text, row.row);
}

export function report(
  ctx: EvalContext,
  code: ErrorCode,
  path: string,
  message: string,
  column: string | undefined,
  value: string,
): void {
  const p: Problem = { code, path, message, rows: ctx.rows, value: excerpt(value) };
  if (column !== undefined) p.column = column;
  ctx.problems.push(p);
}

export function describe(spec: ValueSpec): string {
  if (spec.column !== undefined) return `column "${spec.column}"`;
  if (spec.exprText !== undefined)
    return `expression ${excerpt(JSON.stringify(spec.exprText), 120)}`;
  if (spec.const !== undefined) return 'constant';
  return 'value';
}
