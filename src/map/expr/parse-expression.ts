/**
 * The parser of mapping expressions (`expr:`): a small language of its own,
 * never `eval` or `Function`. Bounded against hostile input: at most
 * MAX_LENGTH characters, MAX_DEPTH levels of brackets and calls nested in one
 * another (operators chained without brackets are no nesting) and MAX_NODES nodes.
 *
 *   expr    := or
 *   or      := and ('or' and)*
 *   and     := compare ('and' compare)*
 *   compare := sum (('=' | '!=' | '<' | '<=' | '>' | '>=') sum)?
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/') unary)*
 *   unary   := '-' unary | 'not' unary | primary
 *   primary := NUMBER | 'text' | column | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 *   column  := NAME | '[' any text but ']' ']'
 *
 * Numbers are written with a point (`0.19`) whatever the export's format; cells
 * are read in the mapping's number format when used as numbers.
 */
import { exactOf } from './exact-decimal.js';
import {
  ExpressionSyntaxError,
  FUNCTIONS,
  MAX_DEPTH,
  MAX_LENGTH,
  MAX_NODES,
  type ExprNode,
} from './expr-node.js';
import { tokenize, type Token } from './tokenize.js';
import { typeOf } from './type-check.js';

export {
  ExpressionSyntaxError,
  expressionColumns,
  FUNCTIONS,
  MAX_DEPTH,
  MAX_LENGTH,
  MAX_NODES,
} from './expr-node.js';
export type { ExprNode, ExprType } from './expr-node.js';
export { EXPRESSION_OPERATORS } from './tokenize.js';
export { typeOf } from './type-check.js';

