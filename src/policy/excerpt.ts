/**
 * The one way input is quoted back to a person (error messages, the `value` of a problem, a
 * file-level error): a short, bounded excerpt. A 200 MB header line or a pasted API key must
 * not travel from the input into the log, the reports and the ledger, so every quote of input
 * text goes through `excerpt` (or `quoted`, which adds the quotation marks).
 *
 * - at most `max` characters of the text itself (60 by default), never a split surrogate pair;
 * - control characters escaped (`\n`, `\r`, `\t`, `\u0000`…), so an excerpt is one line;
 * - when cut: `…` and the full length, e.g. `abc… (1,048,576 characters)`.
 */

/** Characters of the input an excerpt shows at most. */
export const EXCERPT_CHARS = 60;

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeControls(text: string): string {
  // C0, DEL, C1 and the Unicode line / paragraph separators
  return text.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** A bounded, single-line excerpt of any input value (see the file's comment). */
export function excerpt(value: unknown, max = EXCERPT_CHARS): string {
  const text = textOf(value);
  if (text.length <= max) return escapeControls(text);
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // do not cut a surrogate pair in two
  return `${escapeControls(text.slice(0, end))}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** `"excerpt"`: the excerpt between double quotes, as messages quote a cell or a value. */
export function quoted(value: unknown, max = EXCERPT_CHARS): string {
  return `"${excerpt(value, max)}"`;
}
