/**
 * The console's file queries (ledger/console-queries.ts): files newest first with their counts, files
 * by name, and documents by state per company from the per-file counts.
 */
import { emptyCounts, toFileRow } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
import type { RawFile } from './rows.js';
import type { DocumentState, FileRow, FileState, StateCounts } from './types.js';
import { capped, paged, type ConsoleFile, type Page } from './console-rows.js';

export async function withCounts(db: SqlExecutor, rows: RawFile[]): Promise<ConsoleFile[]> {
  const out: ConsoleFile[] = [];
  for (const r of rows) {
    const c = emptyCounts();
    for (const s of await db.all<{ state: DocumentState; n: number }>(
      'SELECT state, n FROM file_counts WHERE file_id = ?',
      [r.id],
    ))
      c[s.state] = s.n;
    out.push({ ...toFileRow(r), counts: c });
  }
  return out;
}

/** Files newest first, of one state or all (files_state / the primary key); `before` is the cursor. */
export async function listFiles(
  db: SqlExecutor,
  q: { state?: FileState; before?: number; limit: number },
): Promise<Page<ConsoleFile>> {
  const limit = capped(q.limit);
  const before = q.before ?? Number.MAX_SAFE_INTEGER;
  const rows =
    q.state === undefined
      ? await db.all<RawFile>('SELECT * FROM files WHERE id < ? ORDER BY id DESC LIMIT ?', [
          before,
          limit + 1,
        ])
      : await db.all<RawFile>(
          'SELECT * FROM files WHERE state = ? AND id < ? ORDER BY id DESC LIMIT ?',
          [q.state, before, limit + 1],
        );
  return paged(await withCounts(db, rows), limit, (f) => f.id);
}

/** Files whose name starts with `name` (files_name), by name; at most `limit` (refine the name for more). */
export async function findFiles(
  db: SqlExecutor,
  name: string,
  limit: number,
): Promise<ConsoleFile[]> {
  // a range on the index instead of LIKE, which the index cannot serve (case rules, wildcards in names);
  // names compare byte by byte in both backends (PostgreSQL: collation "C", pg-migrations step 5)
  const rows = await db.all<RawFile>(
    `SELECT * FROM files WHERE name >= ? AND name < ? ORDER BY name, id LIMIT ?`,
    [name, `${name}\u{10FFFF}`, capped(limit)],
  );
  return withCounts(db, rows);
}

/** Every document of the files with this name (or path, or outbox stem), for `edoc-bridge show FILE`: newest file first. */
export async function filesNamed(db: SqlExecutor, name: string): Promise<FileRow[]> {
  return (
    await db.all<RawFile>(
      'SELECT * FROM files WHERE name = ? OR path = ? OR report_name = ? ORDER BY id DESC LIMIT 50',
      [name, name, name],
    )
  ).map(toFileRow);
}

/** Documents by state per company, from the per-file counts (file_counts: never the documents). */
export async function countsByCompany(db: SqlExecutor): Promise<Map<string, StateCounts>> {
  const out = new Map<string, StateCounts>();
  for (const r of await db.all<{
    company: string;
    state: DocumentState;
    n: number;
  }>(`SELECT f.company AS company, c.state AS state,
    CAST(sum(c.n) AS BIGINT) AS n FROM file_counts c JOIN files f ON f.id = c.file_id GROUP BY f.company, c.state`)) {
    let counts = out.get(r.company);
    if (counts === undefined) {
      counts = emptyCounts();
      out.set(r.company, counts);
    }
    counts[r.state] = r.n;
  }
  return out;
}
