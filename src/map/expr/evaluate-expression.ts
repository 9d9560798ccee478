/**
 * Evaluates a parsed expression on one row. A blank cell makes the value empty
 * (so `required` and `default` apply) unless `coalesce` or `empty()` handles
 * it; a cell that is not a number in the mapping's format, a division by zero
 * or a text where a number is meant is an ExpressionError naming the column.
 */
import type { MappingFormat } from '../mapping-types.js';
import { erpNumberToPlain } from '../convert-number.js';
import * as x from './exact-decimal.js';
import type { Exact } from './exact-decimal.js';
import type { ExprNode } from './parse-expression.js';
import { lookupMaster, MasterLookupError, type MasterTables } from '../master-tables.js';
import { numberMismatch } from '../format-evidence.js';

/**
 * The number format of the cells, the master-data tables `lookup()` reads, and who is told of each
 * export cell read as a number (map/column-numbers.ts).
 */
type Env = Pick<MappingFormat, 'decimal' | 'thousands'> & {
  master?: MasterTables;
  seen?: (column: string, text: string) => void;
};

export const EMPTY = Symbol('empty');
type Value = Exact | string | boolean | typeof EMPTY;

export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly column?: string,
    readonly value?: string,
    readonly code?: 'EDOC_MAP_MASTER_MISSING' | 'EDOC_MAP_FORMAT_MISMATCH',
  ) {
    super(message);
  }
}

export interface ExprRow {
  get(column: string): string;
}

/** A cell as text; the column's name travels with it so a misread names the column. */
interface Cell {
  text: string;
  column: string;
  /** A master-data table's cell, not the export's. */
  master?: true;
}
type Raw = Value | Cell;

function isExact(v: unknown): v is Exact {
  return typeof v === 'object' && v !== null && 'units' in v;
}

function isCell(v: unknown): v is Cell {
  return typeof v === 'object' && v !== null && 'column' in v;
}

function num(v: Raw, format: Env): Exact | typeof EMPTY {
  if (v === EMPTY || isExact(v)) return v;
  if (isCell(v)) {
    if (v.master !== true) format.seen?.(v.column, v.text);
    const plain = erpNumberToPlain(v.text, format);
    const e = plain === undefined ? undefined : x.exactOf(plain);
    // the export's cell in the other convention: the whole file is refused (map/format-evidence.ts)
    const mismatch =
      plain === undefined && v.master !== true
        ? numberMismatch(format, v.text, v.column, [])
        : undefined;
    if (mismatch !== undefined)
      throw new ExpressionError(mismatch.message, v.column, v.text, 'EDOC_MAP_FORMAT_MISMATCH');
    if (e === undefined)
      throw new ExpressionError(
        `column "${v.column}" holds ${JSON.stringify(v.text.slice(0, 40))}, not a number (decimal "${format.decimal}", thousands "${format.thousands}")${v.text.trim().endsWith('%') ? `: a percentage, whose scale an expression cannot tell (10 or 0.1); read the column itself with "as: percent" for a rate, or write the export's cells as plain numbers` : ''}`,
        v.column,
        v.text,
      );
    return e;
  }
  if (typeof v === 'string') {
    const e = x.exactOf(v);
    if (e === undefined)
      throw new ExpressionError(`${JSON.stringify(v.slice(0, 40))} is not a number`);
    return e;
  }
  throw new ExpressionError('a condition was used as a number');
}

function text(v: Raw): string {
  return isCell(v) ? v.text : typeof v === 'string' ? v : isExact(v) ? x.exactText(v) : String(v);
}

/**
 * What an expression gives, as the text a conversion reads ('' when empty). A
 * cell passed on unchanged (`coalesce(Descuento, 0)` on a filled cell,
 * `if(…, abs(x), x)`, a `lookup()` cell) keeps its text and names its `column`:
 * it is converted like a `column:` value, in the mapping's number format. A
 * computed number is plain (`12.5`).
 */
export function expressionValue(
  n: ExprNode,
  row: ExprRow,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
  master?: MasterTables,
  seen?: (column: string, text: string) => void,
): { text: string; column?: string; master?: true } {
  const v = ev(
    n,
    row,
    master === undefined && seen === undefined
      ? format
      : {
          decimal: format.decimal,
          thousands: format.thousands,
          ...(master && { master }),
          ...(seen && { seen }),
        },
  );
  if (!isCell(v)) return { text: expressionText(v) };
  return v.master
    ? { text: v.text, column: v.column, master: true }
    : { text: v.text, column: v.column };
}

