/**
 * Re-export of storage/storage-full.ts for importers not yet pointed there (daemon/intake.ts); remove
 * it once none is left.
 */
export { isStorageFull, storageFullCode, storageFullError } from '../storage/storage-full.js';
