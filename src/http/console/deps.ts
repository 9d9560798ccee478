/**
 * What the console needs from the daemon, given by the wiring (daemon/operator.ts): the ledger it reads
 * (paged queries, ledger/console-queries.ts), a read-only view of each company's sender, the ranges and
 * alerts when those parts run, where received documents are kept, and the operator's actions. The
 * actions are the daemon's (daemon/operator-actions.ts, shared with `edoc-bridge retry` / `resolve`):
 * the console only names the documents and who asked.
 */
import type { AlertLog } from '../../alerts/alert-record.js';
import type { LedgerPort } from '../../ledger/port.js';
import type { RangeState } from '../../ranges/range-state.js';
import type { SenderView } from '../../submit/company-sender.js';

export type CompanyView = SenderView;

/** What an action came to, in the operator's words (the same lines the CLI prints). */
export interface ActionOutcome {
  ids: number[];
  done: string[];
  notes: string[];
}

export interface ConsoleActions {
  /** `edoc-bridge retry --document … [--in-doubt]` on these documents; the daemon picks them up at once. */
  retry(
    ids: readonly number[],
    options: { includeInDoubt: boolean; by: string },
  ): Promise<ActionOutcome>;
  /** `edoc-bridge resolve --document … --issued | --not-ours [--note]`; the reports are rewritten. */
  resolve(
    ids: readonly number[],
    options: { word: 'issued' | 'not-ours'; note?: string; by: string },
  ): Promise<ActionOutcome>;
}

export interface ConsoleDeps {
  ledger: LedgerPort;
  companies(): CompanyView[];
  ranges?(): readonly RangeState[];
  alerts?: AlertLog;
  /** outbox/received/<company>/: where that company's received documents (and their PDFs) are. */
  receivedDir(company: string): string;
  actions: ConsoleActions;
  /** Removes the configured secrets from a page (a file or customer name may quote one). @defaultValue none */
  scrub?(page: string): string;
}
