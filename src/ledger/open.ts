/**
 * The one place that picks the ledger's backend for the wiring (daemon/pipeline.ts, cli/). Today that
 * is always SQLite in `paths.state`; the PostgreSQL backend (issue 13) is chosen here when the
 * configuration names `ledger.url`, and nowhere else. Async because opening a network database is.
 */
import type { Config } from '../config/schema.js';
import { Ledger, type LedgerOpenOptions } from './ledger.js';
import type { LedgerPort } from './port.js';

export type { LedgerOpenOptions } from './ledger.js';

/** Opens the configured ledger (see LedgerOpenOptions for read-only and shared use beside a daemon). */
export async function openLedger(config: { readonly paths: Pick<Config['paths'], 'state'> }, options: LedgerOpenOptions = {}): Promise<LedgerPort> {
  return Ledger.open(config.paths.state, options);
}