function ev(n: ExprNode, row: ExprRow, f: Env): Raw {
  switch (n.t) {
    case 'num':
      return n.v;
    case 'str':
      return n.v;
    case 'col': {
      const t = row.get(n.name).trim();
      return t === '' ? EMPTY : { text: t, column: n.name };
    }
    case 'neg': {
      const a = num(ev(n.e, row, f), f);
      return a === EMPTY ? EMPTY : x.negate(a);
    }
    case 'not': {
      const a = ev(n.e, row, f);
      return a === EMPTY ? EMPTY : !a;
    }
    case 'bin':
      return binary(n.op, n.l, n.r, row, f);
    case 'call':
      return call(n.fn, n.args, row, f);
  }
}

function binary(op: string, ln: ExprNode, rn: ExprNode, row: ExprRow, f: Env): Raw {
  if (op === 'and' || op === 'or') {
    const l = ev(ln, row, f);
    if (l === EMPTY) return EMPTY;
    if (op === 'and' && l === false) return false;
    if (op === 'or' && l === true) return true;
    return ev(rn, row, f);
  }
  const lr = ev(ln, row, f);
  const rr = ev(rn, row, f);
  if ((op === '=' || op === '!=') && (ln.t === 'str' || rn.t === 'str')) {
    if (lr === EMPTY || rr === EMPTY) return op === '=' ? lr === rr : lr !== rr;
    const same = text(lr).toLowerCase() === text(rr).toLowerCase();
    return op === '=' ? same : !same;
  }
  const l = num(lr, f);
  const r = num(rr, f);
  if (l === EMPTY || r === EMPTY) return EMPTY;
  switch (op) {
    case '+':
      return x.add(l, r);
    case '-':
      return x.sub(l, r);
    case '*':
      return x.mul(l, r);
    case '/': {
      const q = x.div(l, r);
      if (q === undefined) throw new ExpressionError('division by zero');
      return q;
    }
    default: {
      const c = x.compare(l, r);
      return op === '='
        ? c === 0
        : op === '!='
          ? c !== 0
          : op === '<'
            ? c < 0
            : op === '<='
              ? c <= 0
              : op === '>'
                ? c > 0
                : c >= 0;
    }
  }
}

function call(fn: string, args: ExprNode[], row: ExprRow, f: Env): Raw {
  if (fn === 'lookup') return lookup(args, row, f);
  if (fn === 'empty') return ev(args[0], row, f) === EMPTY;
  if (fn === 'coalesce') {
    for (const a of args) {
      const v = ev(a, row, f);
      if (v !== EMPTY) return v;
    }
    return EMPTY;
  }
  if (fn === 'if') {
    const c = ev(args[0], row, f);
    if (c === EMPTY) return EMPTY;
    return ev(c === true ? args[1] : args[2], row, f);
  }
  const values = args.map((a) => num(ev(a, row, f), f));
  if (values.includes(EMPTY)) return EMPTY;
  const nums = values as Exact[];
  switch (fn) {
    case 'abs':
      return x.abs(nums[0]);
    case 'round':
      return x.roundTo(nums[0], nums[1] === undefined ? 2 : Number(nums[1].units));
    case 'min':
      return nums.reduce((a, b) => (x.compare(a, b) <= 0 ? a : b));
    case 'max':
      return nums.reduce((a, b) => (x.compare(a, b) >= 0 ? a : b));
    default:
      throw new ExpressionError(`unknown function ${fn}()`);
  }
}

/** `lookup(table, key, column)`: a blank key or a blank cell is empty; a missing id refuses the document. */
function lookup(args: ExprNode[], row: ExprRow, f: Env): Raw {
  const keyRaw = ev(args[1], row, f);
  if (keyRaw === EMPTY) return EMPTY;
  const key = text(keyRaw).trim();
  const table = (args[0] as { v: string }).v;
  const column = (args[2] as { v: string }).v;
  try {
    const cell = lookupMaster(f.master, table, key, column);
    return cell === '' ? EMPTY : { text: cell, column: `${table}.${column}`, master: true };
  } catch (err) {
    if (!(err instanceof MasterLookupError)) throw err;
    throw new ExpressionError(
      err.message,
      isCell(keyRaw) ? keyRaw.column : undefined,
      key,
      err.code,
    );
  }
}

/** The value as the text a conversion reads ('' when empty); numbers in plain form (`12.5`). */
function expressionText(v: Value): string {
  if (v === EMPTY) return '';
  if (typeof v === 'boolean')
    throw new ExpressionError('the expression gave a condition, not a value');
  return typeof v === 'string' ? v : x.exactText(v);
}
