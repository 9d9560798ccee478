/**
 * Compiles the value keys of expressions and cell parts (`expr`, `capture`,
 * `split`) into a ValueSpec, with load errors naming the mapping file, the key
 * and the expression.
 */
import { excerpt } from '../policy/excerpt.js';
import { compileCapture } from './capture.js';
import { ExpressionSyntaxError, parseExpression } from './expr/parse-expression.js';
import type { ValueSpecInput } from './mapping-schema.js';
import type { ValueSpec } from './mapping-types.js';

/** `fail(key, message)` makes the loader's error (compile-node.ts's mappingError for the mapping file). */
export function compileValueParts(
  v: ValueSpecInput,
  spec: ValueSpec,
  path: string,
  fail: (key: string, message: string) => Error,
): void {
  if (v.expr !== undefined) {
    try {
      spec.expr = parseExpression(v.expr);
    } catch (err) {
      if (!(err instanceof ExpressionSyntaxError)) throw err;
      throw fail(
        `${path}.expr`,
        `${err.message} in expression ${excerpt(JSON.stringify(v.expr), 120)}`,
      );
    }
    spec.exprText = v.expr;
  }
  if (v.capture !== undefined || v.split !== undefined) {
    if (v.column === undefined)
      throw fail(
        path,
        `${v.capture !== undefined ? 'capture' : 'split'} takes part of a column's cell: give column as well`,
      );
    if (v.capture !== undefined && v.split !== undefined)
      throw fail(path, 'use capture or split, not both');
  }
  if (v.capture !== undefined) {
    const pattern = typeof v.capture === 'string' ? v.capture : v.capture.pattern;
    const group = typeof v.capture === 'string' ? undefined : v.capture.group;
    try {
      spec.capture = compileCapture(pattern, group);
    } catch (err) {
      throw fail(
        `${path}.capture`,
        `${(err as Error).message} (pattern ${excerpt(JSON.stringify(pattern), 120)})`,
      );
    }
  }
  if (v.split !== undefined)
    spec.split = { on: v.split.on, part: v.split.part, rest: v.split.rest ?? false };
}
