/**
 * A credit, debit or support adjustment note corrects a document that was issued. One whose referenced
 * document the ledger holds only as `rejected` or `invalid` (never issued) would be issued against
 * nothing: it is stored `invalid` with EDOC_LEDGER_REFERENCE_NOT_ISSUED, naming the document and its
 * state. A reference the ledger does not know at all may name a document issued before the bridge: the
 * note is sent with a warning (EDOC_LEDGER_REFERENCE_UNKNOWN) in its log line and in its report's row
 * (`warnings`, kept through its verdicts: due-documents.ts). A referenced document
 * still on its way (pending, sending, failed, in doubt) or issued lets the note go as it is; one held
 * back in another file still being read makes the note wait for that read's end (reference-waits.ts).
 *
 * A document the mapping refused has no request, so no key: the ledger holds it by the ERP's key columns
 * (`erp_key`). Where those columns are the number it would have had (`prefijo` + `numero`, or one cell
 * `SETP990000001`), a note naming that number finds it there, and is held the same way. Documents of the
 * note's own file stored in the same batch are not in the ledger yet: `batch` answers for them.
 *
 * A file refused whole (EDOC_MAP_FORMAT_MISMATCH) keeps no documents, only what they were
 * (`refused_whole_documents`: key or ERP key, and file): a note naming one of them, found nowhere among
 * the documents, is held the same way, naming that file. A document of that number stored since (the
 * corrected export) is found among the documents first and decides alone.
 */
import { numberSplits, referencedKinds, type DocumentKind } from '../kinds/index.js';
import { OTHER_COMPANY } from './other-company.js';
import { makeKey } from './rows.js';
import { textList } from './sql/dialect.js';
import type { Fence } from './fence.js';
import type { SqlExecutor } from './sql/executor.js';
import type { ReportProblem } from './types.js';

export type ReferenceCheck =
  | { notIssued: ReportProblem }
  | { waitsFor: { fileId: number; name: string } }
  | { unknown: string[] }
  | undefined;

const NEVER_ISSUED: ReadonlySet<string> = new Set(['rejected', 'invalid']);

/** The never-issued documents of the batch being stored, by key and by ERP key (insertDocuments). */
export interface BatchNeverIssued {
  keys: Map<string, string>;
  erpKeys: Map<string, string>;
}

/** Key alternatives a mapping may list before the one that names the number (`key: [[a, b], [c]]`). */
const KEY_ALTERNATIVES = 4;

/**
 * The ERP keys (`erp_key`: JSON of the alternative's index and its cells) of a keyless document whose key
 * columns write the number `written`: one cell (`["0","SETP990000001"]`) or prefix and number apart.
 */
export function erpKeysNaming(written: string): string[] {
  const out: string[] = [];
  for (let alt = 0; alt < KEY_ALTERNATIVES; alt++) {
    out.push(JSON.stringify([String(alt), written]));
    for (const split of numberSplits(written)) {
      const at = split.lastIndexOf('/');
      if (at > 0) out.push(JSON.stringify([String(alt), split.slice(0, at), split.slice(at + 1)]));
    }
  }
  return out;
}

/** Held: the referenced document `written` was never issued; `why` says where the ledger has it. */
function held(written: string, why: string, then: string): { notIssued: ReportProblem } {
  return {
    notIssued: {
      code: 'EDOC_LEDGER_REFERENCE_NOT_ISSUED',
      field: 'DocumentReferences',
      value: written,
      message: `Not sent: it references ${written}, ${why}: it was never issued, so there is nothing for this note to correct. ${then}`,
    },
  };
}

function notIssued(written: string, state: string, name: string): { notIssued: ReportProblem } {
  return held(
    written,
    `which the ledger holds as ${state} (${name})`,
    'Issue the corrected document itself, or reference the document that was issued.',
  );
}

function refusedWhole(written: string, name: string): { notIssued: ReportProblem } {
  return held(
    written,
    `which was in ${name}, a file refused whole (EDOC_MAP_FORMAT_MISMATCH)`,
    'Drop the corrected export first, then this note again.',
  );
}

