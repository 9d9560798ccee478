/**
 * The tree of a mapping expression (`expr:`), the bounds the parser holds it to, the functions it may
 * call, and the one error a bad expression gives. Parsed by map/expr/parse-expression.ts.
 */
import type { Exact } from './exact-decimal.js';

export type ExprType = 'number' | 'boolean' | 'any';

export type ExprNode =
  | { t: 'num'; v: Exact }
  | { t: 'str'; v: string }
  | { t: 'col'; name: string }
  | { t: 'neg'; e: ExprNode }
  | { t: 'not'; e: ExprNode }
  | { t: 'bin'; op: string; l: ExprNode; r: ExprNode }
  | { t: 'call'; fn: string; args: ExprNode[] };

export const MAX_LENGTH = 1000;
export const MAX_DEPTH = 24;
export const MAX_NODES = 200;

/** Functions and how many arguments they take ([min, max]). */
export const FUNCTIONS: Record<string, [number, number]> = {
  round: [1, 2],
  abs: [1, 1],
  min: [2, 8],
  max: [2, 8],
  if: [3, 3],
  coalesce: [2, 8],
  empty: [1, 1],
  lookup: [3, 3],
};

export class ExpressionSyntaxError extends Error {}

/** Every column an expression reads. */
export function expressionColumns(n: ExprNode, out: Set<string>): Set<string> {
  if (n.t === 'col') out.add(n.name);
  else if (n.t === 'neg' || n.t === 'not') expressionColumns(n.e, out);
  else if (n.t === 'bin') {
    expressionColumns(n.l, out);
    expressionColumns(n.r, out);
  } else if (n.t === 'call') for (const a of n.args) expressionColumns(a, out);
  return out;
}
