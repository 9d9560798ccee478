/** Plain-text tables for the terminal: a header, a rule, left-aligned columns. */
import { terminalText } from '../log/terminal-text.js';

export interface Column<T> {
  header: string;
  value(row: T): string;
  /** Numbers read better right-aligned. @defaultValue 'left' */
  align?: 'left' | 'right';
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string[] {
  // a cell is measured as it will be printed (io.out shows control characters as \\uXXXX)
  const cells = rows.map((row) => columns.map((column) => terminalText(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((line) => line[i].length)),
  );
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) =>
        columns[i].align === 'right' ? value.padStart(widths[i]) : value.padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((c) => c.header)),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map(line),
  ];
}

/** `1 page`, `2 pages`, `0 errors`. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
