/**
 * What the numbering-range watch and the alerts read of the ledger: the highest number of a prefix
 * used within a range, and per company how many documents are in doubt or not yet sent. Each is one
 * indexed read (the key index; the partial indexes on `pending` and on attention states), never a
 * scan of every document.
 */
import type Database from 'better-sqlite3';
import { stmt } from './rows.js';
import type { CompanyOpenCounts } from './types.js';

/**
 * Highest number in [from, to] that a document of `company` with `prefix` holds, among `kinds`
 * (keys are `company/kind/prefix/number`, numbers without leading zeros). A document refused
 * locally (`invalid`) was never sent and uses no number. Numbers of one length sort as text like
 * integers, so each length of [from, to] is one descending range read on the key index; keys of
 * other lengths in between are skipped by the length test.
 */
export function highestNumberUsed(db: Database.Database, company: string, kinds: readonly string[], prefix: string,
  from: number, to: number): number | undefined {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to)) || from > to || to < 0) return undefined;
  const low = Math.max(from, 0);
  const read = stmt(db, `SELECT key FROM documents WHERE key >= ? AND key <= ? AND length(key) = ? AND state <> 'invalid'
    ORDER BY key DESC LIMIT 1`).pluck();
  let best: number | undefined;
  for (const kind of kinds) {
    const head = `${company}/${kind}/${prefix}/`;
    for (let digits = String(to).length; digits >= String(low).length; digits--) {
      const lo = Math.max(low, digits === 1 ? 0 : 10 ** (digits - 1));
      const hi = Math.min(to, 10 ** digits - 1);
      if (lo > hi) continue;
      const key = read.get(head + String(lo), head + String(hi), head.length + digits) as string | undefined;
      if (key === undefined) continue;
      const n = Number(key.slice(head.length));
      if (best === undefined || n > best) best = n;
      break; // a longer number is always larger: shorter lengths cannot beat it
    }
  }
  return best;
}

/**
 * Per company, the documents in doubt and (with `withUnsent`) those not sent yet; companies with
 * neither are left out.
 */
export function openCounts(db: Database.Database, withUnsent: boolean): CompanyOpenCounts[] {
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
  for (const r of stmt(db, `SELECT company, count(*) AS n FROM documents WHERE state = 'in-doubt' GROUP BY company`)
    .all() as { company: string; n: number }[]) entry(r.company).inDoubt = r.n;
  if (!withUnsent) return [...byCompany.values()];
  for (const r of stmt(db, `SELECT company, count(*) AS n FROM documents WHERE state = 'pending' GROUP BY company`)
    .all() as { company: string; n: number }[]) entry(r.company).unsent += r.n;
  for (const r of stmt(db, `SELECT company, count(*) AS n FROM documents WHERE state = 'sending' GROUP BY company`)
    .all() as { company: string; n: number }[]) entry(r.company).unsent += r.n;
  return [...byCompany.values()];
}
