/**
 * The one line a document's end state gets, `document final`, wherever it ends (the intake, a sender,
 * start-up recovery). A document issued, or already issued and sent again unchanged (accepted, a plain
 * duplicate), is an `info` line. Every document that needs an operator is an `error` line with its
 * catalogue code, the code the outbox shows (docs/operations.md tells operators to watch
 * `level == "error"`): failed, in doubt, invalid, rejected, a duplicate whose number another document
 * holds (`EDOC_SERVICE_NUMBER_CLASH`) or whose issued content differs (its own code).
 */
import type { ErrorCode } from '../errors.js';
import type { Logger } from './logger.js';

export interface DocumentFinalFields {
  /** The document's final state. */
  status: string;
  /** The document key, or `#index` when it has none. */
  doc: string;
  /** The catalogue code of its first problem; the state's own code when it has none. */
  code?: string;
  [field: string]: unknown;
}

/** The code of a state that needs an operator, when the document's problems name none. */
const STATE_CODES: Readonly<Record<string, ErrorCode>> = {
  failed: 'EDOC_SUBMIT_GAVE_UP',
  'in-doubt': 'EDOC_SUBMIT_IN_DOUBT',
  invalid: 'EDOC_SERVICE_INVALID',
  rejected: 'EDOC_SERVICE_REJECTED',
};

/**
 * The codes of a duplicate that is only that: the same document issued before, unchanged. A duplicate
 * with any other code (a number another document holds, an issued content that differs) needs an operator.
 */
const QUIET_DUPLICATE: ReadonlySet<string> = new Set<ErrorCode>([
  'EDOC_LEDGER_DUPLICATE_KEY',
  'EDOC_LEDGER_DUPLICATE_DOCUMENT',
  'EDOC_SERVICE_DUPLICATE',
]);

/** `info` for a document issued (accepted, an unchanged duplicate); `error` for every other end. */
export function documentFinalLevel(status: string, code?: string): 'info' | 'error' {
  if (status === 'accepted') return 'info';
  return status === 'duplicate' && (code === undefined || QUIET_DUPLICATE.has(code))
    ? 'info'
    : 'error';
}

export function logDocumentFinal(
  logger: Pick<Logger, 'info' | 'error'>,
  fields: DocumentFinalFields,
): void {
  const level = documentFinalLevel(fields.status, fields.code);
  if (level === 'info') {
    logger.info(fields, 'document final');
    return;
  }
  const code = fields.code ?? STATE_CODES[fields.status];
  logger.error(code === undefined ? fields : { ...fields, code }, 'document final');
}
