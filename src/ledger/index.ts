export { Ledger, LEDGER_FILE } from './ledger.js';
export { openLedger, openPostgresLedger } from './open.js';
export type {
  LedgerFence,
  LedgerPort,
  LedgerSnapshotPort,
  OutcomesResult,
  Verdict,
} from './port.js';
export type { LedgerOpenOptions } from './ledger.js';
export { LedgerSnapshot } from './snapshot.js';
export type { ReadDetails } from './files.js';
export { LOCK_FILE } from './lock.js';
export type { LockInfo } from './lock.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export { makeKey } from './rows.js';
export * from './types.js';
export { CommitBatcher } from './commit-batcher.js';
export type { MasterTableData, MasterVersion, NewMasterVersion } from './master-data.js';
