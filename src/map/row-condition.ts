/**
 * Conditions on the cells of one row: which rows are skipped (footers, totals, cancelled receipts), which
 * rows of a document are lines, which row supplies the document's values, when an object exists (`$when`).
 * A condition is data in the mapping (docs/mappings.md, "Conditions on rows"); it is never code.
 *
 * Text tests (`equals`, `in`, `matches`) compare the trimmed cell case-insensitively. Number tests (`zero`,
 * `nonZero`, `gt`…) read the cell in the mapping's number format (`zero` and `nonZero` also a percentage,
 * `10%`); a cell that is not a number leaves the condition undecided, and the caller refuses the row's
 * document rather than guess (`UndecidedCell`).
 */
import { z } from 'zod';
import { EdocError } from '../errors.js';
import { erpNumberToPlain } from './convert-number.js';
import type { MappingFormat, RowCondition } from './mapping-types.js';
import { objectColonHint } from './yaml-hint.js';

export type { RowCondition } from './mapping-types.js';

/** A number test met a cell that is not a number: the row cannot be judged. */
export interface UndecidedCell {
  column: string;
  text: string;
}

export type ConditionResult = boolean | UndecidedCell;

const NUMBER_TESTS = ['zero', 'nonZero', 'gt', 'ge', 'lt', 'le'] as const;
const TESTS = ['equals', 'in', 'empty', 'filled', 'matches', ...NUMBER_TESTS] as const;

const leafSchema = z.strictObject({
  column: z.string().min(1),
  equals: z.union([z.string(), z.number()]).optional(),
  in: z
    .array(z.union([z.string(), z.number()]))
    .min(1)
    .optional(),
  empty: z.literal(true).optional(),
  filled: z.literal(true).optional(),
  zero: z.literal(true).optional(),
  nonZero: z.literal(true).optional(),
  gt: z.number().optional(),
  ge: z.number().optional(),
  lt: z.number().optional(),
  le: z.number().optional(),
  matches: z.string().min(1).optional(),
});

/** Every key a condition accepts: a leaf's column and tests, and the combinators (the docs' reference lists them). */
export const CONDITION_KEYS: readonly string[] = [
  ...Object.keys(leafSchema.shape),
  'not',
  'all',
  'any',
];

