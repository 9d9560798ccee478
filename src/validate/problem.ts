/**
 * One thing wrong with a request: a stable code, where (a path into the request
 * such as `Lines[1].TaxSubTotals[0].TaxAmount`, '' for the whole document) and
 * a message for a person. Rules return `Problem[]`, empty when all is well.
 */
import type { ErrorCode } from '../errors.js';

export interface Problem {
  code: ErrorCode;
  path: string;
  message: string;
  /** Mapping problems only: the source column, its text and the CSV rows it came from. */
  column?: string;
  value?: string;
  rows?: number[];
}

export function problem(code: ErrorCode, path: string, message: string): Problem {
  return { code, path, message };
}

/** `joinPath('Lines[1]', 'TaxSubTotals', 0)` -> `'Lines[1].TaxSubTotals[0]'`. */
export function joinPath(base: string, ...parts: (string | number)[]): string {
  let path = base;
  for (const part of parts) {
    if (typeof part === 'number') path += `[${part}]`;
    else path = path === '' ? part : `${path}.${part}`;
  }
  return path;
}

/**
 * One problem per mistake: a column read by several request fields (a date that is also the due date and
 * the payment's due date) gives the same problem once per field; they differ only in `path`. Kept in order.
 */
export function distinctProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const id = JSON.stringify([
      p.code,
      p.column ?? p.path,
      p.value ?? null,
      p.rows ?? null,
      p.message,
    ]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
