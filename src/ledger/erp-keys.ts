/**
 * A document the service numbers has no number of its own to dedupe by: the ERP's key for it (the mapping's
 * key columns: a receipt's number, a support document's `documento`) stands in. Within a company and kind,
 * one ERP key is one document: a copy of it in a later export (POS exports by overlapping date ranges) is
 * `duplicate` once the first was accepted, naming the file and the number it was issued under, or
 * EDOC_ISSUED_OTHER_CONTENT when its content differs; and it is never sent while another document with its
 * key is being sent or may have been issued (in doubt). Intake settles what was accepted already; the
 * `sending` mark (sending.ts) settles the rest in the transaction that claims the document, so two files
 * holding one key at once never both send. A mapping with `keyRepeats: true` gives no ERP key (an ERP
 * whose counter restarts).
 */
import { ISSUED_COLUMNS, otherContentProblem, type IssuedRow } from './issued-content.js';
import { addEvent } from './events.js';
import { parse } from './rows.js';
import { idList, textList } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import type { ReportProblem } from './types.js';

export const DUPLICATE_ERP_KEY = 'EDOC_LEDGER_DUPLICATE_ERP_KEY';

/** How long a document waits while another one with its ERP key is in doubt (settled by a person). */
export const ERP_KEY_IN_DOUBT_DELAY_MS = 60_000;

/** `company`, `kind` and ERP key as one map key. */
export function erpKeyOf(company: string, kind: string, erpKey: string): string {
  return JSON.stringify([company, kind, erpKey]);
}

/** The accepted document of each (kind, ERP key) of a company (the oldest, should there be two). */
export async function acceptedErpKeys(
  tx: SqlExecutor,
  company: string,
  wanted: readonly { kind: string; erpKey: string }[],
): Promise<Map<string, IssuedRow>> {
  const out = new Map<string, IssuedRow>();
  const byKind = new Map<string, Set<string>>();
  for (const w of wanted) {
    let keys = byKind.get(w.kind);
    if (keys === undefined) byKind.set(w.kind, (keys = new Set()));
    keys.add(w.erpKey);
  }
  // one statement per kind in the batch (one, but for a routed export): the index is (company, kind, erp_key)
  for (const [kind, keys] of byKind) {
    const list = textList(tx, keys);
    for (const r of await tx.all<IssuedRow & { erp_key: string }>(
      `SELECT ${ISSUED_COLUMNS}, a.erp_key FROM documents a JOIN files af ON af.id = a.file_id
      WHERE a.company = ? AND a.kind = ? AND a.erp_key IN ${list.sql} AND a.state = 'accepted' ORDER BY a.id`,
      [company, kind, list.param],
    )) {
      const k = erpKeyOf(company, r.kind, r.erp_key);
      if (!out.has(k)) out.set(k, r);
    }
  }
  return out;
}

/** The key the ERP wrote, as result.json shows it (`source.erpKey`), else its stored form. */
function shownKey(source: unknown, erpKey: string): string {
  const shown = (source as { erpKey?: unknown } | null)?.erpKey;
  if (typeof shown === 'string') return shown;
  const parts = parse<string[]>(erpKey, []);
  return parts.slice(1).join(' ');
}

/** The number an accepted document was issued under (`POS4`), from its ledger key; undefined when not recorded. */
function issuedNumber(issued: IssuedRow): string | undefined {
  const parts = issued.key?.split('/') ?? [];
  return parts.length > 2 ? parts.slice(2).join('') : undefined;
}

/** The problem of a document whose ERP key was accepted as `issued`: other content, or a plain duplicate. */
export async function erpKeyDuplicate(
  tx: SqlExecutor,
  issued: IssuedRow,
  doc: { source: unknown; erpKey: string; content: string | null | undefined },
): Promise<{ problem: ReportProblem; otherContent: boolean }> {
  const other = await otherContentProblem(tx, issued, doc.content);
  if (other !== undefined) return { problem: other, otherContent: true };
  const number = issuedNumber(issued);
  return {
    otherContent: false,
    problem: {
      code: DUPLICATE_ERP_KEY,
      message:
        `The document with ERP key ${shownKey(doc.source, doc.erpKey)} was issued already` +
        (number === undefined ? '' : ` as ${number}`) +
        ` (accepted from ${issued.file_name}); not sent again.`,
    },
  };
}

