/**
 * The batched INSERT of a file's planned documents and their bodies, as intake (documents.ts) decided
 * them; an index stored already is left as it is.
 */
import type { EarlierCopy } from './resend.js';
import type { IssuedRow } from './issued-content.js';
import { json } from './rows.js';
import { idList } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import type { NewDocument } from './types.js';

/**
 * `document_bodies.request_is_raw`: 0 the request's text is `request`, made by `JSON.stringify`; 1 it is
 * `raw` (JSON, JSONL inputs), stored once; RAW_EXACT it is `raw`, and `raw` is exactly what `JSON.stringify`
 * makes of it (intake compared the two). 0 and RAW_EXACT texts are sent as they are stored.
 */
const RAW_EXACT = 2;

export interface PlannedDocument {
  d: NewDocument;
  key: string | null;
  state: 'pending' | 'invalid' | 'duplicate';
  problems: unknown[] | null;
  errors: unknown[] | null;
  dupOf: IssuedRow | undefined;
  copy: EarlierCopy;
  /** EDOC_ISSUED_OTHER_CONTENT's message: what was issued under its number differs from it. */
  other: string | undefined;
}

/** An inserted row whose id was not read (SQLite: only rows with an event need it). */
const NO_ID = 0;

/**
 * Inserts the planned rows with their bodies; an index stored already is left as it is. Returns the new
 * ids by index (NO_ID where no event needs it). SQLite, in process, inserts row by row in two calls for the batch (runMany);
 * PostgreSQL inserts the batch in two statements (a round trip per document would be most of an intake's time).
 */
export async function insertRows(
  tx: SqlExecutor,
  fileId: number,
  file: { company: string; kind: string },
  rows: readonly PlannedDocument[],
  now: number,
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  const values = rows.map(
    ({ d, key, state, problems, errors }) =>
      [
        fileId,
        d.index,
        file.company,
        d.kind ?? file.kind,
        JSON.stringify(d.source),
        key,
        d.ownNumber ? 1 : 0,
        state,
        json(problems),
        json(errors),
        now,
        d.customer ?? null,
        d.content ?? null,
        d.erpKey ?? null,
      ] as const,
  );
  const body = (d: NewDocument): [string | null, string, number] => {
    const fromRaw = d.requestFromRaw === true;
    return [
      fromRaw ? null : (d.requestText ?? json(d.request)),
      d.raw,
      fromRaw ? (d.rawIsRequestText === true ? RAW_EXACT : 1) : 0,
    ];
  };
  if (tx.dialect === 'sqlite') {
    // a statement per row, but one call per batch (runMany): two awaited calls per document were a fifth of the
    // intake's ledger time. No RETURNING: SQLite collects a RETURNING statement's rows before it answers.
    const changed = await tx.runMany(
      `INSERT INTO documents(file_id, idx, company, kind, source, key, own_number, state,
      attempts, next_attempt_at, problems, errors, updated_at, customer, content, erp_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(file_id, idx) DO NOTHING`,
      values,
    );
    const stored = rows.filter((_, i) => changed[i].changes > 0);
    if (stored.length === 0) return ids;
    // each body finds its row by (file_id, idx), the unique key the insert just used
    await tx.runMany(
      `INSERT INTO document_bodies(id, request, raw, request_is_raw)
      SELECT id, ?, ?, ? FROM documents WHERE file_id = ? AND idx = ?`,
      stored.map((r) => [...body(r.d), fileId, r.d.index]),
    );
    // the id itself is read only for the rows with an event (a duplicate key, an earlier copy): rare
    const withEvent = stored.filter((r) => r.dupOf || r.copy !== undefined).map((r) => r.d.index);
    const evented = new Map<number, number>();
    if (withEvent.length > 0) {
      const list = idList(tx, withEvent);
      for (const r of await tx.all<{ id: number; idx: number }>(
        `SELECT id, idx FROM documents WHERE file_id = ? AND idx IN ${list.sql}`,
        [fileId, list.param],
      ))
        evented.set(r.idx, r.id);
    }
    for (const r of stored) ids.set(r.d.index, evented.get(r.d.index) ?? NO_ID);
    return ids;
  }
  const column = (k: number): unknown[] => values.map((v) => v[k]);
  const inserted = await tx.all<{ id: number; idx: number }>(
    `INSERT INTO documents(file_id, idx, company, kind, source, key, own_number,
    state, attempts, next_attempt_at, problems, errors, updated_at, customer, content, erp_key)
    SELECT f, i, c, k, s, ky, o, st, 0, NULL, p, e, u, cu, ct, ek FROM unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]),
      CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS SMALLINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),
      CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]))
      AS v(f, i, c, k, s, ky, o, st, p, e, u, cu, ct, ek)
    ON CONFLICT(file_id, idx) DO NOTHING RETURNING id, idx`,
    Array.from({ length: 14 }, (_, k) => column(k)),
  );
  for (const r of inserted) ids.set(r.idx, r.id);
  const stored = rows.filter((r) => ids.has(r.d.index));
  if (stored.length > 0) {
    const bodies = stored.map((r) => body(r.d));
    await tx.run(
      `INSERT INTO document_bodies(id, request, raw, request_is_raw) SELECT * FROM unnest(CAST(? AS BIGINT[]),
      CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS SMALLINT[]))`,
      [
        stored.map((r) => ids.get(r.d.index)),
        bodies.map((b) => b[0]),
        bodies.map((b) => b[1]),
        bodies.map((b) => b[2]),
      ],
    );
  }
  return ids;
}
