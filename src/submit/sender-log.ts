/**
 * A company sender's log lines and events (company-sender.ts): a document final (its `document final`
 * line and the alerts' event), a corrected copy of an issued number, the service unreachable and
 * answering again (one line each way, not one per document).
 */
import type { DueDocument } from '../ledger/types.js';
import { logDocumentFinal } from '../log/document-final.js';
import type { ServiceResponse } from '../service/client-types.js';
import type { CompanySenderOptions } from './company-sender-options.js';

export class SenderLog {
  private unreachableNow = false;

  constructor(
    private readonly options: Pick<CompanySenderOptions, 'logger' | 'onEvent'>,
    private readonly alias: () => string,
  ) {}

  /** The last request got no answer from the service. */
  get unreachable(): boolean {
    return this.unreachableNow;
  }

  /** One warning when the service stops answering, one line when it answers again — not one per document. */
  reachability(response: ServiceResponse): void {
    const unanswered = response.httpStatus === undefined && response.outcome.kind === 'transient';
    if (unanswered && !this.unreachableNow) {
      this.unreachableNow = true;
      this.options.logger.warn(
        {
          code: 'EDOC_SERVICE_UNREACHABLE',
          company: this.alias(),
          reason: response.outcome.reason,
        },
        'the service is not answering; documents wait and are retried with backoff',
      );
    } else if (!unanswered && response.httpStatus !== undefined && this.unreachableNow) {
      this.unreachableNow = false;
      this.options.logger.info({ company: this.alias() }, 'the service answers again');
    }
  }

  /** A corrected copy of an issued number (EDOC_ISSUED_OTHER_CONTENT): final, not sent, and a person must act. */
  otherContent(doc: DueDocument, message: string): void {
    this.options.logger.error(
      {
        file: doc.fileName,
        kind: doc.kind,
        company: this.alias(),
        doc: doc.key ?? `#${doc.index}`,
        status: 'duplicate',
        attempts: doc.attempts,
        code: 'EDOC_ISSUED_OTHER_CONTENT',
        note: message,
      },
      'document final',
    );
    this.options.onEvent?.({ type: 'final', company: this.alias(), status: 'duplicate' });
  }

  /** `extra`: why an in-doubt document is in doubt (`doubt`) and the catalogue code of its first problem. */
  final(
    doc: DueDocument,
    status: string,
    attempts: number,
    note?: string,
    extra: Record<string, string> = {},
  ): void {
    logDocumentFinal(this.options.logger, {
      file: doc.fileName,
      kind: doc.kind,
      company: this.alias(),
      doc: doc.key ?? `#${doc.index}`,
      status,
      attempts,
      ...extra,
      ...(note ? { note } : {}),
    });
    this.options.onEvent?.({
      type: 'final',
      company: this.alias(),
      status,
      ...(extra.doubt ? { doubt: extra.doubt } : {}),
    });
  }
}
