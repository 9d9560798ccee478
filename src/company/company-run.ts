/**
 * One company as this process runs it: its configuration, its gate (company-gate.ts), its rate, its
 * sender, its 401 pause and the per-company jobs the process adds (the daemon's received-documents
 * pull). A 401 to any of the company's calls pauses all of its work, and a reload resumes it. A run is
 * started when the company starts here (at start with one process; in a cluster when its lease is
 * taken), handed over (drained) or lost (stopped at once) when its lease goes, reloaded with a new
 * configuration, and closed once. Between a hand-over and the next start it holds nothing. Its take gate
 * orders the files taken for it with a reload that changes its identity.
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import { CompanyPause } from '../rate/company-pause.js';
import type { CompanyRate } from '../rate/company-rate.js';
import type { CompanySender, SenderView } from '../submit/company-sender.js';
import type { CompanyGate } from './company-gate.js';
import { TakeGate } from './take-gate.js';

/** How long a company's sender may finish its requests when its lease is lost (their verdicts are refused anyway). */
export const LOST_DRAIN_MS = 1_000;

/** Work a run owns besides its sender: started and stopped with the run, told of a reload. */
export interface CompanyJob {
  start(): void;
  /** Stops it; its work in flight is aborted and waited for. Called once per start. */
  stop(): Promise<void>;
  /** A reloaded configuration of the company (its key, its rate); `resume`: a 401 pause is lifted. */
  reload?(company: CompanyConfig, resume: boolean): void;
}

/** What a run is made of: its parts, made per start. */
export interface CompanyRunParts {
  /** The company's sender, made at each start (the pipeline's ledger, client and reports). */
  sender(
    company: CompanyConfig,
    rate: CompanyRate,
    gate: CompanyGate,
    pause: CompanyPause,
  ): CompanySender;
  /** The process's per-company jobs, made at each start. */
  jobs(run: CompanyRun): CompanyJob[];
}

export type CompanyRunState = 'ready' | 'running' | 'closed';

export class CompanyRun {
  private current: CompanyConfig;
  private running: { sender: CompanySender; jobs: CompanyJob[] } | undefined;
  private closed = false;
  /** The stop in progress (a hand-over, a loss, a close): a start waits for it. */
  private stopping: Promise<void> = Promise.resolve();

  /** The company's one 401 pause: its sender's and its jobs' (kept across a stop and a start here). */
  readonly pause = new CompanyPause();

  /**
   * Its take gate (take-gate.ts): a file taken for it holds it until the ledger recorded the file, a
   * reload that changes its id or NIT holds it alone, so that reload's check sees every file taken
   * under the identity it replaces.
   */
  readonly takes = new TakeGate();

  constructor(
    company: CompanyConfig,
    readonly gate: CompanyGate,
    /** The company's one rate: its sender's, borrowed by its pull, its range reads and the idle probe. */
    readonly rate: CompanyRate,
    private readonly parts: CompanyRunParts,
  ) {
    this.current = company;
  }

  get alias(): string {
    return this.current.alias;
  }

  /** The company's configuration in force here (a reload replaces it). */
  get company(): CompanyConfig {
    return this.current;
  }

  get state(): CompanyRunState {
    if (this.closed) return 'closed';
    return this.running === undefined ? 'ready' : 'running';
  }

  /** Its sender while it runs. */
  get sender(): CompanySender | undefined {
    return this.running?.sender;
  }

  /** Starts its sender and jobs unless it runs already or was closed. */
  start(): void {
    if (this.closed || this.running !== undefined) return;
    const sender = this.parts.sender(this.current, this.rate, this.gate, this.pause);
    this.running = { sender, jobs: [] };
    sender.start();
    this.running.jobs = this.parts.jobs(this);
    for (const job of this.running.jobs) job.start();
  }

  /** A job added while it runs (the daemon's, made after the pipeline started the runs): started now. */
  addJob(job: CompanyJob): void {
    if (this.running === undefined) return;
    this.running.jobs.push(job);
    job.start();
  }

  /** Stops its jobs now (the process stops: before the senders drain); its sender runs on. */
  async stopJobs(): Promise<void> {
    const jobs = this.running?.jobs ?? [];
    if (this.running !== undefined) this.running.jobs = [];
    await Promise.allSettled(jobs.map((job) => job.stop()));
  }

  /** Its lease is handed over (or this node stops): in-flight requests finish (up to `drainMs`) and their verdicts are committed. */
  handOver(drainMs?: number): Promise<void> {
    return this.stop(drainMs);
  }

  /** Its lease is lost: nothing more starts; requests in flight get LOST_DRAIN_MS (their verdicts are refused anyway). */
  lose(): Promise<void> {
    return this.stop(LOST_DRAIN_MS);
  }

  /**
   * A reloaded configuration: new key, rate or concurrency, told to every job; a 401 pause is lifted
   * unless `resume` is false (the reload left what the service refused as it was: company-runs.ts).
   */
  reload(company: CompanyConfig, retry: Config['retry'], resume = true): void {
    this.current = company;
    if (this.running !== undefined) {
      this.running.sender.update(company, retry, resume);
      for (const job of this.running.jobs) job.reload?.(company, resume);
    }
    // the sender lifted it (one line); a run not running now starts unpaused
    if (resume) this.pause.resume();
  }

  /** Stops it for good (the process stops, or a reload removed the company). Idempotent. */
  close(drainMs?: number): Promise<void> {
    this.closed = true;
    return this.stop(drainMs);
  }

  wake(): void {
    this.running?.sender.wake();
  }

  view(): SenderView | undefined {
    return this.running?.sender.view();
  }

  private stop(drainMs: number | undefined): Promise<void> {
    const running = this.running;
    if (running === undefined) return this.stopping;
    this.running = undefined;
    const before = this.stopping;
    this.stopping = (async () => {
      await before;
      await Promise.allSettled(running.jobs.map((job) => job.stop()));
      await running.sender.close(drainMs);
    })();
    return this.stopping;
  }
}
