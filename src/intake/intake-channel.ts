/** One job's messages from the intake worker as the reader (intake-reader.ts) takes them, and its errors. */
import { EdocError } from '../errors.js';
import type { DocumentBatches } from './intake-documents.js';
import type { FromWorker, SerializedError } from './intake-messages.js';

export type Result =
  | Exclude<FromWorker, { type: 'opened' }>
  | { type: 'opened'; details: DocumentBatches['details'] }
  | { type: 'failed'; error: Error };

/** One job's messages as they arrive, taken one at a time. */
export class Channel {
  private readonly queue: Result[] = [];
  private waiter: ((r: Result) => void) | undefined;

  /** The file the job reads (for the messages of a stuck worker). */
  constructor(readonly file: string) {}

  push(result: Result): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter(result);
    else this.queue.push(result);
  }

  next(): Promise<Result> {
    const first = this.queue.shift();
    return first === undefined
      ? new Promise((resolve) => {
          this.waiter = resolve;
        })
      : Promise.resolve(first);
  }
}

export function abortError(): Error {
  return new DOMException('This operation was aborted', 'AbortError');
}

export function errorOf(r: Result): Error {
  if (r.type === 'failed') return r.error;
  if (r.type === 'error') return deserialize(r.error);
  return new Error(`intake worker: unexpected ${r.type}`);
}

/** The worker's error as the in-process read would have thrown it (see intake.ts: what is file-level, what is not). */
function deserialize(e: SerializedError): Error {
  if (e.edoc !== undefined) return new EdocError(e.edoc, e.message, e.context ?? {});
  const err = new Error(e.message) as NodeJS.ErrnoException;
  err.name = e.name;
  if (e.errno !== undefined) err.code = e.errno;
  return err;
}