/** The file refused whole that held a document of one of `keys` (or, keyless, of one of `erpKeys`), newest first. */
async function refusedWholeFile(
  tx: SqlExecutor,
  company: string,
  kinds: readonly DocumentKind[],
  keys: readonly string[],
  erpKeys: readonly string[],
): Promise<string | undefined> {
  const list = textList(tx, keys);
  const byKey = await tx.get<{ name: string }>(
    `SELECT f.name FROM refused_whole_documents r JOIN files f ON f.id = r.file_id
    WHERE r.key IN ${list.sql} ORDER BY r.file_id DESC LIMIT 1`,
    [list.param],
  );
  if (byKey !== undefined) return byKey.name;
  const kindList = textList(tx, kinds);
  const erpList = textList(tx, erpKeys);
  const byErp = await tx.get<{ name: string }>(
    `SELECT f.name FROM refused_whole_documents r JOIN files f ON f.id = r.file_id
    WHERE r.company = ? AND r.kind IN ${kindList.sql} AND r.erp_key IN ${erpList.sql}
    AND r.erp_key IS NOT NULL AND r.key IS NULL ORDER BY r.file_id DESC LIMIT 1`,
    [company, kindList.param, erpList.param],
  );
  return byErp?.name;
}

type DocumentRow = { state: string; name: string; file_id: number; file_state: string };

/** What the ledger says of one reference: never issued, held back in a file still read, unknown, or known. */
type OneReference =
  | { notIssued: ReportProblem }
  | { waitsFor: { fileId: number; name: string } }
  | 'unknown'
  | 'known';

async function checkOne(
  tx: SqlExecutor,
  company: string,
  kinds: readonly DocumentKind[],
  written: string,
  batch: BatchNeverIssued | undefined,
  ownFile: number | undefined,
): Promise<OneReference> {
  const keys = numberSplits(written).flatMap((n) => kinds.map((k) => makeKey(company, k, n)));
  if (keys.length === 0) return 'unknown';
  const columns = 'd.state, f.name, f.id AS file_id, f.state AS file_state';
  const list = textList(tx, keys);
  let rows = await tx.all<DocumentRow>(
    `SELECT ${columns} FROM documents d JOIN files f ON f.id = d.file_id
    WHERE d.key IN ${list.sql} ORDER BY d.id DESC`,
    [list.param],
  );
  if (rows.length === 0) {
    const erpKeys = erpKeysNaming(written);
    const kindList = textList(tx, kinds);
    const erpList = textList(tx, erpKeys);
    rows = await tx.all<DocumentRow>(
      `SELECT ${columns} FROM documents d JOIN files f ON f.id = d.file_id
      WHERE d.company = ? AND d.kind IN ${kindList.sql} AND d.erp_key IN ${erpList.sql}
      AND d.erp_key IS NOT NULL AND d.key IS NULL ORDER BY d.id DESC`,
      [company, kindList.param, erpList.param],
    );
    const inBatch = [
      ...keys.map((k) => batch?.keys.get(k)),
      ...erpKeys.flatMap((e) => kinds.map((k) => batch?.erpKeys.get(JSON.stringify([k, e])))),
    ].find((n) => n !== undefined);
    if (rows.length === 0 && inBatch !== undefined) return notIssued(written, 'invalid', inBatch);
    const refused =
      rows.length === 0 ? await refusedWholeFile(tx, company, kinds, keys, erpKeys) : undefined;
    if (refused !== undefined) return refusedWhole(written, refused);
  }
  if (rows.length === 0)
    return (await otherCompanyIssued(tx, company, kinds, written)) ?? 'unknown';
  const live = rows.filter((r) => !NEVER_ISSUED.has(r.state));
  if (live.length === 0) return notIssued(written, rows[0].state, rows[0].name);
  // held back in another file still being read: what becomes of it is known once that read ends
  // (released, invalid, or removed with the file refused whole); the note's own file shares its fate
  if (live.some((r) => r.file_state !== 'reading' || r.file_id === ownFile)) return 'known';
  return { waitsFor: { fileId: live[0].file_id, name: live[0].name } };
}

/**
 * A reference its own company's documents do not know, issued (or on its way) under another company of
 * this ledger: the note was most likely dropped in the wrong company's folder, and sent it would be issued
 * by that company against another's invoice. Held like an export taken for another company
 * (EDOC_LEDGER_OTHER_COMPANY), released with `retry --document KEY --other-company` when the company
 * really issued that number too (two companies may share a prefix, before the bridge was installed).
 */
