/**
 * The one place that picks the ledger's backend for the wiring (daemon/pipeline.ts, cli/): SQLite in
 * `paths.state` without `ledger.url`; with it, the PostgreSQL backend (issue 13) once it exists — until
 * then a clear refusal here as well as in cli/main.ts, so no caller quietly keeps documents in the state
 * folder while the configuration names a cluster's database. Async because opening a network database is.
 */
import type { Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import { Ledger, type LedgerOpenOptions } from './ledger.js';
import type { LedgerPort } from './port.js';

export type { LedgerOpenOptions } from './ledger.js';

/** What openLedger reads of the configuration. */
export interface LedgerLocation {
  readonly paths: Pick<Config['paths'], 'state'>;
  readonly ledger?: { readonly url?: string | undefined };
}

/** Opens the configured ledger (see LedgerOpenOptions for read-only and shared use beside a daemon). */
export async function openLedger(config: LedgerLocation, options: LedgerOpenOptions = {}): Promise<LedgerPort> {
  if (config.ledger?.url !== undefined) {
    // never the URL itself in the message: it may hold the password
    throw new EdocError('EDOC_CONFIG_INVALID', 'ledger.url is set, and the PostgreSQL ledger backend is not built yet '
      + '(only edoc-bridge ledger migrate uses it; see docs/cluster.md); remove ledger.url to use the SQLite ledger in paths.state',
    { path: 'ledger.url' });
  }
  return Ledger.open(config.paths.state, options);
}
