/**
 * Splits a JSON text into its top-level documents without parsing the whole
 * text: the elements of a top-level array one by one, or a single top-level
 * object. It is a small iterative scanner (strings, escapes, nesting depth,
 * line and column), so a 200,000-element array never sits in memory as one
 * value and 100,000 nested `[` cannot overflow the stack. Each element's exact
 * text is handed back; the caller parses it with JSON.parse.
 */
import { EdocError } from '../errors.js';

export interface SplitElement {
  /** The element's exact text. */
  text: string;
  startLine: number;
  /** 1-based column of the element's first character. */
  startColumn: number;
  endLine: number;
}

export interface SplitterLimits {
  /** Deepest nesting accepted, the top-level array counting as one. @defaultValue 1000 */
  maxDepth?: number;
  /** Longest element accepted, in characters. @defaultValue 64 Mi */
  maxElementChars?: number;
}

const enum State {
  Before,
  ArrayStart,
  ArrayNeedValue,
  InValue,
  AfterValue,
  Done,
}

const NL = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (c: number): boolean => c === SPACE || c === NL || c === CR || c === TAB;
const endsLiteral = (c: number): boolean =>
  isSpace(c) ||
  c === COMMA ||
  c === CLOSE_BRACKET ||
  c === CLOSE_BRACE ||
  c === OPEN_BRACE ||
  c === OPEN_BRACKET ||
  c === QUOTE ||
  c === COLON;

export class JsonSplitter {
  private state = State.Before;
  private topLevel: 'array' | 'object' | undefined;
  private line = 1;
  private column = 0;
  private elementCount = 0;
  // the element being scanned
  private kind: 'container' | 'string' | 'literal' = 'container';
  private depth = 0;
  private inString = false;
  private escape = false;
  private pieces: string[] = [];
  private pieceChars = 0;
  private segStart = 0;
  private startLine = 0;
  private startColumn = 0;
  private readonly maxDepth: number;
  private readonly maxElementChars: number;

  constructor(
    private readonly file: string,
    limits: SplitterLimits = {},
  ) {
    this.maxDepth = limits.maxDepth ?? 1000;
    this.maxElementChars = limits.maxElementChars ?? 64 * 1024 * 1024;
  }

  /** 'array' or 'object' once the first significant character was seen. */
  get shape(): 'array' | 'object' | undefined {
    return this.topLevel;
  }

  push(chunk: string): SplitElement[] {
    const out: SplitElement[] = [];
    this.segStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.state === State.InValue) {
        if (this.inString) {
          if (this.escape) this.escape = false;
          else if (c === BACKSLASH) this.escape = true;
          else if (c === QUOTE) {
            this.inString = false;
            if (this.kind === 'string') out.push(this.finish(chunk, i + 1));
          }
        } else if (this.kind === 'literal') {
          if (endsLiteral(c)) {
            out.push(this.finish(chunk, i));
            i--; // the character that ended the literal belongs to the next state
            continue;
          }
        } else if (c === QUOTE) {
          this.inString = true;
        } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          this.depth++;
          this.checkDepth();
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          this.depth--;
          if (this.depth === 0) out.push(this.finish(chunk, i + 1));
        }
      } else if (!isSpace(c)) {
        this.structural(c, chunk, i);
      }
      if (c === NL) {
        this.line++;
        this.column = 0;
      } else {
        this.column++;
      }
    }
    if (this.state === State.InValue) {
      const rest = chunk.slice(this.segStart);
      this.pieces.push(rest);
      this.pieceChars += rest.length;
      if (this.pieceChars > this.maxElementChars) {
        throw this.error(
          `a document is longer than ${this.maxElementChars} characters (read.maxRecordBytes)`,
          this.startLine,
          this.startColumn,
        );
      }
    }
    return out;
  }

  /** Call at the end of the text. Returns whether the text held a value at all. */
  end(): { empty: boolean } {
    switch (this.state) {
      case State.Before:
        return { empty: true };
      case State.Done:
        return { empty: this.elementCount === 0 };
      default:
        throw this.error(
          this.topLevel === 'array'
            ? 'unexpected end of file: the array is not closed'
            : 'unexpected end of file: the object is not closed',
          this.line,
          this.column + 1,
        );
    }
  }

  private structural(c: number, chunk: string, i: number): void {
    const here = (): [number, number] => [this.line, this.column + 1];
    switch (this.state) {
      case State.Before:
        if (c === OPEN_BRACKET) {
          this.topLevel = 'array';
          this.state = State.ArrayStart;
        } else if (c === OPEN_BRACE) {
          this.topLevel = 'object';
          this.begin(c, chunk, i);
        } else {
          throw this.error('the file must hold a JSON object or an array of objects', ...here());
        }
        return;
      case State.ArrayStart:
        if (c === CLOSE_BRACKET) this.state = State.Done;
        else this.beginElement(c, chunk, i);
        return;
      case State.ArrayNeedValue:
        if (c === CLOSE_BRACKET)
          throw this.error("unexpected ']' after ',' (trailing comma)", ...here());
        this.beginElement(c, chunk, i);
        return;
      case State.AfterValue:
        if (c === COMMA) this.state = State.ArrayNeedValue;
        else if (c === CLOSE_BRACKET) this.state = State.Done;
        else throw this.error(`expected ',' or ']' after element ${this.elementCount}`, ...here());
        return;
      case State.Done:
        throw this.error('unexpected text after the end of the JSON value', ...here());
      default:
        return;
    }
  }

  private beginElement(c: number, chunk: string, i: number): void {
    if (c === COMMA || c === COLON || c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      throw this.error(
        `unexpected '${String.fromCharCode(c)}' where an element was expected`,
        this.line,
        this.column + 1,
      );
    }
    this.begin(c, chunk, i);
  }

  private begin(c: number, chunk: string, i: number): void {
    this.state = State.InValue;
    this.pieces = [];
    this.pieceChars = 0;
    this.segStart = i;
    this.startLine = this.line;
    this.startColumn = this.column + 1;
    this.inString = c === QUOTE;
    this.escape = false;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      this.kind = 'container';
      this.depth = 1;
      this.checkDepth();
    } else {
      this.kind = c === QUOTE ? 'string' : 'literal';
      this.depth = 0;
    }
  }

  private finish(chunk: string, endExclusive: number): SplitElement {
    const tail = chunk.slice(this.segStart, endExclusive);
    const text = this.pieces.length === 0 ? tail : this.pieces.join('') + tail;
    this.pieces = [];
    this.pieceChars = 0;
    this.segStart = endExclusive;
    this.elementCount++;
    this.state = this.topLevel === 'array' ? State.AfterValue : State.Done;
    return { text, startLine: this.startLine, startColumn: this.startColumn, endLine: this.line };
  }

  private checkDepth(): void {
    const total = this.depth + (this.topLevel === 'array' ? 1 : 0);
    if (total > this.maxDepth) {
      throw this.error(`nesting deeper than ${this.maxDepth} levels`, this.line, this.column + 1);
    }
  }

  private error(message: string, line: number, column: number): EdocError {
    return new EdocError('EDOC_READ_JSON', `${message} (line ${line}, column ${column})`, {
      file: this.file,
      line,
      col: column,
    });
  }
}

/** Line and column of `position` inside an element that starts at (line, column). */
export function locateInElement(
  text: string,
  position: number,
  line: number,
  column: number,
): { line: number; column: number } {
  let l = line;
  let c = column;
  const end = Math.min(position, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === NL) {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  return { line: l, column: c };
}
