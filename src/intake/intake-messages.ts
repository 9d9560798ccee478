/** The messages between the intake reader (main thread) and the intake worker: strings and small objects only. */
import type { ErrorCode, ErrorContext } from '../errors.js';
import type { NewDocument } from '../ledger/types.js';
import type { FileHash } from '../read/hash.js';
import type { ReadDetails, ReadJob } from './intake-documents.js';

/**
 * Batches of one job the worker may have handed over and the main thread not yet stored: two, so the
 * worker reads the next batch while the main thread stores one, and no more (bounded memory).
 */
export const AHEAD = 2;

export type ToWorker =
  | { type: 'read'; id: number; job: ReadJob; secrets: readonly string[] }
  /** The content hash of a file (read/hash.ts), before it is recorded. */
  | { type: 'hash'; id: number; path: string }
  /** The main thread took one batch: the worker may hand over one more. */
  | { type: 'ack'; id: number }
  /** Stop reading (daemon shutdown, or the main thread gave up on the file). */
  | { type: 'cancel'; id: number }
  /** Are you there: answered with `pong` as soon as the worker's event loop turns (intake-reader.ts). */
  | { type: 'ping'; id: 0 };

export type FromWorker =
  | { type: 'opened'; id: number; details: ReadDetails }
  | { type: 'batch'; id: number; docs: NewDocument[] }
  | { type: 'done'; id: number; sha256: string }
  | { type: 'hashed'; id: number; hash: FileHash }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'pong'; id: 0 };

/**
 * What the worker is mapping, in memory both threads see (a SharedArrayBuffer of MARK_SLOTS Int32s):
 * the job's id (0: none) and the row. Written by the worker around each row it frames or builds
 * (read/row-mark.ts), read by the main thread when the worker stopped answering or died.
 */
export const MARK_SLOTS = 2;
export const MARK_JOB = 0;
export const MARK_ROW = 1;

/** An error thrown in the worker as it crosses: an EdocError keeps its code and context, a file-system error its errno code. */
export interface SerializedError {
  name: string;
  message: string;
  edoc?: ErrorCode;
  context?: ErrorContext;
  errno?: string;
}
