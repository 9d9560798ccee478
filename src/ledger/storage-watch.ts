/**
 * Re-export of storage/storage-watch.ts for importers not yet pointed there (daemon/pipeline.ts,
 * submit/company-sender-options.ts, submit/submission-commits.ts); remove it once none is left.
 */
export { StorageWatch, type StorageWatchOptions } from '../storage/storage-watch.js';