/** What the mark of a document with an ERP key found: accepted (a duplicate), busy (wait), or free. */
export type ErpKeyState =
  | { readonly to: 'accepted'; readonly issued: IssuedRow }
  | { readonly to: 'sending' | 'in-doubt' }
  | undefined;

/**
 * For each of `ids` that has an ERP key: another document with it accepted, being sent, or possibly issued
 * (an attempt may have reached the service and no verdict settled it). On PostgreSQL every document
 * sharing those keys is locked first, in id order: a concurrent mark of one of them waits for this
 * transaction and then reads what it committed (READ COMMITTED: a new statement, a new snapshot).
 */
export async function erpKeyStates(
  tx: SqlExecutor,
  ids: readonly number[],
): Promise<Map<number, ErpKeyState>> {
  const list = idList(tx, ids);
  const out = new Map<number, ErpKeyState>();
  if (tx.dialect === 'postgres') {
    await tx.all(
      `SELECT s.id FROM documents s WHERE s.erp_key IS NOT NULL AND (s.company, s.kind, s.erp_key) IN
      (SELECT company, kind, erp_key FROM documents WHERE id IN ${list.sql} AND erp_key IS NOT NULL)
      ORDER BY s.id FOR UPDATE OF s`,
      [list.param],
    );
  }
  const rows = await tx.all<{ id: number; other: number; state: string; maybe: number }>(
    `SELECT d.id, s.id AS other, s.state, s.maybe_delivered AS maybe FROM documents d
    JOIN documents s ON s.company = d.company AND s.kind = d.kind AND s.erp_key = d.erp_key AND s.id <> d.id
    WHERE d.id IN ${list.sql} AND d.erp_key IS NOT NULL
      AND (s.state IN ('accepted', 'sending') OR (s.maybe_delivered = 1 AND s.state NOT IN ('rejected', 'duplicate', 'invalid')))
    ORDER BY d.id, s.id`,
    [list.param],
  );
  for (const r of rows) {
    const now = out.get(r.id);
    if (now?.to === 'accepted') continue;
    if (r.state === 'accepted') {
      const issued = await tx.get<IssuedRow>(
        `SELECT ${ISSUED_COLUMNS} FROM documents a JOIN files af ON af.id = a.file_id WHERE a.id = ?`,
        [r.other],
      );
      if (issued !== undefined) out.set(r.id, { to: 'accepted', issued });
    } else if (r.state === 'sending') out.set(r.id, { to: 'sending' });
    else if (now === undefined) out.set(r.id, { to: 'in-doubt' });
  }
  return out;
}

/**
 * At the `sending` mark: document `d`, whose ERP key `issued` holds as accepted, becomes `duplicate` (with
 * its event). Returns EDOC_ISSUED_OTHER_CONTENT's message when its content differs from what was issued.
 */
export async function settleErpKeyDuplicate(
  tx: SqlExecutor,
  now: number,
  d: { id: number; file_id: number; erp_key: string; source: string; content: string | null },
  issued: IssuedRow,
): Promise<string | undefined> {
  const { problem, otherContent } = await erpKeyDuplicate(tx, issued, {
    source: parse<unknown>(d.source, null),
    erpKey: d.erp_key,
    content: d.content,
  });
  await tx.run(
    `UPDATE documents SET state = 'duplicate', errors = ?, updated_at = ? WHERE id = ?`,
    [JSON.stringify([problem]), now, d.id],
  );
  await addEvent(tx, now, 'duplicate-key', d.file_id, d.id, {
    erpKey: d.erp_key,
    acceptedDocument: issued.id,
    ...(otherContent ? { otherContent: true } : {}),
  });
  return otherContent ? problem.message : undefined;
}
