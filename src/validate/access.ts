/**
 * Safe reads from requests that have not passed a schema yet: the rules run on
 * plain parsed JSON and must never throw on a surprising shape.
 */

export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function obj(value: unknown): Obj | undefined {
  return isObj(value) ? value : undefined;
}

/** The array, or undefined when absent or not an array. */
export function arr(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** The string, or undefined when absent or not a string. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A string or a number as text (codes sometimes arrive as numbers). */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** True when the value is a string with at least one non-blank character. */
export function filled(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
