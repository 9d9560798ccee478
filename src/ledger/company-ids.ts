/**
 * The service company id each company's files are taken under (kv `company-id:<alias>`), beside the
 * issuer NIT their requests carry: the documents do not record the id, which is added to each request as
 * it leaves. Written when a run of the company starts here or a reload gives it another id (both checked
 * first against the open files: company/taken-under.ts), so while a file of the company has documents to
 * send, this is the id it was taken under; a start or take-over whose configuration gives the alias another
 * id is refused. In a cluster only the holder of the company's lease writes it (the fence).
 */
import { NO_FENCE, type Fence } from './fence.js';
import type { SqlExecutor } from './sql/executor.js';

/** The kv keys' prefix (a ledger copy clears them from an empty target: ledger-copy/copy-ledger.ts). */
export const COMPANY_ID_PREFIX = 'company-id:';
const PREFIX = COMPANY_ID_PREFIX;

/** The recorded id of each of `aliases` that has one. */
export async function companyIds(
  q: SqlExecutor,
  aliases: readonly string[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const alias of aliases) {
    const row = await q.get<{ value: string }>('SELECT value FROM kv WHERE key = ?', [
      PREFIX + alias,
    ]);
    const id = row === undefined ? Number.NaN : Number(row.value);
    if (Number.isInteger(id)) ids.set(alias, id);
  }
  return ids;
}

/** Records the ids the companies' files are taken under from now on (one transaction, only those that change). */
export async function recordCompanyIds(
  q: SqlExecutor,
  companies: readonly { alias: string; id: number }[],
  now: number,
  fence: Fence = NO_FENCE,
): Promise<void> {
  const known = await companyIds(
    q,
    companies.map((c) => c.alias),
  );
  const changed = companies.filter((c) => known.get(c.alias) !== c.id);
  if (changed.length === 0) return;
  await q.transaction(async (tx) => {
    if (fence !== NO_FENCE)
      await fence(
        tx,
        changed.map((c) => c.alias),
      );
    for (const company of changed)
      await tx.run(
        `INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?)
        ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [PREFIX + company.alias, String(company.id), now],
      );
  });
}
