/**
 * One batch of a file's documents into the ledger (intake.ts): the numbering-range check of their own
 * numbers, the insert, and the final log line of those settled at intake (invalid, a copy of an issued
 * document, a note whose referenced document is never issued), which never reach a sender.
 */
import type { DocumentKey } from '../kinds/document-key.js';
import type { LedgerPort } from '../ledger/port.js';
import { unknownReferenceWarning } from '../ledger/note-references.js';
import { makeKey } from '../ledger/rows.js';
import type { NewDocument } from '../ledger/types.js';
import { logDocumentFinal } from '../log/document-final.js';
import { formatPositions } from '../report/errors-csv.js';
import type { AppLogger } from '../log/logger.js';
import type { SecretScrubber } from '../log/secrets.js';
import { toReportProblem } from './intake-documents.js';
import type { DroppedFile, IntakeContext } from './intake-types.js';

/**
 * Stores a batch, then logs the final state of the documents that are final already (invalid, or
 * their number accepted in an earlier file): they never reach a sender, which logs all the others.
 */
export async function insertBatch(
  ledger: LedgerPort,
  fileId: number,
  batch: readonly NewDocument[],
  dropped: DroppedFile,
  log: Pick<AppLogger, 'info' | 'warn' | 'error'>,
): Promise<void> {
  const inserted = await ledger.insertDocuments(fileId, batch);
  // settled by an earlier copy of the same content (a resend): never reach a sender either
  const byCopy = new Map((inserted.byEarlierCopy ?? []).map((c) => [c.index, c.state]));
  // stored `duplicate` because their number was accepted in another file (the ledger looked it up as it stored them)
  const byKey = new Set(
    (inserted.byAcceptedKey ?? []).filter((a) => a.fileId !== fileId).map((a) => a.index),
  );
  // ... and of those, the ones whose content is not what was issued under their number: a person must act
  const otherContent = new Map(
    (inserted.byAcceptedKey ?? []).flatMap((a) =>
      a.otherContent === undefined ? [] : [[a.index, a.otherContent]],
    ),
  );
  if (inserted.heldForOtherCompany !== undefined) {
    log.error(
      {
        code: 'EDOC_LEDGER_OTHER_COMPANY',
        held: inserted.heldForOtherCompany.count,
        note: inserted.heldForOtherCompany.message,
      },
      'documents held: the same file content was taken for another company',
    );
  }
  // notes whose referenced document is never issued (held invalid) or unknown to the ledger (sent, with a warning)
  const byReference = new Map((inserted.byReference ?? []).map((r) => [r.index, r]));
  // the warning goes into the note's report too, stored before it can be sent (its file is read whole first)
  await ledger.warnUnknownReferences(
    fileId,
    batch.flatMap((d) => {
      const unknown = byReference.get(d.index)?.unknown;
      return unknown === undefined
        ? []
        : [{ index: d.index, warning: unknownReferenceWarning(d.kind ?? dropped.kind, unknown) }];
    }),
  );
  for (const d of batch) {
    const invalid = d.problems !== undefined && d.problems.length > 0;
    const copy = byCopy.get(d.index);
    const other = otherContent.get(d.index);
    const ref = byReference.get(d.index);
    const key = d.number ? makeKey(dropped.company.alias, d.kind ?? dropped.kind, d.number) : null;
    if (other !== undefined) {
      log.error(
        {
          doc: key,
          status: 'duplicate',
          attempts: 0,
          code: 'EDOC_ISSUED_OTHER_CONTENT',
          note: other,
        },
        'document final',
      );
      continue;
    }
    if (ref?.notIssued !== undefined) {
      log.error(
        {
          doc: key ?? `#${d.index}`,
          status: 'invalid',
          attempts: 0,
          code: ref.notIssuedCode ?? 'EDOC_LEDGER_REFERENCE_NOT_ISSUED',
          note: ref.notIssued,
        },
        'document final',
      );
      continue;
    }
    if (ref?.waitsFor !== undefined) {
      log.info(
        { doc: key ?? `#${d.index}`, waitsFor: ref.waitsFor },
        'the note references a document of a file still being read: held back until that read ends',
      );
    }
    if (ref?.unknown !== undefined) {
      log.warn(
        {
          doc: key ?? `#${d.index}`,
          code: 'EDOC_LEDGER_REFERENCE_UNKNOWN',
          references: ref.unknown,
        },
        'the note references a document the ledger does not know (it may be from before the bridge): it is sent',
      );
    }
    if (!invalid && copy === undefined && !byKey.has(d.index)) continue;
    const status = invalid ? 'invalid' : (copy ?? 'duplicate');
    // the code the outbox shows: the document's first problem, or the ledger's reason for settling it here
    const code = invalid
      ? d.problems![0].code
      : copy === 'invalid'
        ? 'EDOC_LEDGER_EARLIER_COPY_OPEN'
        : copy === 'duplicate'
          ? 'EDOC_LEDGER_DUPLICATE_DOCUMENT'
          : 'EDOC_LEDGER_DUPLICATE_KEY';
    logDocumentFinal(log, {
      doc: key ?? `#${d.index}`,
      status,
      attempts: 0,
      ...(code === undefined ? {} : { code }),
      // refused at intake: where it stands and why, as its errors.csv row says (a line an operator can act on)
      ...(invalid && whereAndWhy(d)),
    });
  }
}

/** The export's own key, its rows (or lines) and its first problem, for the log line of a document refused at intake. */
function whereAndWhy(d: NewDocument): Record<string, string> {
  const first = d.problems?.[0];
  // the problem's own rows where it names them (the cell at fault), as errors.csv shows
  const { lines, erpKey } = d.source;
  const rows = first?.rows !== undefined && first.rows.length > 0 ? first.rows : d.source.rows;
  return {
    ...(erpKey !== undefined && { erpKey }),
    ...(rows !== undefined && rows.length > 0 && { rows: formatPositions(rows) }),
    ...(lines !== undefined && lines.length > 0 && { lines: lines.join('-') }),
    ...(first?.field !== undefined && { field: first.field }),
    ...(first !== undefined && { note: first.message }),
  };
}

/** A number outside every active range of its prefix is refused here, as `invalid`: nothing is sent. */
export async function checkRanges(
  check: NonNullable<IntakeContext['checkNumber']>,
  batch: NewDocument[],
  dropped: DroppedFile,
  secrets: SecretScrubber,
): Promise<void> {
  for (const next of batch) {
    if (next.number === null || next.number === undefined || (next.problems?.length ?? 0) > 0)
      continue;
    const slash = next.number.lastIndexOf('/');
    const key: DocumentKey = {
      prefix: next.number.slice(0, slash),
      number: next.number.slice(slash + 1),
    };
    const answer = check(dropped.company.alias, next.kind ?? dropped.kind, key);
    const refused = answer instanceof Promise ? await answer : answer;
    // named as the export calls the number's column, as the mapping's own problems are
    const at = next.numberField === undefined ? {} : { column: next.numberField };
    if (refused !== undefined)
      next.problems = [toReportProblem({ ...refused, ...at, value: key.number }, secrets)];
  }
}
