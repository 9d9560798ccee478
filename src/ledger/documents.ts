/**
 * A file's documents stored at intake: each planned pending, invalid (problems) or duplicate (its key
 * already accepted), then inserted (insert-document-rows.ts). The sender's reads are in
 * due-documents.ts; sending, verdicts and recovery in sending.ts.
 */
import { parseKind } from '../kinds/index.js';
import { NO_FENCE, type Fence } from './fence.js';
import { addEvents, type LedgerEvent } from './events.js';
import { earlierCopyLookup } from './resend.js';
import { ISSUED_COLUMNS, otherContentProblem, type IssuedRow } from './issued-content.js';
import { checkReferences, type BatchNeverIssued } from './note-references.js';
import { recordWait } from './reference-waits.js';
import { acceptedErpKeys, erpKeyDuplicate, erpKeyOf } from './erp-keys.js';
import { otherCompanyHold } from './other-company.js';
import { makeKey } from './rows.js';
import { textList } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import { insertRows, type PlannedDocument } from './insert-document-rows.js';
import type { InsertResult, NewDocument, ReportProblem } from './types.js';

const INSERT_BATCH = 1000;

/**
 * Stores a file's documents, ~1000 per transaction (one fsync each). Indexes already stored are
 * ignored (a file whose reading was cut is read again from its start after `readAgain` removed what
 * the cut read stored, file-reading.ts, so one read under one mapping makes them all). A document with problems
 * is stored `invalid`; one whose key was already accepted is stored `duplicate` — neither is sent.
 * A pending document is stored held back (no `next_attempt_at`, so `claimDue` never sees it): the
 * file's documents become due together in `finishReading`, once the whole file was read and found
 * unchanged — no document may leave from content that is not the file's final content.
 */
