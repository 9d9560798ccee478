/**
 * The most common YAML mistake in a mapping: an export's column name that contains ": " (`Cliente: Nombre`,
 * `Doc: Nro`) written without quotes. YAML reads the colon as a key, so the file either does not parse
 * ("Nested mappings are not allowed…") or parses into an object where a name was meant. These hints say
 * to quote the name, with the name as it stands in the file.
 */
import { excerpt } from '../policy/excerpt.js';

const QUOTE_IT = 'a column name that contains ": " must be quoted';

/** The YAML parser's error at `line`/`col` (1-based), when the text there reads like `name: more`. */
export function yamlColonHint(
  text: string,
  line: number | undefined,
  col: number | undefined,
): string {
  if (line === undefined || col === undefined) return '';
  const source = text.split(/\r\n|\n|\r/)[line - 1] ?? '';
  const rest = source.slice(col - 1);
  const name = /^\s*([^{}[\],#]*?:\s[^{}[\],#]*?)\s*(?:[}\],#]|$)/.exec(rest)?.[1];
  return name === undefined
    ? ''
    : `; ${QUOTE_IT}: write "${excerpt(name.replace(/"/g, '\\"'), 80)}"`;
}

/** A one-entry object where a column name was expected: `[Doc: Nro]` parsed as `[{ Doc: "Nro" }]`. */
export function objectColonHint(value: unknown): string {
  if (Array.isArray(value)) {
    // a list of names (or of lists of names, as `key` alternatives): the first item that reads like one
    for (const item of value) {
      const hint = objectColonHint(item);
      if (hint !== '') return hint;
    }
    return '';
  }
  if (typeof value !== 'object' || value === null) return '';
  const entries = Object.entries(value);
  if (entries.length !== 1) return '';
  const [k, v] = entries[0];
  if (v !== null && typeof v !== 'string' && typeof v !== 'number') return '';
  return `; if "${excerpt(k, 60)}: ${excerpt(String(v ?? ''), 60)}" is a column name, ${QUOTE_IT}: write "${excerpt(`${k}: ${String(v ?? '')}`, 120)}"`;
}

/** The value at a zod issue path inside the parsed YAML. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let node = data;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
