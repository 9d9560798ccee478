/**
 * The type check of a parsed expression (map/expr/parse-expression.ts): what each node yields, as far
 * as the text tells, and the misuses it can see (a condition added, a number negated with `not`).
 */
import { ExpressionSyntaxError, type ExprNode, type ExprType } from './expr-node.js';

/** What a node yields, as far as the text tells (columns: 'any'); throws on a misuse it can see. */
export function typeOf(n: ExprNode): ExprType {
  switch (n.t) {
    case 'num':
      return 'number';
    case 'str':
    case 'col':
      return 'any';
    case 'neg':
      expectNumber(n.e, '-');
      return 'number';
    case 'not':
      expectBoolean(n.e, 'not');
      return 'boolean';
    case 'bin':
      if (n.op === 'and' || n.op === 'or') {
        expectBoolean(n.l, n.op);
        expectBoolean(n.r, n.op);
        return 'boolean';
      }
      if (['+', '-', '*', '/'].includes(n.op)) {
        expectNumber(n.l, n.op);
        expectNumber(n.r, n.op);
        return 'number';
      }
      expectNumber(n.l, n.op);
      expectNumber(n.r, n.op);
      return 'boolean';
    case 'call': {
      if (n.fn === 'empty') {
        typeOf(n.args[0]);
        return 'boolean';
      }
      if (n.fn === 'if') {
        expectBoolean(n.args[0], 'if');
        const a = typeOf(n.args[1]);
        const b = typeOf(n.args[2]);
        return a === b ? a : 'any';
      }
      if (n.fn === 'lookup') {
        if (typeOf(n.args[1]) === 'boolean')
          throw new ExpressionSyntaxError('lookup() needs a key (a column), not a condition');
        return 'any';
      }
      if (n.fn === 'coalesce') {
        const types = n.args.map(typeOf);
        return types.every((x) => x === types[0]) ? types[0] : 'any';
      }
      for (const a of n.args) expectNumber(a, `${n.fn}()`);
      return 'number';
    }
  }
}

function expectNumber(n: ExprNode, where: string): void {
  if (typeOf(n) === 'boolean')
    throw new ExpressionSyntaxError(`${where} needs a number, not a condition`);
}

function expectBoolean(n: ExprNode, where: string): void {
  if (typeOf(n) !== 'boolean')
    throw new ExpressionSyntaxError(
      `${where} needs a condition (a comparison, empty(), not, and, or)`,
    );
}
