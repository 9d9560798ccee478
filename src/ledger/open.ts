/**
 * The one place that picks the ledger's backend for the wiring (root/open-pipeline.ts, cli/): SQLite in
 * `paths.state` without `ledger.url`; with it, the PostgreSQL ledger (issue 13): the same Ledger class
 * over the PostgreSQL executor, its schema migrated at open as `edoc-bridge ledger migrate` does (under
 * the advisory lock, so nodes that start together migrate once). Async because opening a network database is.
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

export interface PostgresLedgerOptions extends LedgerOpenOptions {
  /** Where PG* variables and HOME (for ~/.pgpass) come from. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Shown in pg_stat_activity and kept in schema_version. @defaultValue 'edoc-bridge' */
  program?: string;
  /** Connections at most. @defaultValue 10 */
  maxConnections?: number;
  /** A session idle inside a transaction this long is ended by the server (a cluster node's lease, PostgresOptions). @defaultValue none */
  idleInTransactionTimeoutMs?: number;
}

/** Opens the configured ledger (see LedgerOpenOptions for read-only and shared use beside a daemon). */
export async function openLedger(
  config: LedgerLocation,
  options: PostgresLedgerOptions = {},
): Promise<LedgerPort> {
  if (config.ledger?.url !== undefined) return openPostgresLedger(config.ledger.url, options);
  return Ledger.open(config.paths.state, options);
}

/**
 * The PostgreSQL ledger at `url`. A writer (the daemon) migrates the schema first; a read-only or shared
 * open (status, retry beside running nodes) only checks that the schema is the one this program reads.
 * PostgreSQL has no process lock: one node per database until the cluster's leases (src/cluster/).
 */
export async function openPostgresLedger(
  url: string,
  options: PostgresLedgerOptions = {},
): Promise<Ledger> {
  // loaded here, not at the top: every command and the daemon open a ledger, and without ledger.url none
  // of them should pay for loading node-postgres at start
  const { migratePostgres, PG_SCHEMA_VERSION, postgresSchemaVersion } =
    await import('./sql/pg-migrations.js');
  const { openPostgresExecutor } = await import('./sql/postgres.js');
  const program = options.program ?? 'edoc-bridge';
  const sql = openPostgresExecutor(url, {
    env: options.env,
    applicationName: program,
    maxConnections: options.maxConnections,
    readOnly: options.readOnly === true,
    idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs,
  });
  try {
    const notes: string[] = [];
    if (options.readOnly || options.shared) {
      const version = await postgresSchemaVersion(sql);
      if (version === 0) {
        throw new EdocError(
          'EDOC_LEDGER_NOT_FOUND',
          `There is no ledger in the PostgreSQL database ${sql.display} yet ` +
            '(start the daemon once, or run edoc-bridge ledger migrate).',
          { database: sql.display },
        );
      }
      if (version !== PG_SCHEMA_VERSION) {
        throw new EdocError(
          'EDOC_LEDGER_MIGRATION',
          `The PostgreSQL ledger has schema version ${version}; this program reads version ` +
            `${PG_SCHEMA_VERSION}. Run edoc-bridge ledger migrate (or start the daemon once).`,
          { version, to: PG_SCHEMA_VERSION },
        );
      }
    } else {
      const m = await migratePostgres(sql, program);
      if (m.from !== m.to)
        notes.push(`ledger schema migrated from version ${m.from} to ${m.to} (${sql.display})`);
    }
    const ledger = new Ledger(sql, options.readOnly === true, undefined, options.fence);
    ledger.notes.push(...notes);
    return ledger;
  } catch (err) {
    await sql.close();
    throw err;
  }
}
