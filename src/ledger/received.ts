import { NO_FENCE, type Fence } from './fence.js';
import type { SqlExecutor } from './sql/executor.js';
import type { ReceivedRecord } from './types.js';

/** The received-documents cursor of a company (opaque to the ledger). */
export async function getCursor(q: SqlExecutor, company: string): Promise<string | undefined> {
  return (
    await q.get<{ value: string }>('SELECT value FROM kv WHERE key = ?', [`cursor:${company}`])
  )?.value;
}

/** One statement on behalf of `company`'s puller: in a fenced transaction when there is a fence. */
async function fencedRun(
  q: SqlExecutor,
  fence: Fence,
  company: string,
  sql: string,
  params: readonly unknown[],
): Promise<number> {
  if (fence === NO_FENCE) return (await q.run(sql, params)).changes;
  return q.transaction(async (tx) => {
    await fence(tx, [company]);
    return (await tx.run(sql, params)).changes;
  });
}

export async function setCursor(
  q: SqlExecutor,
  company: string,
  cursor: string,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<void> {
  await fencedRun(
    q,
    fence,
    company,
    `INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?)
    ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    [`cursor:${company}`, cursor, now],
  );
}

/** Remembers the last pull of a company (shown by `edoc-bridge status`). */
export async function recordPull(
  q: SqlExecutor,
  company: string,
  at: number,
  data: unknown,
  fence: Fence = NO_FENCE,
): Promise<void> {
  await fencedRun(
    q,
    fence,
    company,
    `INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?)
    ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    [`pull:${company}`, JSON.stringify({ at, data: data ?? null }), at],
  );
}

export async function seenReceived(
  q: SqlExecutor,
  company: string,
  documentId: string,
): Promise<boolean> {
  return (
    (await q.get('SELECT 1 FROM received WHERE company = ? AND document_id = ?', [
      company,
      documentId,
    ])) !== undefined
  );
}

/** Returns false when the document was already recorded (the first record stands). */
export async function recordReceived(
  q: SqlExecutor,
  r: ReceivedRecord,
  fence: Fence = NO_FENCE,
): Promise<boolean> {
  return (
    (await fencedRun(
      q,
      fence,
      r.company,
      `INSERT INTO received(company, document_id, document_number, document_date, files, at)
    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(company, document_id) DO NOTHING`,
      [
        r.company,
        r.documentId,
        r.documentNumber ?? null,
        r.documentDate ?? null,
        JSON.stringify(r.files),
        r.at,
      ],
    )) === 1
  );
}
