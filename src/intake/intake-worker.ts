/**
 * The intake worker thread (started by `intake-reader.ts`): hashes input files before they are recorded,
 * and reads, parses, maps and validates them (`readDocumentBatches`) on a core of its own while the main
 * thread stores the batches in the ledger. It holds no ledger and sends nothing; every job runs until it ends, fails or is cancelled.
 * At most AHEAD batches of a job wait for the main thread, so memory stays bounded by the batch size
 * however large the file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { NewDocument } from '../ledger/types.js';
import { isEdocError } from '../errors.js';
import { SecretScrubber } from '../log/secrets.js';
import { hashFile } from '../read/hash.js';
import { readDocumentBatches, type ReadJob } from './intake-documents.js';
import { heldAfter, type MasterTable } from '../map/master-tables.js';
import type { RowMark } from '../read/row-mark.js';
import {
  AHEAD,
  MARK_JOB,
  MARK_ROW,
  type FromWorker,
  type SerializedError,
  type ToWorker,
} from './intake-messages.js';
import { WorkerTurns } from './worker-turns.js';

interface Running {
  aborter: AbortController;
  credit: number;
  /** Resolves when the main thread took a batch (credit came back) or the job was cancelled. */
  wake?: () => void;
}

const port = parentPort;
if (port === null) throw new Error('intake-worker.js runs as a worker thread only');
const jobs = new Map<number, Running>();
/** The row being mapped, by job (intake-messages.ts MARK_*); absent when started without one (tests' stand-ins). */
const marks = (workerData as { marks?: SharedArrayBuffer } | undefined)?.marks;
const slots = marks === undefined ? undefined : new Int32Array(marks);

function markOf(id: number): RowMark | undefined {
  if (slots === undefined) return undefined;
  return {
    enter(row) {
      Atomics.store(slots, MARK_ROW, row);
      Atomics.store(slots, MARK_JOB, id);
    },
    at(row) {
      Atomics.store(slots, MARK_ROW, row);
    },
    leave() {
      Atomics.store(slots, MARK_JOB, 0);
    },
  };
}
const scrubbers = new Map<string, SecretScrubber>();

function post(message: FromWorker): void {
  try {
    port?.postMessage(message);
  } catch (err) {
    // an error context that cannot be cloned: the error still crosses, without its context
    if (message.type !== 'error' || message.error.context === undefined) throw err;
    const { context: _dropped, ...error } = message.error;
    port?.postMessage({ ...message, error });
  }
}

function scrubberOf(secrets: readonly string[]): SecretScrubber {
  const id = JSON.stringify(secrets);
  let s = scrubbers.get(id);
  if (s === undefined) {
    s = new SecretScrubber(secrets);
    scrubbers.clear(); // one configuration at a time: a reload brings new secrets
    scrubbers.set(id, s);
  }
  return s;
}

function serialize(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const errno = (err as NodeJS.ErrnoException).code;
  return {
    name: err.name,
    message: err.message,
    ...(isEdocError(err)
      ? { edoc: err.code, context: err.context }
      : typeof errno === 'string'
        ? { errno }
        : {}),
  };
}

/** The master-table versions received whole, by table (the two newest each: `heldAfter`, as intake-reader.ts counts them). */
const tables = new Map<string, Map<number, MasterTable>>();

function withTables(job: ReadJob): ReadJob {
  if (job.master === undefined) return job;
  const master: Record<string, MasterTable> = {};
  for (const [name, t] of Object.entries(job.master)) {
    const versions = tables.get(name) ?? new Map<number, MasterTable>();
    if (t.held !== true) {
      versions.set(t.version, t);
      const keep = heldAfter([...versions.keys()], t.version);
      for (const v of versions.keys()) if (!keep.includes(v)) versions.delete(v);
      tables.set(name, versions);
    }
    const own = t.held === true ? versions.get(t.version) : t;
    if (own === undefined)
      throw new Error(`master table ${name} version ${t.version} is not held by the intake worker`);
    master[name] = own;
  }
  return { ...job, master };
}

/** The reads that may work now (worker-turns.ts): a few at a time, a batch per turn. */
const turns = new WorkerTurns();

async function run(id: number, job: Extract<ToWorker, { type: 'read' }>): Promise<void> {
  const running: Running = { aborter: new AbortController(), credit: AHEAD };
  jobs.set(id, running);
  const { signal } = running.aborter;
  let turn = false;
  /** When this job's turn began (performance.now()). */
  let since = 0;
  let posted = 0;
  let batches: AsyncIterator<NewDocument[]> | undefined;
  let ended = false;
  try {
    // The master tables a job brings are kept at once, in the order the jobs came, even by a job cancelled
    // while it waits for its turn: the reader counts them held from the moment it sent them.
    const own = withTables(job.job);
    await turns.take(signal);
    turn = true;
    since = performance.now();
    // a batch ends early when the turn is due, so one of many long documents does not hold it to its end
    const due = (): boolean => turns.due(since, posted === 0);
    const read = await readDocumentBatches(own, scrubberOf(job.secrets), signal, markOf(id), due);
    post({ type: 'opened', id, details: read.details });
    batches = read.batches[Symbol.asyncIterator]();
    for (;;) {
      if (!turn) {
        await turns.take(signal);
        turn = true;
        since = performance.now();
      }
      const next = await batches.next();
      if (next.done === true) {
        ended = true;
        break;
      }
      // The turn goes back before waiting for the main thread to take a batch, and after a slice when
      // others wait (a longer one for the first batch: a file of one short batch is read in one turn).
      if (running.credit === 0 || due()) {
        turns.give();
        turn = false;
      }
      while (running.credit === 0) {
        signal.throwIfAborted();
        await new Promise<void>((resolve) => {
          running.wake = resolve;
        });
      }
      signal.throwIfAborted();
      running.credit--;
      post({ type: 'batch', id, docs: next.value });
      posted++;
    }
    post({ type: 'done', id, sha256: read.sha256() });
  } catch (err) {
    // as `for await` did: a read left early closes its file first
    if (!ended) await batches?.return?.().catch(() => undefined);
    post({ type: 'error', id, error: serialize(err) });
  } finally {
    if (turn) turns.give();
    jobs.delete(id);
  }
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'read':
      void run(message.id, message);
      break;
    case 'hash':
      hashFile(message.path).then(
        (hash) => post({ type: 'hashed', id: message.id, hash }),
        (err: unknown) => post({ type: 'error', id: message.id, error: serialize(err) }),
      );
      break;
    case 'ack': {
      const running = jobs.get(message.id);
      if (running === undefined) break;
      running.credit++;
      running.wake?.();
      break;
    }
    case 'cancel': {
      const running = jobs.get(message.id);
      running?.aborter.abort();
      running?.wake?.();
      break;
    }
    case 'ping':
      post({ type: 'pong', id: 0 });
      break;
  }
});

// loaded: the reader's watch counts this worker's silences from here (worker-watch.ts)
post({ type: 'pong', id: 0 });
