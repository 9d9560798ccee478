/**
 * A company sender's log lines and events (company-sender.ts): a document final (its `document final`
 * line and the alerts' event), a corrected copy of an issued number, the service unreachable and
 * answering again (one line each way, not one per document).
 */
import type { DueDocument } from '../ledger/types.js';
import { logDocumentFinal } from '../log/document-final.js';
import type { ServiceResponse } from '../service/client-types.js';
import type { Decision } from './decide.js';
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

  /** A 401 to a submission paused the company: one line for it, not one per document (they wait). */
  unauthorized(reason: string): void {
    this.options.logger.error(
      { code: 'EDOC_SERVICE_UNAUTHORIZED', company: this.alias(), reason },
      "the service refused this company's credentials: its submissions (and its received-documents pull) are paused until the configuration is reloaded (SIGHUP) or the daemon restarts",
    );
  }

  /** A transient fault: the document is due again after `delayMs` (debug: one line per attempt). */
  retry(doc: DueDocument, attempt: number, delayMs: number, reason: string): void {
    this.options.logger.debug(
      { company: this.alias(), doc: doc.key ?? doc.id, attempt, delayMs, reason },
      'transient fault: retry scheduled',
    );
  }

  /** A final verdict: its line with why it is in doubt (`doubt`) and the code the outbox shows (`code`). */
  decided(
    doc: DueDocument,
    attempt: number,
    decision: Extract<Decision, { action: 'final' }>,
    code: string | undefined,
  ): void {
    this.final(doc, decision.status, attempt, decision.note, {
      ...(decision.doubt ? { doubt: decision.doubt } : {}),
      // the first problem's (Regla 90 in doubt, a clash, gave up, not sent, …)
      ...(code === undefined ? {} : { code }),
    });
  }

  /** A document already accepted (its mark found it so): final, not sent; a corrected copy needs a person. */
  duplicate(doc: DueDocument, otherContent: string | undefined): void {
    if (otherContent === undefined)
      this.final(doc, 'duplicate', doc.attempts, 'already accepted; not sent again');
    else this.otherContent(doc, otherContent);
  }
}
