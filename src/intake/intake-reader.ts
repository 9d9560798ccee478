/**
 * Reads input files on a worker thread (`intake-worker.ts`): while a file is read nothing is sent (no
 * document leaves before the whole read is verified), so the second core is otherwise idle, and
 * reading, parsing and validating there leaves the main thread only the ledger inserts, pipelined
 * with the worker's reading. One worker serves every intake of the pipeline (jobs interleave there as
 * they did on the main thread); it is started by `start()`, ended by `close()`, and one that dies is
 * replaced for the next file — each read it was doing fails with `EDOC_READ_WORKER`, a file-level
 * error like any unreadable file (nothing of it was released, so nothing was sent).
 *
 * One that stops answering (a mapping's pattern backtracking without end on one row's cells) would hold
 * every file back: one silent for `stuckAfterMs` while it has work (worker-watch.ts) is replaced. The row it was mapping (read/row-mark.ts, in memory both threads see) names the file at
 * fault: that read fails with `EDOC_READ_STUCK` naming its row, the others fail with `EDOC_READ_WORKER`
 * marked `again` (intake.ts reads them again from the start); stuck or dead outside any row, every read
 * fails with `EDOC_READ_WORKER`. A pause of the whole process (stopped, frozen) fails nothing.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EdocError } from '../errors.js';
import type { NewDocument } from '../ledger/types.js';
import type { FileHash } from '../read/hash.js';
import { abortError, Channel, errorOf } from './intake-channel.js';
import { WorkerWatch } from './worker-watch.js';
import type { AppLogger } from '../log/logger.js';
import type { DocumentBatches, ReadJob } from './intake-documents.js';
import { heldAfter, type MasterTables } from '../map/master-tables.js';
import {
  MARK_JOB,
  MARK_ROW,
  MARK_SLOTS,
  type FromWorker,
  type ToWorker,
} from './intake-messages.js';

const WORKER_SCRIPT = new URL('./intake-worker.js', import.meta.url);
/**
 * The worker's young generation, MB (V8's default is 3 × 16). Its garbage is short-lived (a line's text,
 * the parsed request, the checks' temporaries), so a small one costs little CPU, and it keeps the
 * daemon's peak memory where it was before the worker: a 1,000,000-row export under 200 MB (benchmark
 * figure 3, docs/benchmarks.md "Third pass"). The old generation is not capped: a large record must not
 * become an out-of-memory failure.
 */
const WORKER_YOUNG_GENERATION_MB = 8;

export interface IntakeReaderOptions {
  /** The worker's script (tests give stand-ins that speak the same messages). */
  script?: URL;
  /** How long a worker with work may stay silent before it is replaced, ms (config read.stuckAfter); read at each tick. */
  stuckAfterMs?: () => number;
}

export class IntakeReader {
  private worker: Worker | undefined;
  private readonly jobs = new Map<number, Channel>();
  private nextId = 1;
  private closed = false;
  /** The master-table versions the current worker holds (sent whole once, then by name), by table. */
  private held = new Map<string, number[]>();
  /** The row the current worker maps (intake-messages.ts MARK_*), shared with it. */
  private marks = new Int32Array(new SharedArrayBuffer(MARK_SLOTS * 4));
  private readonly script: URL;
  private readonly watch: WorkerWatch;
  private readonly stuckAfterMs: () => number;

  constructor(
    private readonly logger: AppLogger,
    options: IntakeReaderOptions = {},
  ) {
    this.script = options.script ?? WORKER_SCRIPT;
    this.stuckAfterMs = options.stuckAfterMs ?? (() => 30_000);
    this.watch = new WorkerWatch({
      stuckAfterMs: this.stuckAfterMs,
      busy: () => this.jobs.size > 0 && this.worker !== undefined,
      ping: () => this.post({ type: 'ping', id: 0 }),
      stuck: (silentMs) => {
        if (this.worker) this.stuck(this.worker, silentMs);
      },
    });
  }

  /** Whether this build has the worker's script (the built JavaScript; run from TypeScript sources, intake reads in-process). */
  static available(): boolean {
    return !import.meta.url.endsWith('.ts');
  }

  /** Starts the worker now, so it has loaded its modules before the first file comes. */
  start(): void {
    if (!this.closed) this.spawn();
  }