async function otherCompanyIssued(
  tx: SqlExecutor,
  company: string,
  kinds: readonly DocumentKind[],
  written: string,
): Promise<{ notIssued: ReportProblem } | undefined> {
  // the companies of the ledger, one index step each (files_content), not a scan of its files
  const companies = (
    await tx.all<{ company: string }>(
      `WITH RECURSIVE c(company) AS (SELECT min(company) FROM files
      UNION ALL SELECT (SELECT min(company) FROM files WHERE company > c.company) FROM c
      WHERE c.company IS NOT NULL) SELECT company FROM c WHERE company IS NOT NULL`,
    )
  )
    .map((r) => r.company)
    .filter((c) => c !== company);
  const keys = companies.flatMap((c) =>
    numberSplits(written).flatMap((n) => kinds.map((k) => makeKey(c, k, n))),
  );
  if (keys.length === 0) return undefined;
  const list = textList(tx, keys);
  const other = await tx.get<{ company: string; name: string }>(
    `SELECT d.company, f.name FROM documents d JOIN files f ON f.id = d.file_id
    WHERE d.key IN ${list.sql} AND d.state NOT IN ('rejected', 'invalid') ORDER BY d.id DESC LIMIT 1`,
    [list.param],
  );
  if (other === undefined) return undefined;
  return {
    notIssued: {
      code: OTHER_COMPANY,
      field: 'DocumentReferences',
      value: written,
      message:
        `Not sent: it references ${written}, which company ${other.company} issued (${other.name}), not ${company}: ` +
        `the note seems dropped in ${company}'s folder instead of ${other.company}'s, and sent it would be issued by ` +
        `${company}. Drop it in ${other.company}'s folder. If ${company} issued a document under that number too, ` +
        'release it: edoc-bridge retry --document KEY --other-company.',
    },
  };
}

/**
 * `ownFile`: the note's file, whose documents held back do not make it wait. A note told to wait is
 * stored held back beside a `reference_waits` row (reference-waits.ts).
 */
export async function checkReferences(
  tx: SqlExecutor,
  company: string,
  kind: DocumentKind,
  references: readonly string[] | undefined,
  batch?: BatchNeverIssued,
  ownFile?: number,
): Promise<ReferenceCheck> {
  const kinds = referencedKinds(kind);
  if (references === undefined || references.length === 0 || kinds.length === 0) return undefined;
  const unknown: string[] = [];
  let waits: { fileId: number; name: string } | undefined;
  let locked = false;
  for (const written of references) {
    for (;;) {
      const one = await checkOne(tx, company, kinds, written, batch, ownFile);
      if (one === 'unknown') unknown.push(written);
      if (typeof one !== 'object') break;
      if ('notIssued' in one) return one;
      // a wait is decided under the company's lock, which the end of every read takes before it
      // releases or settles anything: looked at again once it is held
      if (!locked) {
        await lockWaits(tx, company);
        locked = true;
        continue;
      }
      waits ??= one.waitsFor;
      break;
    }
  }
  if (waits !== undefined) return { waitsFor: waits };
  return unknown.length > 0 ? { unknown } : undefined;
}

/**
 * PostgreSQL: one transaction at a time per company decides that a note waits, or ends a read (releasing
 * its documents and settling the notes that waited for it), until it commits. Without it a read ending on
 * another connection between a note's look at its file and the wait's row would never settle that wait.
 * Taken after the lease fence, in every such transaction, so the two locks are always taken in one order.
 * SQLite runs one write transaction at a time already.
 */
export async function lockWaits(tx: SqlExecutor, company: string): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  await tx.get(`SELECT pg_advisory_xact_lock(hashtext(?)) AS locked`, [
    `edoc reference waits ${company}`,
  ]);
}

/**
 * The warning a note sent with a reference the ledger did not know carries in its report: the code, and
 * what the operator checks. It says nothing of what the service does with such a note (the spec decides).
 */
export function unknownReferenceWarning(kind: DocumentKind, references: readonly string[]): string {
  const what = kind === 'support-adjustment' ? 'support document' : 'invoice';
  return (
    `EDOC_LEDGER_REFERENCE_UNKNOWN: it references ${references.join(', ')}, which the bridge did not know when it ` +
    `took this note (the ${what} may have been issued before the bridge was installed); the note is sent as it is. ` +
    `If the ${what}'s file was dropped after this note's, check the order of the exports: the ${what} should reach ` +
    'the inbox before the notes that correct it.'
  );
}

/**
 * Stores the warnings of a file's notes whose references the ledger did not know (`warnings`, by index),
 * before they can be sent: a file's documents are held back until it is read whole.
 */
export async function warnUnknownReferences(
  q: SqlExecutor,
  fileId: number,
  warnings: readonly { index: number; warning: string }[],
  fence: Fence,
): Promise<void> {
  if (warnings.length === 0) return;
  await q.transaction(async (tx) => {
    const file = await tx.get<{ company: string }>('SELECT company FROM files WHERE id = ?', [
      fileId,
    ]);
    for (const w of warnings)
      await tx.run(
        `UPDATE documents SET warnings = ? WHERE file_id = ? AND idx = ? AND state = 'pending'
        AND warnings IS NULL`,
        [JSON.stringify([w.warning]), fileId, w.index],
      );
    if (file !== undefined) await fence(tx, [file.company]);
  });
}
