/**
 * Where a read is while it maps a row: the intake worker (intake/intake-worker.ts) keeps it in memory the
 * main thread can read even while the worker is stuck, so a read that stops making progress (a mapping's
 * pattern that backtracks without end on one row's cells) is known by its file and row, and only that
 * file is refused (intake/intake-reader.ts). Entered before a row is framed or a document built from its
 * rows, left after: both are synchronous, so a worker stuck between the two is stuck on that row. While
 * a document is built, each cell handed to the mapping moves the mark to its row (`at`), so a line's
 * cell names the line's row, not the document's first.
 */
export interface RowMark {
  enter(row: number): void;
  /** The row being mapped within the entered one's work (outside `enter`…`leave` it marks nothing). */
  at(row: number): void;
  leave(): void;
}