class Parser {
  private pos = 0;
  private nodes = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos];
  }
  private next(): Token {
    return this.tokens[this.pos++];
  }
  private isOp(text: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.text === text;
  }
  private isWord(text: string): boolean {
    const t = this.peek();
    return t.kind === 'name' && t.text.toLowerCase() === text;
  }

  private node<N extends ExprNode>(n: N): N {
    if (++this.nodes > MAX_NODES) throw new ExpressionSyntaxError(`longer than ${MAX_NODES} parts`);
    return n;
  }

  /** The depth inside the bracket or call opened by `t`; refused before parsing further. */
  private deeper(d: number, t: Token): number {
    if (d + 1 > MAX_DEPTH)
      throw new ExpressionSyntaxError(
        `brackets and calls nested deeper than ${MAX_DEPTH} levels (at character ${t.at + 1})`,
      );
    return d + 1;
  }

  parseAll(): ExprNode {
    const e = this.or(0);
    const t = this.peek();
    if (t.kind !== 'end')
      throw new ExpressionSyntaxError(
        `unexpected ${JSON.stringify(t.text)} at character ${t.at + 1}`,
      );
    return e;
  }

  private or(d: number): ExprNode {
    let l = this.and(d);
    while (this.isWord('or')) {
      this.next();
      l = this.node({ t: 'bin', op: 'or', l, r: this.and(d) });
    }
    return l;
  }

  private and(d: number): ExprNode {
    let l = this.compare(d);
    while (this.isWord('and')) {
      this.next();
      l = this.node({ t: 'bin', op: 'and', l, r: this.compare(d) });
    }
    return l;
  }

  private compare(d: number): ExprNode {
    const l = this.sum(d);
    const t = this.peek();
    if (t.kind === 'op' && ['=', '!=', '<', '<=', '>', '>='].includes(t.text)) {
      this.next();
      return this.node({ t: 'bin', op: t.text, l, r: this.sum(d) });
    }
    return l;
  }

  private sum(d: number): ExprNode {
    let l = this.product(d);
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().text;
      l = this.node({ t: 'bin', op, l, r: this.product(d) });
    }
    return l;
  }

  private product(d: number): ExprNode {
    let l = this.unary(d);
    while (this.isOp('*') || this.isOp('/')) {
      const op = this.next().text;
      l = this.node({ t: 'bin', op, l, r: this.unary(d) });
    }
    return l;
  }

  private unary(d: number): ExprNode {
    if (this.isOp('-')) {
      this.next();
      return this.node({ t: 'neg', e: this.unary(d) });
    }
    if (this.isWord('not')) {
      this.next();
      return this.node({ t: 'not', e: this.unary(d) });
    }
    return this.primary(d);
  }

  private primary(d: number): ExprNode {
    const t = this.next();
    if (t.kind === 'num') return this.node({ t: 'num', v: exactOf(t.text)! });
    if (t.kind === 'str') return this.node({ t: 'str', v: t.text });
    if (t.kind === 'col') return this.node({ t: 'col', name: t.text });
    if (t.kind === 'op' && t.text === '(') {
      const e = this.or(this.deeper(d, t));
      this.expect(')');
      return e;
    }
    if (t.kind === 'name') {
      if (!this.isOp('(')) return this.node({ t: 'col', name: t.text });
      const fn = t.text.toLowerCase();
      // own keys only: `constructor`, `toString`… of the object prototype are no functions of the language
      const arity = Object.hasOwn(FUNCTIONS, fn) ? FUNCTIONS[fn] : undefined;
      if (arity === undefined)
        throw new ExpressionSyntaxError(
          `unknown function ${t.text}() (known: ${Object.keys(FUNCTIONS).join(', ')})`,
        );
      this.next();
      const inner = this.deeper(d, t);
      const args: ExprNode[] = [this.or(inner)];
      while (this.isOp(',')) {
        this.next();
        args.push(this.or(inner));
      }
      this.expect(')');
      if (args.length < arity[0] || args.length > arity[1]) {
        throw new ExpressionSyntaxError(
          `${fn}() takes ${arity[0] === arity[1] ? arity[0] : `${arity[0]} to ${arity[1]}`} arguments, not ${args.length}`,
        );
      }
      if (fn === 'lookup') return this.node({ t: 'call', fn, args: lookupArgs(args) });
      if (
        fn === 'round' &&
        args[1] !== undefined &&
        (args[1].t !== 'num' || args[1].v.scale !== 0 || args[1].v.units > 12n)
      ) {
        throw new ExpressionSyntaxError(
          'round(x, places): places must be a whole number from 0 to 12',
        );
      }
      return this.node({ t: 'call', fn, args });
    }
    throw new ExpressionSyntaxError(
      t.kind === 'end'
        ? 'the expression ends too early'
        : `unexpected ${JSON.stringify(t.text)} at character ${t.at + 1}`,
    );
  }

  private expect(op: string): void {
    const t = this.next();
    if (t.kind !== 'op' || t.text !== op)
      throw new ExpressionSyntaxError(
        t.kind === 'end'
          ? `missing ${op} at the end`
          : `expected ${op} at character ${t.at + 1}, found ${JSON.stringify(t.text)}`,
      );
  }
}

/**
 * `lookup(table, key, column)`: the table and the column are names (`customers`, `[Razón social]`) or
 * texts (`'customers'`), never read from the row; the key is any value (a column, usually).
 */
function lookupArgs(args: ExprNode[]): ExprNode[] {
  const nameOf = (n: ExprNode, what: string): ExprNode => {
    if (n.t === 'col' || n.t === 'str') return { t: 'str', v: n.t === 'col' ? n.name : n.v };
    throw new ExpressionSyntaxError(
      `lookup(table, key, column): the ${what} must be a name such as customers or [Razón social], not an expression`,
    );
  };
  return [nameOf(args[0], 'table'), args[1], nameOf(args[2], 'column')];
}

/** Parses and type-checks an expression; throws ExpressionSyntaxError with a short reason. */
export function parseExpression(source: string): ExprNode {
  if (source.length > MAX_LENGTH)
    throw new ExpressionSyntaxError(`longer than ${MAX_LENGTH} characters`);
  if (source.trim() === '') throw new ExpressionSyntaxError('the expression is empty');
  const tree = new Parser(tokenize(source)).parseAll();
  if (typeOf(tree) === 'boolean')
    throw new ExpressionSyntaxError(
      'the expression is a condition; a value needs a number or a text (use if(condition, a, b))',
    );
  return tree;
}
