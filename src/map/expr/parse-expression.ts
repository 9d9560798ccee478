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
import { exactOf, type Exact } from './exact-decimal.js';

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

interface Token {
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

function tokenize(source: string): Token[] {
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
