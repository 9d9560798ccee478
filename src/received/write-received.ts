/**
 * The effects of one new received document, in the order that makes a crash
 * harmless: its files (atomic, same names every time), then the ledger record,
 * then its index row. A crash before the record leaves files the next run
 * overwrites identically; a crash after it leaves a row the next run adds.
 */
import { ledgerNow } from '../policy/ledger-clock.js';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isEdocError } from '../errors.js';
import type { LedgerPort } from '../ledger/port.js';
import type { Logger } from '../log/logger.js';
import { writeFileAtomic } from '../report/atomic-write.js';
import { receivedDocumentSchema } from '../service/schemas/received.js';
import type { PullError } from './pull-error.js';
import {
  decodePdf,
  documentDay,
  indexFields,
  receivedKey,
  receivedNames,
  type ReceivedRecord,
} from './received-files.js';
import type { ReceivedIndex } from './received-index.js';

export interface WriteReceivedInput {
  /** outbox/received/<company>/ */
  dir: string;
  alias: string;
  record: ReceivedRecord;
  index: ReceivedIndex;
  ledger: LedgerPort;
  logger: Logger;
}

/** Writes a document not yet in the ledger. Throws on a write failure (see `writeFailure`). */
export async function writeReceived(input: WriteReceivedInput): Promise<{ errors: PullError[] }> {
  const { dir, alias, record } = input;
  const names = receivedNames(record);
  const key = receivedKey(record);
  const doc = typeof record.documentNumber === 'string' ? record.documentNumber : undefined;
  const log = input.logger.child({ company: alias, doc, cufe: key });
  const errors: PullError[] = [];
  const drift = receivedDocumentSchema.safeParse(record);
  if (!drift.success) {
    log.warn(
      {
        code: 'EDOC_SERVICE_BAD_RESPONSE',
        issues: drift.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`),
      },
      'received document does not follow the spec exactly; written as received',
    );
  }
  await fsp.mkdir(path.join(dir, names.month), { recursive: true });
  await writeFileAtomic(path.join(dir, names.json), `${JSON.stringify(record, null, 2)}\n`);
  const files = [names.json];
  const pdf = decodePdf(record);
  if (pdf.kind === 'pdf') {
    await writeFileAtomic(path.join(dir, names.pdf), pdf.bytes);
    files.push(names.pdf);
  } else if (pdf.kind === 'not-pdf') {
    log.warn(
      { code: 'EDOC_RECEIVED_BAD_PDF', file: names.json },
      `received document ${doc ?? key}: ${pdf.reason}; the PDF was not written`,
    );
    errors.push({ code: 'EDOC_RECEIVED_BAD_PDF', message: pdf.reason, doc, cufe: key });
  }
  await input.ledger.recordReceived({
    company: alias,
    documentId: key,
    documentNumber: doc ?? null,
    documentDate: documentDay(record) ?? null,
    files,
    at: ledgerNow(),
  });
  await appendIndexRow(input.index, record);
  return { errors };
}

/** The index row of a document; recomputed from the record, so a row added after a crash is the one it would have been. */
export async function appendIndexRow(index: ReceivedIndex, record: ReceivedRecord): Promise<void> {
  const names = receivedNames(record);
  const pdf = decodePdf(record);
  const note =
    pdf.kind === 'not-pdf'
      ? `PDF not written: ${pdf.reason}`
      : pdf.kind === 'none'
        ? 'no PDF sent'
        : '';
  await index.append(indexFields(record, names, pdf.kind === 'pdf', note));
}

/** The message of an outbox write failure (disk full, permissions), undefined for any other error. */
export function writeFailure(err: unknown): string | undefined {
  if (isEdocError(err, 'EDOC_REPORT_WRITE')) return err.message;
  const errno = err as NodeJS.ErrnoException;
  if (err instanceof Error && typeof errno.syscall === 'string' && typeof errno.code === 'string') {
    return `Could not write the received documents: ${err.message}`;
  }
  return undefined;
}