  /** Ends the worker; reads still running fail (the pipeline stopped reading first). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.watch.stop();
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(closedError());
    if (worker) await worker.terminate();
  }

  /**
   * The content hash of `file` (`hashFile`), computed on the worker: with 200 companies' files taken at
   * once, hashing them on the main thread took a twentieth of its time while it also stored and sent.
   * Errors are hashFile's (EDOC_READ_CHANGED, a file-system error's code), or EDOC_READ_WORKER.
   */
  async hash(file: string): Promise<FileHash> {
    const { id, channel } = this.openJob(file);
    try {
      this.post({ type: 'hash', id, path: file });
      const r = await channel.next();
      if (r.type === 'hashed') return r.hash;
      throw errorOf(r);
    } finally {
      this.jobs.delete(id);
      if (this.jobs.size === 0) this.worker?.unref();
    }
  }

  /** Opens `job.path` on the worker; like `readDocumentBatches`, file-level errors throw here or from `batches`. */
  async read(
    job: ReadJob,
    secrets: readonly string[],
    signal?: AbortSignal,
  ): Promise<DocumentBatches> {
    signal?.throwIfAborted();
    // a set's rows are numbered as its lines file's (read/set-source.ts): that file is the one a stuck row names
    const { id, channel } = this.openJob(job.parts?.lines ?? job.path);
    const onAbort = (): void => {
      this.post({ type: 'cancel', id });
      channel.push({
        type: 'failed',
        error: signal?.reason instanceof Error ? signal.reason : abortError(),
      });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const end = (): void => {
      signal?.removeEventListener('abort', onAbort);
      if (this.jobs.delete(id)) this.post({ type: 'cancel', id }); // a no-op for a job that ended in the worker
      if (this.jobs.size === 0) this.worker?.unref(); // an idle worker does not keep a process alive
    };
    try {
      const { master, sent } = this.masterToSend(job);
      this.post({
        type: 'read',
        id,
        job: master === undefined ? job : { ...job, master },
        secrets,
      });
      for (const [name, version] of sent)
        this.held.set(name, heldAfter(this.held.get(name) ?? [], version));
    } catch (err) {
      end(); // a job that cannot be handed over (nothing in it may fail to clone; a mapping is plain data)
      throw new EdocError(
        'EDOC_READ_WORKER',
        `the file could not be handed to the intake worker: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const first = await channel.next();
    if (first.type !== 'opened') {
      end();
      throw errorOf(first);
    }
    let sha256: string | undefined;
    const post = (m: ToWorker): void => this.post(m);
    async function* batches(): AsyncGenerator<NewDocument[]> {
      try {
        for (;;) {
          const r = await channel.next();
          if (r.type === 'batch') {
            post({ type: 'ack', id });
            yield r.docs;
          } else if (r.type === 'done') {
            sha256 = r.sha256;
            return;
          } else {
            throw errorOf(r);
          }
        }
      } finally {
        end();
      }
    }
    return {
      details: first.details,
      batches: batches(),
      sha256: () => {
        if (sha256 === undefined) throw new Error('the read has not ended');
        return sha256;
      },
    };
  }

  /** The job's master tables with those the worker holds already left as names (a 100,000-row table clones in ~0.2 s). */
  private masterToSend(job: ReadJob): {
    master: MasterTables | undefined;
    sent: [string, number][];
  } {
    if (job.master === undefined) return { master: undefined, sent: [] };
    const sent: [string, number][] = [];
    const master = Object.fromEntries(
      Object.entries(job.master).map(([name, t]) => {
        if (this.held.get(name)?.includes(t.version) === true)
          return [name, { ...t, rows: {}, held: true as const }];
        sent.push([name, t.version]);
        return [name, t];
      }),
    );
    return { master, sent };
  }

  private spawn(): Worker {
    if (this.worker) return this.worker;
    this.held = new Map(); // a new worker holds no table
    const marks = new SharedArrayBuffer(MARK_SLOTS * 4);
    this.marks = new Int32Array(marks);
    const worker = new Worker(this.script, {
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      workerData: { marks },
    });
    worker.unref();
    this.watch.spawned();
    worker.on('message', (m: FromWorker) => {
      if (this.worker === worker) this.watch.heard();
      const channel = this.jobs.get(m.id);
      if (channel === undefined) return;
      channel.push(m.type === 'opened' ? { type: 'opened', details: m.details } : m);
    });
    const died = (why: string): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (this.closed) return;
      const culprit = this.culprit();
      this.logger.error(
        {
          code: 'EDOC_READ_WORKER',
          reason: why,
          reads: this.jobs.size,
          ...(culprit && { file: path.basename(culprit.file), row: culprit.row }),
        },
        culprit
          ? 'the intake worker stopped while it mapped a row: that file fails, the others it was reading are read again'
          : 'the intake worker stopped: the files it was reading fail, a new worker takes the next ones',
      );
      const failed = new EdocError(
        'EDOC_READ_WORKER',
        `the intake worker stopped while it read the file (${why}${culprit ? `, at row ${culprit.row}` : ''}); ` +
          'nothing of it was sent: drop the file again to retry',
        culprit ? { row: culprit.row } : {},
      );
      this.failJobs(culprit, failed);
    };
    worker.on('error', (err) => died(err.message));
    worker.on('exit', (code) => died(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  /** A new job on the worker (started if it is not running): its id and the channel of its messages. */
  private openJob(file: string): { id: number; channel: Channel } {
    if (this.closed) throw closedError();
    const worker = this.spawn();
    const id = this.nextId++;
    const channel = new Channel(file);
    this.jobs.set(id, channel);
    worker.ref(); // a worker with a job keeps the process alive
    this.watch.start();
    return { id, channel };
  }

  /** The worker stayed silent with work to do: replaced; the file it was stuck on fails, the others are read again. */
  private stuck(worker: Worker, silentMs: number): void {
    this.worker = undefined; // its exit is not a death to report
    const culprit = this.culprit();
    // the limit as configured (the silence measured runs past it by up to a tick)
    const seconds = Math.round(this.stuckAfterMs() / 100) / 10;
    if (culprit === undefined && Atomics.load(this.marks, MARK_JOB) !== 0) {
      // stuck on a row of a read its intake has left (an insert failed): no running file is at fault
      this.logger.error(
        { code: 'EDOC_READ_STUCK', silentMs: Math.round(silentMs), reads: this.jobs.size },
        `the intake worker spent more than ${seconds} s on a row of a read that had ended: a new worker reads the others again`,
      );
      this.failAll(readAgain());
      return void worker.terminate();
    }
    this.logger.error(
      {
        code: culprit ? 'EDOC_READ_STUCK' : 'EDOC_READ_WORKER',
        silentMs: Math.round(silentMs),
        reads: this.jobs.size,
        ...(culprit && { file: path.basename(culprit.file), row: culprit.row }),
      },
      culprit
        ? `the intake worker spent more than ${seconds} s on one row without answering: that file is refused, a new worker reads the others again`
        : `the intake worker did not answer for more than ${seconds} s: the files it was reading fail, a new worker takes the next ones`,
    );
    const failed = culprit
      ? new EdocError(
          'EDOC_READ_STUCK',
          `${path.basename(culprit.file)}: mapping row ${culprit.row} took longer than ${seconds} s ` +
            '(a capture pattern or row condition of the mapping that backtracks on its cells); nothing of the file was sent',
          { file: path.basename(culprit.file), row: culprit.row },
        )
      : new EdocError(
          'EDOC_READ_WORKER',
          `the intake worker did not answer for more than ${seconds} s while it read the file and was replaced; ` +
            'nothing of it was sent: drop the file again to retry',
        );
    this.failJobs(culprit, failed);
    void worker.terminate();
  }

  /** The job the worker was mapping a row of (read from the shared marks), if it is one of the running ones. */
  private culprit(): { id: number; file: string; row: number } | undefined {
    const id = Atomics.load(this.marks, MARK_JOB);
    const channel = id === 0 ? undefined : this.jobs.get(id);
    return channel && { id, file: channel.file, row: Atomics.load(this.marks, MARK_ROW) };
  }

  /**
   * Every running job fails: the culprit's (or, with none known, each) with `failed`, the others with
   * EDOC_READ_WORKER marked `again` — the worker went down for another file's sake, so they are read again.
   */
  private failJobs(culprit: { id: number } | undefined, failed: EdocError): void {
    if (culprit === undefined) return this.failAll(failed);
    const again = readAgain();
    for (const [id, channel] of this.jobs)
      channel.push({ type: 'failed', error: id === culprit.id ? failed : again });
  }

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private failAll(error: Error): void {
    for (const channel of this.jobs.values()) channel.push({ type: 'failed', error });
  }
}

/** A read cut short for another file's sake (EDOC_READ_WORKER marked `again`): intake.ts reads it again. */
function readAgain(): EdocError {
  return new EdocError(
    'EDOC_READ_WORKER',
    'the intake worker was replaced while it read the file (another file stopped it): read again',
    { again: true },
  );
}

function closedError(): EdocError {
  return new EdocError('EDOC_READ_WORKER', 'the intake worker was closed (the daemon is stopping)');
}
