/**
 * The numbering-range watch: what is known of each company's active ranges (E10, read within the
 * company's one rate while its run's gate is open), combined with the highest number the ledger used
 * of each (every minute, an indexed read): numbers left and days left per range. Each company's run
 * reads its ranges on its own schedule (range-schedule.ts, a job of the run: at its start and every
 * `alerts.ranges.every`); what stays shared is what intake and `status` need of every company. The
 * alerts listen to it, the metrics and the console read `snapshot()`, `status` reads what it stored.
 *
 * It also judges a document's own number before the document is stored (`checkNumber`): a number
 * outside every active range of its prefix is refused, but only after E10 was read again for it —
 * a range registered a minute ago is not missed — and at most once per company every `recheckMs`,
 * so a file of 10,000 bad numbers costs one E10 call, not 10,000. Where E10 cannot be read (down,
 * 401, any error) nothing is refused on its account.
 */
import { EventEmitter } from 'node:events';
import type { CompanyConfig } from '../config/schema.js';
import type { DocumentKey, DocumentKind } from '../kinds/index.js';
import type { Logger } from '../log/logger.js';
import { colombiaToday } from '../policy/dates.js';
import type { CompanyPause } from '../rate/company-pause.js';
import type { CompanyRate } from '../rate/company-rate.js';
import type { ServiceClient } from '../service/client.js';
import type { Problem } from '../validate/problem.js';
import { readRanges } from './range-read.js';
import { RangeFileWriter, type CompanyRead, type StoredRanges } from './range-file.js';
import {
  describeRanges,
  RANGE_KINDS,
  rangeState,
  withinRanges,
  type ActiveRange,
} from './range-math.js';
import type { RangeState } from './range-state.js';

/** A company as its run runs it here (company/company-run.ts): its configuration, gate and one rate. */
export interface RangeRun {
  readonly company: CompanyConfig;
  /** Whether a request may start for the company now; a read that may not is skipped, as failed. */
  readonly gate: { open(): boolean };
  readonly rate: CompanyRate;
  /** The company's 401 pause (its run's): a paused company's ranges are not read. */
  readonly pause: CompanyPause;
}

/** The runs of this process (company/company-runs.ts): only a company run here has its ranges read. */
export interface RangeRuns {
  get(alias: string): RangeRun | undefined;
  list(): readonly RangeRun[];
}

export interface RangeWatchOptions {
  /** The companies this process runs now (a reload and, in a cluster, the leases change them). */
  runs: RangeRuns;
  client: Pick<ServiceClient, 'listRanges'>;
  /** The ledger's highest number of a prefix in [from, to] (Ledger.highestNumberUsed). */
  highestUsed(
    company: string,
    kinds: readonly DocumentKind[],
    prefix: string,
    from: number,
    to: number,
  ): Promise<number | undefined>;
  logger: Logger;
  /** Whether a number outside every range is refused (alerts.ranges.refuseOutOfRange). */
  refuse(): boolean;
  /** Where `ranges.json` is kept for `status`; not kept when absent. */
  stateDir?: string;
  /** Colombia's today. @defaultValue colombiaToday() */
  today?: () => string;
  now?: () => number;
  /** At most one re-read for a refusal per company within this. @defaultValue 15000 */
  recheckMs?: number;
  /** How often numbers left are recomputed from the ledger (no E10 call). @defaultValue 60000 */
  ledgerEveryMs?: number;
}

interface Known {
  ranges: ActiveRange[];
  readAt: number;
}

interface CompanyWatch {
  known?: Known;
  states: RangeState[];
  reading?: Promise<boolean>;
  /** Aborts the read under way (its run stopped). */
  stopRead?: AbortController;
  error?: { reason: string; at: number };
  /** The last re-read a refusal asked for: when it began and whether it read the ranges. */
  recheck?: { at: number; ok: boolean };
  /** Counts recomputations: the ledger read is async, and only the latest one's result is kept. */
  computed?: number;
}

export interface RangeWatchEvents {
  /** A company's ranges (or the ledger's use of them) were computed again. */
  update: [company: string, states: readonly RangeState[]];
}