export async function insertDocuments(
  q: SqlExecutor,
  fileId: number,
  docs: Iterable<NewDocument> | AsyncIterable<NewDocument>,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<InsertResult> {
  const file = await q.get<{ company: string; kind: string; name: string }>(
    'SELECT company, kind, name FROM files WHERE id = ?',
    [fileId],
  );
  if (!file) throw new Error(`insertDocuments: no file ${fileId}`);
  const result: InsertResult = { inserted: 0, invalid: 0, duplicate: 0 };
  const kind = parseKind(file.kind, `ledger file ${fileId}`);
  // the same content taken before (a resend): a document's earlier copy decides whether it may go again
  const earlier = await earlierCopyLookup(q, fileId);
  // the same content taken for another company: every document that could go is held (other-company.ts)
  const hold = await otherCompanyHold(q, fileId);
  const write = (batch: NewDocument[]): Promise<void> =>
    q.transaction(async (tx) => {
      await fence(tx, [file.company]);
      const keyOf = (d: NewDocument): string | null =>
        d.number ? makeKey(file.company, d.kind ?? file.kind, d.number) : null;
      const hasProblems = (d: NewDocument): boolean =>
        d.problems !== undefined && d.problems.length > 0;
      // one read for the batch: which of its keys were accepted already
      const accepted = await acceptedKeys(
        tx,
        batch
          .filter((d) => !hasProblems(d))
          .map(keyOf)
          .filter((k): k is string => k !== null),
      );
      // and which of its ERP keys (documents the service numbers: erp-keys.ts)
      const erpKeyOfDoc = (d: NewDocument): string | undefined =>
        d.erpKey === undefined ? undefined : erpKeyOf(file.company, d.kind ?? file.kind, d.erpKey);
      const acceptedErp = await acceptedErpKeys(
        tx,
        file.company,
        batch
          .filter((d) => !hasProblems(d) && d.erpKey !== undefined)
          .map((d) => ({ kind: d.kind ?? file.kind, erpKey: d.erpKey! })),
      );
      const planned: PlannedDocument[] = [];
      // the batch's documents refused so far: a note after them in the file finds them (note-references.ts)
      const refused: BatchNeverIssued = { keys: new Map(), erpKeys: new Map() };
      // notes naming a document held back in another file still being read, by index: that file's id
      const waits = new Map<number, number>();
      for (const d of batch) {
        const key = keyOf(d);
        let problems: ReportProblem[] | null = hasProblems(d) ? d.problems! : null;
        const erpKey = erpKeyOfDoc(d);
        const dupOf =
          !problems && key
            ? accepted.get(key)
            : !problems && erpKey !== undefined
              ? acceptedErp.get(erpKey)
              : undefined;
        const copy =
          !problems && !dupOf && earlier
            ? await earlier(tx, d.index, d.raw, d.ownNumber === true)
            : undefined;
        // a note whose referenced document the ledger holds as never issued is held (note-references.ts)
        const ref =
          !problems && !dupOf && copy === undefined
            ? await checkReferences(tx, file.company, d.kind ?? kind, d.references, refused, fileId)
            : undefined;
        if (ref !== undefined)
          (result.byReference ??= []).push({
            index: d.index,
            ...('notIssued' in ref
              ? {
                  notIssued: ref.notIssued.message,
                  ...(ref.notIssued.code === 'EDOC_LEDGER_REFERENCE_NOT_ISSUED'
                    ? {}
                    : { notIssuedCode: ref.notIssued.code }),
                }
              : 'waitsFor' in ref
                ? { waitsFor: ref.waitsFor.name }
                : ref),
          });
        if (ref !== undefined && 'waitsFor' in ref) waits.set(d.index, ref.waitsFor.fileId);
        if (ref !== undefined && 'notIssued' in ref) problems = [ref.notIssued];
        if (hold !== undefined && !problems && !dupOf && copy === undefined) {
          problems = [hold];
          (result.heldForOtherCompany ??= { count: 0, message: hold.message }).count++;
        }
        const state =
          problems || copy === 'open'
            ? 'invalid'
            : dupOf || copy === 'accepted'
              ? 'duplicate'
              : 'pending';
        // the number was issued: the same content is a quiet duplicate, other content (a corrected re-export) needs a person
        const byErp =
          dupOf && !key && d.erpKey !== undefined
            ? await erpKeyDuplicate(tx, dupOf, {
                source: d.source,
                erpKey: d.erpKey,
                content: d.content,
              })
            : undefined;
        const other =
          byErp !== undefined
            ? byErp.otherContent
              ? byErp.problem
              : undefined
            : dupOf
              ? await otherContentProblem(tx, dupOf, d.content)
              : undefined;
        const errors = other
          ? [other]
          : byErp
            ? [byErp.problem]
            : dupOf
              ? [
                  {
                    code: 'EDOC_LEDGER_DUPLICATE_KEY',
                    message: `${d.number} was already accepted; not sent again.`,
                  },
                ]
              : copy === undefined
                ? null
                : [earlierCopyError(copy)];
        planned.push({ d, key, state, problems, errors, dupOf, copy, other: other?.message });
        if (problems !== null) {
          if (key !== null) refused.keys.set(key, file.name);
          if (d.erpKey !== undefined)
            refused.erpKeys.set(JSON.stringify([d.kind ?? file.kind, d.erpKey]), file.name);
        }
      }
      const ids = await insertRows(tx, fileId, file, planned, now);
      let first: number | undefined;
      let last: number | undefined;
      const added = { pending: 0, invalid: 0, duplicate: 0 };
      const events: LedgerEvent[] = [];
      for (const { d, key, state, dupOf, copy, other } of planned) {
        const id = ids.get(d.index);
        if (id === undefined) continue;
        first ??= d.index;
        last = d.index;
        result.inserted++;
        added[state]++;
        if (state === 'invalid') result.invalid++;
        const waitsFor = state === 'pending' ? waits.get(d.index) : undefined;
        if (waitsFor !== undefined)
          await recordWait(tx, { fileId, index: d.index }, waitsFor, d.references ?? []);
        if (dupOf) {
          result.duplicate++;
          (result.byAcceptedKey ??= []).push({
            index: d.index,
            fileId: dupOf.file_id,
            ...(other === undefined ? {} : { otherContent: other }),
          });
          events.push({
            at: now,
            type: 'duplicate-key',
            fileId,
            documentId: id,
            data: {
              ...(key === null ? { erpKey: d.erpKey } : { key }),
              acceptedDocument: dupOf.id,
              ...(other === undefined ? {} : { otherContent: true }),
            },
          });
        } else if (copy !== undefined) {
          if (copy === 'accepted') result.duplicate++;
          (result.byEarlierCopy ??= []).push({
            index: d.index,
            state: copy === 'accepted' ? 'duplicate' : 'invalid',
          });
          events.push({
            at: now,
            type: 'earlier-copy',
            fileId,
            documentId: id,
            data: { earlierCopy: copy },
          });
        }
      }
      for (const [state, n] of Object.entries(added)) {
        if (n > 0) {
          await tx.run(
            `INSERT INTO file_counts(file_id, state, n) VALUES (?, ?, ?)
          ON CONFLICT(file_id, state) DO UPDATE SET n = file_counts.n + excluded.n`,
            [fileId, state, n],
          );
        }
      }
      if (first !== undefined)
        events.push({
          at: now,
          type: 'documents-added',
          fileId,
          documentId: null,
          data: { from: first, to: last },
        });
      await addEvents(tx, events);
    });
  let batch: NewDocument[] = [];
  const flush = async (): Promise<void> => {
    const full = batch;
    batch = [];
    await write(full);
  };
  if (Symbol.asyncIterator in docs) {
    for await (const d of docs) {
      batch.push(d);
      if (batch.length >= INSERT_BATCH) await flush();
    }
  } else {
    for (const d of docs) {
      batch.push(d);
      if (batch.length >= INSERT_BATCH) await flush();
    }
  }
  if (batch.length > 0) await flush();
  return result;
}

function earlierCopyError(copy: 'accepted' | 'open'): { code: string; message: string } {
  return copy === 'accepted'
    ? {
        code: 'EDOC_LEDGER_DUPLICATE_DOCUMENT',
        message:
          'This document was accepted when the same file content (or this file before it changed) ' +
          'was taken before; not sent again.',
      }
    : {
        code: 'EDOC_LEDGER_EARLIER_COPY_OPEN',
        message:
          'Not sent: this document of the same file content taken before is not final ' +
          '(pending, failed or in-doubt); settle it there first (edoc-bridge status, retry, resolve), then resend.',
      };
}

/** The accepted document holding each of `keys` (the oldest, should there be two), in one statement. */
async function acceptedKeys(
  tx: SqlExecutor,
  keys: readonly string[],
): Promise<Map<string, IssuedRow>> {
  const out = new Map<string, IssuedRow>();
  if (keys.length === 0) return out;
  const list = textList(tx, keys);
  for (const r of await tx.all<IssuedRow>(
    `SELECT ${ISSUED_COLUMNS} FROM documents a JOIN files af ON af.id = a.file_id
    WHERE a.key IN ${list.sql} AND a.state = 'accepted' ORDER BY a.id`,
    [list.param],
  ))
    if (!out.has(r.key)) out.set(r.key, r);
  return out;
}