/** As compile-node.ts's mappingError (not imported: compile-node compiles `$when` conditions with this file). */
function mappingError(file: string, path: string, message: string): EdocError {
  return new EdocError(
    'EDOC_MAPPING_INVALID',
    `Mapping ${file}: ${path === '' ? '' : `${path}: `}${message}`,
    { file, field: path },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Compiles a condition from its YAML form: a column name (= `filled`), a list (= any of them), an object
 * with `not`, `all` or `any`, or a column with exactly one test.
 */
export function compileCondition(input: unknown, path: string, file: string): RowCondition {
  if (typeof input === 'string' && input !== '') return { test: 'filled', column: input };
  if (Array.isArray(input)) {
    if (input.length === 0)
      throw mappingError(file, path, 'an empty list of conditions decides nothing');
    return { test: 'any', of: input.map((c, i) => compileCondition(c, `${path}[${i}]`, file)) };
  }
  if (!isObject(input))
    throw mappingError(
      file,
      path,
      'expected a condition: a column name, or { column: NAME, TEST: … }',
    );
  if ('not' in input || 'all' in input || 'any' in input) {
    const keys = Object.keys(input);
    if (keys.length !== 1)
      throw mappingError(
        file,
        path,
        `a condition takes one of not, all, any alone (found ${keys.join(', ')})`,
      );
    if ('not' in input)
      return { test: 'not', of: compileCondition(input.not, `${path}.not`, file) };
    const which = 'all' in input ? 'all' : 'any';
    const list = input[which];
    if (!Array.isArray(list) || list.length === 0)
      throw mappingError(file, `${path}.${which}`, 'expected a non-empty list of conditions');
    return {
      test: which,
      of: list.map((c, i) => compileCondition(c, `${path}.${which}[${i}]`, file)),
    };
  }
  const parsed = leafSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw mappingError(
      file,
      [path, ...issue.path.map(String)].filter((p) => p !== '').join('.'),
      `${issue.message}${objectColonHint(input)}`,
    );
  }
  const c = parsed.data;
  const tests = TESTS.filter((t) => c[t] !== undefined);
  if (tests.length !== 1) {
    throw mappingError(
      file,
      path,
      `a condition on column "${c.column}" takes exactly one of ${TESTS.join(', ')} (found ${tests.join(', ') || 'none'})`,
    );
  }
  const test = tests[0];
  switch (test) {
    case 'equals':
      return { test: 'equals', column: c.column, values: [norm(String(c.equals))] };
    case 'in':
      return { test: 'equals', column: c.column, values: (c.in ?? []).map((v) => norm(String(v))) };
    case 'matches':
      try {
        return { test: 'matches', column: c.column, pattern: new RegExp(c.matches ?? '', 'iu') };
      } catch (err) {
        throw mappingError(
          file,
          `${path}.matches`,
          `not a regular expression: ${(err as Error).message}`,
        );
      }
    case 'empty':
    case 'filled':
    case 'zero':
    case 'nonZero':
      return { test, column: c.column };
    default:
      return { test: 'compare', column: c.column, op: test, than: plainOf(c[test] as number) };
  }
}

function norm(text: string): string {
  return text.trim().toLowerCase();
}

/** A YAML number as plain decimal text (`0.5`, `-3`, `1e3` -> `1000`). */
function plainOf(n: number): string {
  if (Number.isInteger(n)) return BigInt(n).toString();
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(20).replace(/0+$/, '') : s;
}

/** Sign of a − b for two plain decimals (`-12.5`, `3`). */
export function compareDecimals(a: string, b: string): number {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  const x = BigInt(ai + af.padEnd(scale, '0'));
  const y = BigInt(bi + bf.padEnd(scale, '0'));
  return x === y ? 0 : x > y ? 1 : -1;
}

/** `seen`: told of each cell a number test reads (map/column-numbers.ts). */
export function evaluateCondition(
  cond: RowCondition,
  get: (column: string) => string,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
  seen?: (column: string, text: string) => void,
): ConditionResult {
  switch (cond.test) {
    case 'not': {
      const r = evaluateCondition(cond.of, get, format, seen);
      return typeof r === 'boolean' ? !r : r;
    }
    case 'all':
    case 'any': {
      // three-valued: a decided answer wins over an undecided cell (any: one true; all: one false)
      let undecided: UndecidedCell | undefined;
      for (const c of cond.of) {
        const r = evaluateCondition(c, get, format, seen);
        if (typeof r !== 'boolean') undecided ??= r;
        else if (r === (cond.test === 'any')) return r;
      }
      return undecided ?? cond.test === 'all';
    }
    case 'empty':
      return get(cond.column).trim() === '';
    case 'filled':
      return get(cond.column).trim() !== '';
    case 'equals':
      return cond.values.includes(norm(get(cond.column)));
    case 'matches':
      return cond.pattern.test(get(cond.column).trim());
    case 'zero':
    case 'nonZero':
    case 'compare': {
      const text = get(cond.column).trim();
      // a percentage (`10%`, a percent-formatted spreadsheet cell) is zero or not whatever its scale;
      // compared with a number (gt, lt…) its scale cannot be told, and it stays undecided
      const bare = cond.test !== 'compare' && text.endsWith('%') ? text.slice(0, -1).trim() : text;
      // an amount cell left blank holds no amount: it reads as zero, never as "a value"
      if (text !== '') seen?.(cond.column, text);
      const plain = text === '' ? '0' : bare === '' ? undefined : erpNumberToPlain(bare, format);
      if (plain === undefined) return { column: cond.column, text };
      const sign = compareDecimals(plain, cond.test === 'compare' ? cond.than : '0');
      if (cond.test === 'zero') return sign === 0;
      if (cond.test === 'nonZero') return sign !== 0;
      const op = (cond as { op: 'gt' | 'ge' | 'lt' | 'le' }).op;
      return op === 'gt' ? sign > 0 : op === 'ge' ? sign >= 0 : op === 'lt' ? sign < 0 : sign <= 0;
    }
  }
}

/** Every column a condition reads. */
export function conditionColumns(cond: RowCondition, out: Set<string> = new Set()): Set<string> {
  if (cond.test === 'not') conditionColumns(cond.of, out);
  else if (cond.test === 'all' || cond.test === 'any')
    for (const c of cond.of) conditionColumns(c, out);
  else out.add((cond as { column: string }).column);
  return out;
}

/** A condition as the mapping's reader would say it: `move_type in [out_refund, entry] or state is empty`. */
export function conditionText(cond: RowCondition): string {
  switch (cond.test) {
    case 'equals':
      return cond.values.length === 1
        ? `${cond.column} = ${cond.values[0]}`
        : `${cond.column} in [${cond.values.join(', ')}]`;
    case 'empty':
    case 'filled':
    case 'zero':
    case 'nonZero':
      return `${cond.column} is ${cond.test === 'nonZero' ? 'not zero' : cond.test}`;
    case 'compare':
      return `${cond.column} ${{ gt: '>', ge: '>=', lt: '<', le: '<=' }[cond.op]} ${cond.than}`;
    case 'matches':
      return `${cond.column} matches ${String(cond.pattern)}`;
    case 'not':
      return `not (${conditionText(cond.of)})`;
    default:
      return cond.of
        .map((c) =>
          c.test === 'all' || c.test === 'any' ? `(${conditionText(c)})` : conditionText(c),
        )
        .join(cond.test === 'all' ? ' and ' : ' or ');
  }
}
