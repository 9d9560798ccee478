/**
 * A column's name as a mapping and a header match it: a leading byte-order mark dropped, trimmed, inner
 * runs of spaces collapsed, case-insensitive (` Cliente  Doc ` is `cliente doc`).
 */
export function normaliseColumnName(name: string): string {
  return name
    .replace(/^\uFEFF/, '')
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase();
}
