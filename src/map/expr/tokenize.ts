/** The tokens of a mapping expression: numbers, texts, names, `[bracketed columns]` and operators. */
import { ExpressionSyntaxError } from './expr-node.js';

export interface Token {
  kind: 'num' | 'str' | 'name' | 'col' | 'op' | 'end';
  text: string;
  at: number;
}

const OPERATORS = ['<=', '>=', '!=', '=', '<', '>', '+', '-', '*', '/', '(', ')', ','];

/** The operators an expression accepts, signs and words (the docs' reference lists them). */
export const EXPRESSION_OPERATORS: readonly string[] = [
  ...OPERATORS.filter((o) => !['(', ')', ','].includes(o)),
  'and',
  'or',
  'not',
];
const NAME = /^[\p{L}_][\p{L}\p{N}_]*/u;

export function tokenize(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c >= '0' && c <= '9') {
      const m = /^\d+(?:\.\d+)?/.exec(source.slice(i))!;
      out.push({ kind: 'num', text: m[0], at: i });
      i += m[0].length;
      continue;
    }
    if (c === "'") {
      const end = source.indexOf("'", i + 1);
      if (end < 0)
        throw new ExpressionSyntaxError(
          `a text starting at character ${i + 1} is never closed with '`,
        );
      out.push({ kind: 'str', text: source.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    if (c === '[') {
      const end = source.indexOf(']', i + 1);
      if (end < 0)
        throw new ExpressionSyntaxError(
          `a column name starting at character ${i + 1} is never closed with ]`,
        );
      const name = source.slice(i + 1, end).trim();
      if (name === '')
        throw new ExpressionSyntaxError(`empty column name [] at character ${i + 1}`);
      out.push({ kind: 'col', text: name, at: i });
      i = end + 1;
      continue;
    }
    const name = NAME.exec(source.slice(i, i + 200));
    if (name !== null) {
      out.push({ kind: 'name', text: name[0], at: i });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op === undefined)
      throw new ExpressionSyntaxError(
        `unexpected character ${JSON.stringify(c)} at character ${i + 1}`,
      );
    out.push({ kind: 'op', text: op, at: i });
    i += op.length;
  }
  out.push({ kind: 'end', text: '', at: source.length });
  return out;
}
