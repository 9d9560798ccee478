/**
 * What the numbering-range watch and the alerts read of the ledger: the highest number of a prefix
 * used within a range, and per company how many documents are in doubt or not yet sent. Each is one
 * indexed read (the key index; the partial indexes on `pending` and on attention states), never a
 * scan of every document.
 */
import type { SqlExecutor } from './sql/executor.js';
import type { CompanyOpenCounts } from './types.js';

/** Jumps over groups of longer keys before a length is read by one scan instead (see `highestOfLength`). */
const MAX_JUMPS = 2_000;

/**
 * Highest number in [from, to] that a document of `company` with `prefix` holds, among `kinds`
 * (keys are `company/kind/prefix/number`, numbers without leading zeros). A document refused
 * locally (`invalid`) was never sent and uses no number. Numbers of one length sort as text like
 * integers, so each length of [from, to] is read downwards on the key index, from the longest.
 */
export async function highestNumberUsed(
  q: SqlExecutor,
  company: string,
  kinds: readonly string[],
  prefix: string,
  from: number,
  to: number,
): Promise<number | undefined> {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to)) || from > to || to < 0)
    return undefined;
  const low = Math.max(from, 0);
  let best: number | undefined;
  for (const kind of kinds) {
    const head = `${company}/${kind}/${prefix}/`;
    for (let digits = String(to).length; digits >= String(low).length; digits--) {
      const lo = Math.max(low, digits === 1 ? 0 : 10 ** (digits - 1));
      const hi = Math.min(to, 10 ** digits - 1);
      if (lo > hi) continue;
      const n = await highestOfLength(q, head, digits, String(lo), String(hi));
      if (n === undefined) continue;
      if (best === undefined || n > best) best = n;
      break; // a longer number is always larger: shorter lengths cannot beat it
    }
  }
  return best;
}

/**
 * The highest `digits`-long number in [lo, hi] under `head`. Keys of other lengths share the text
 * interval (`…/9905` lies between `…/1` and `…/999`), so the read steps down from the top: a longer
 * key `p…` sends it to just after `p` (the longest key that can still be `p` itself), a shorter one
 * or a refused one to just below it. Each step skips a whole group; past MAX_JUMPS groups (numbers of
 * many lengths under one prefix) the length is read by one scan of the interval instead.
 */
async function highestOfLength(
  q: SqlExecutor,
  head: string,
  digits: number,
  lo: string,
  hi: string,
): Promise<number | undefined> {
  // keys compare byte by byte in both backends (PostgreSQL: the column's collation is "C", pg-migrations step 5)
  const floor = head + lo;
  // ' ' sorts before every digit: `head + hi + ' '` is just after `head + hi` and before any longer key starting with it
  let bound = `${head}${hi} `;
  for (let jump = 0; jump < MAX_JUMPS; jump++) {
    const key = (
      await q.get<{ key: string }>(
        'SELECT key FROM documents WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1',
        [floor, bound],
      )
    )?.key;
    if (key === undefined) return undefined;
    const number = key.slice(head.length);
    if (number.length > digits) {
      bound = `${head}${number.slice(0, digits)} `;
    } else if (
      number.length === digits &&
      /^\d+$/.test(number) &&
      (await q.get(`SELECT 1 FROM documents WHERE key = ? AND state <> 'invalid' LIMIT 1`, [
        key,
      ])) !== undefined
    ) {
      return Number(number);
    } else {
      bound = key;
    }
  }
  const n = (
    await q.get<{ n: number | null }>(
      `SELECT max(CAST(substr(key, ?) AS BIGINT)) AS n FROM documents
    WHERE key >= ? AND key < ? AND length(key) = ? AND state <> 'invalid'`,
      [head.length + 1, floor, `${head}${hi} `, head.length + digits],
    )
  )?.n;
  return n ?? undefined;
}

/**
 * Per company, the documents in doubt and (with `withUnsent`) those not sent yet; companies with
 * neither are left out.
 */
export async function openCounts(
  q: SqlExecutor,
  withUnsent: boolean,
): Promise<CompanyOpenCounts[]> {
  const byCompany = new Map<string, CompanyOpenCounts>();
  const entry = (company: string): CompanyOpenCounts => {
    let e = byCompany.get(company);
    if (e === undefined) {
      e = { company, inDoubt: 0, unsent: 0 };
      byCompany.set(company, e);
    }
    return e;
  };
  // documents_attention (state, id) WHERE state IN ('in-doubt','failed'); documents_due is partial on pending;
  // documents_sending (id) WHERE state = 'sending'
  // the state IN (…) term lets SQLite use the partial index (it does not infer it from state = 'in-doubt')
  for (const r of await q.all<{
    company: string;
    n: number;
  }>(`SELECT company, count(*) AS n FROM documents
    WHERE state IN ('in-doubt','failed') AND state = 'in-doubt' GROUP BY company`))
    entry(r.company).inDoubt = r.n;
  if (!withUnsent) return [...byCompany.values()];
  for (const r of await q.all<{
    company: string;
    n: number;
  }>(`SELECT company, count(*) AS n FROM documents WHERE state = 'pending'
    GROUP BY company`))
    entry(r.company).unsent += r.n;
  for (const r of await q.all<{
    company: string;
    n: number;
  }>(`SELECT company, count(*) AS n FROM documents WHERE state = 'sending'
    GROUP BY company`))
    entry(r.company).unsent += r.n;
  return [...byCompany.values()];
}