export class RangeWatch extends EventEmitter<RangeWatchEvents> {
  private readonly watches = new Map<string, CompanyWatch>();
  private readonly abort = new AbortController();
  private readonly now: () => number;
  private readonly today: () => string;
  private timer: NodeJS.Timeout | undefined;
  /** The runs' schedules (range-schedule.ts) while they run: a reloaded `every` restarts them. */
  private readonly schedules = new Set<{ reschedule(): void }>();
  private readonly touched = new Map<string, NodeJS.Timeout>();
  /** ranges.json in the state folder (none without `stateDir`). */
  private readonly file: RangeFileWriter | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: RangeWatchOptions) {
    super();
    this.now = options.now ?? Date.now;
    this.today = options.today ?? (() => colombiaToday(this.now()));
    this.file =
      options.stateDir === undefined
        ? undefined
        : new RangeFileWriter(options.stateDir, options.logger, this.abort.signal);
  }

  /** Recomputes numbers left from the ledger every `ledgerEveryMs` (the runs' schedules read E10). */
  start(): void {
    if (this.timer !== undefined || this.closing) return;
    this.timer = setInterval(() => this.recomputeAll(), this.options.ledgerEveryMs ?? 60_000);
    this.timer.unref();
  }

  /** A run's schedule runs (or stopped): told of a reloaded `every`. */
  scheduled(schedule: { reschedule(): void }, running: boolean): void {
    if (running) this.schedules.add(schedule);
    else this.schedules.delete(schedule);
  }

  /** A reloaded `alerts.ranges.every` takes effect: every run's schedule starts again from now. */
  reschedule(): void {
    if (this.closing) return;
    for (const schedule of this.schedules) schedule.reschedule();
  }

  /** Every range known now, each with numbers and days left. */
  snapshot(): readonly RangeState[] {
    return [...this.watches.values()].flatMap((w) => w.states);
  }

  /** Reads the ranges of every company run here now; resolves when all reads ended. */
  async readAll(): Promise<void> {
    await Promise.all(this.options.runs.list().map((run) => this.read(run.company.alias)));
  }

  /**
   * Why `key` may not be sent, or undefined. A promise only when E10 must be read first (the number
   * is outside the ranges known, or the first read is still under way).
   */
  checkNumber(
    company: string,
    kind: DocumentKind,
    key: DocumentKey,
  ): Problem | undefined | Promise<Problem | undefined> {
    if (!this.options.refuse() || !RANGE_KINDS.includes(kind) || !/^\d{1,15}$/.test(key.number))
      return undefined;
    const number = Number(key.number);
    const watch = this.watches.get(company);
    if (watch?.known === undefined) {
      // the first read may still be under way (a file dropped as the daemon starts)
      return watch?.reading === undefined
        ? undefined
        : watch.reading.then(() => this.judge(company, key, number, false));
    }
    if (withinRanges(watch.known.ranges, key.prefix, number) !== false) return undefined;
    return this.judge(company, key, number, true);
  }

  private async judge(
    company: string,
    key: DocumentKey,
    number: number,
    reread: boolean,
  ): Promise<Problem | undefined> {
    const watch = this.watches.get(company);
    if (
      watch?.known === undefined ||
      withinRanges(watch.known.ranges, key.prefix, number) !== false
    )
      return undefined;
    if (reread) {
      const recent =
        watch.recheck !== undefined &&
        this.now() - watch.recheck.at < (this.options.recheckMs ?? 15_000);
      if (!recent) {
        watch.recheck = { at: this.now(), ok: false };
        const recheck = watch.recheck;
        recheck.ok = await this.read(company);
      } else if (watch.reading !== undefined) {
        await watch.reading;
      }
      // E10 could not be read again: nothing is refused on its account
      if (watch.recheck?.ok !== true) return undefined;
    }
    const known = this.watches.get(company)?.known;
    if (known === undefined || withinRanges(known.ranges, key.prefix, number) !== false)
      return undefined;
    const mine = known.ranges.filter((r) => r.prefix === key.prefix);
    return {
      code: 'EDOC_VALIDATE_OUT_OF_RANGE',
      path: '',
      message:
        `The number ${key.prefix}${key.number} is outside every active numbering range of prefix ${key.prefix} ` +
        `(${describeRanges(mine)}; read from the service at ${new Date(known.readAt).toISOString()}): it was not sent. ` +
        'Correct the number, or register a range that holds it (edoc-bridge ranges create) and drop the retry file.',
    };
  }

  /** Reads one company's ranges (one read at a time per company); true when they were read. */
  read(alias: string): Promise<boolean> {
    const watch = this.watchOf(alias);
    watch.reading ??= this.doRead(alias, watch).finally(() => {
      watch.reading = undefined;
    });
    return watch.reading;
  }

  private watchOf(alias: string): CompanyWatch {
    let watch = this.watches.get(alias);
    if (watch === undefined) {
      watch = { states: [] };
      this.watches.set(alias, watch);
    }
    return watch;
  }

  /** The company's run stopped here: its read under way is aborted and waited for. */
  async stopReading(alias: string): Promise<void> {
    const watch = this.watches.get(alias);
    watch?.stopRead?.abort();
    await watch?.reading;
  }

  private async doRead(alias: string, watch: CompanyWatch): Promise<boolean> {
    const run = this.options.runs.get(alias);
    if (run === undefined || this.closing || !run.gate.open() || run.pause.paused) return false;
    const company = run.company;
    watch.stopRead = new AbortController();
    const signal = AbortSignal.any([this.abort.signal, watch.stopRead.signal]);
    const gate = (): boolean => run.gate.open();
    const read = await readRanges(company, run.rate, this.options.client, signal, gate);
    if (read === undefined) return false;
    if (read.ok) {
      if (watch.error !== undefined)
        this.options.logger.info({ company: alias }, 'numbering ranges read again');
      watch.error = undefined;
      watch.known = { ranges: read.ranges, readAt: this.now() };
      await this.recompute(alias, watch);
      return true;
    }
    if (signal.aborted) return false;
    const { failure } = read;
    // E10's 403 is "invalid key, or nit does not match the company" (the spec): it cannot tell a refused
    // key from a NIT that E1 never checks, so it pauses nothing; the submissions meet a refused key themselves
    // one line per failing episode, not one per read
    if (watch.error === undefined) {
      this.options.logger.warn(
        { code: 'EDOC_RANGES_UNREADABLE', company: alias, reason: failure },
        'the numbering ranges could not be read (E10); the last ones read are kept and no document is refused on their account',
      );
    }
    watch.error = { reason: failure, at: this.now() };
    this.save();
    return false;
  }

  /**
   * Documents of the company were issued: numbers left are computed again from the ledger within a
   * second (one read for a whole burst of acceptances), so the alerts and metrics need not wait a minute.
   */
  touch(alias: string): void {
    if (this.touched.has(alias) || this.closing) return;
    const timer = setTimeout(() => {
      this.touched.delete(alias);
      const watch = this.watches.get(alias);
      if (watch !== undefined) void this.recompute(alias, watch);
    }, 1_000);
    timer.unref();
    this.touched.set(alias, timer);
  }

  private recomputeAll(): void {
    for (const [alias, watch] of this.watches)
      if (watch.known !== undefined) void this.recompute(alias, watch);
  }

  /** Never rejects: a failed ledger read leaves the states as they were. */
  private async recompute(alias: string, watch: CompanyWatch): Promise<void> {
    if (watch.known === undefined || this.closing) return;
    const today = this.today();
    const { ranges, readAt } = watch.known;
    const n = (watch.computed ?? 0) + 1;
    watch.computed = n;
    try {
      const used = await Promise.all(
        ranges.map((r) => this.options.highestUsed(alias, RANGE_KINDS, r.prefix, r.from, r.to)),
      );
      // a later recomputation (newer ranges, or a newer read of the ledger) started meanwhile: it decides
      if (watch.computed !== n || this.closing) return;
      watch.states = ranges.map((r, i) => rangeState(alias, r, used[i], today, readAt));
    } catch (err) {
      // the ledger closed under us (shutdown) or is busy: the states stay as they were until the next minute
      this.options.logger.warn(
        { err, company: alias },
        'numbers used of the ranges could not be read from the ledger',
      );
      return;
    }
    this.emit('update', alias, watch.states);
    this.save();
  }

  /** Keeps ranges.json for `status` (at most a write a second: range-file.ts). */
  private save(): void {
    this.file?.save(() => this.stored());
  }

  private stored(): StoredRanges {
    const companies: CompanyRead[] = [...this.watches.entries()].map(([company, w]) => ({
      company,
      ...(w.known ? { readAt: w.known.readAt } : {}),
      ...(w.error ? { error: w.error.reason, errorAt: w.error.at } : {}),
    }));
    return { savedAt: this.now(), companies, ranges: [...this.snapshot()] };
  }

  /** Stops the schedule, aborts reads under way and waits for the last save. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.timer);
      for (const timer of this.touched.values()) clearTimeout(timer);
      this.timer = undefined;
      this.schedules.clear();
      this.touched.clear();
      this.abort.abort();
      await Promise.allSettled(
        [...this.watches.values()].flatMap((w) => (w.reading === undefined ? [] : [w.reading])),
      );
      await this.file?.saved();
    })();
    return this.closing;
  }
}
