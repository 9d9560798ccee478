/**
 * Writes the outbox from the ledger: files whose documents changed are marked
 * dirty and rewritten at most once per interval (longer for big files, so a
 * 200,000-document result.json is not rewritten in a tight loop); a file whose
 * documents are all final is settled (final report, original archived). An
 * outbox that cannot be written (not writable, disk full) loses nothing: the
 * results stay in the ledger and the file stays dirty until a write succeeds.
 */
import type { CompanyView } from '../company/company-view.js';
import { mkdir } from 'node:fs/promises';
import { isEdocError } from '../errors.js';
import type { LedgerPort } from '../ledger/port.js';
import type { StorageWatch } from '../storage/storage-watch.js';
import type { AppLogger } from '../log/logger.js';
import type { FileRow } from '../ledger/types.js';
import {
  finishTogether,
  settleFile,
  writeFileReport,
  type FileReportResult,
  type LedgerWrite,
} from './file-reports.js';
import { logProgress, newFileTimes, type FileTimes } from './report-progress.js';
import { KeyedTurns } from '../policy/keyed-turns.js';
import { eachAtOnce, WritesTogether } from './report-turns.js';

/** What a report pass wrote: result.json's path and counts, the errors and retry files when there are any. */
export type FileReport = FileReportResult;

export interface ReportSchedulerOptions {
  ledger: LedgerPort;
  logger: AppLogger;
  /** The kind's outbox folder for a company. */
  outboxDir(company: string, kind: string): string;
  /** Whether the original may be archived: only files that came from an inbox folder. @defaultValue always */
  archives?(filePath: string): boolean;
  /** Removes configured secrets from what the reports write (the current configuration's). @defaultValue none */
  scrub?(text: string): string;
  /** Shortest time between two reports of one file. @defaultValue 1000 */
  intervalMs?: number;
  /** Time between two progress lines of one file. @defaultValue 5000 */
  progressMs?: number;
  /** The original of a file was just moved to the archive (the archive watch keeps an eye on it). */
  onArchived?(fileId: number, archivedPath: string): void;
  /** A full disk pauses the daemon's writers with one line; reports are rewritten as soon as it lifts. */
  storage?: StorageWatch;
  /**
   * Which companies this process runs: only a company's owner writes its files' reports and moves their
   * originals (the new owner of a company reports its files again when it takes it).
   */
  companies: CompanyView;
}

/**
 * Files reported at once in a pass (one company's one at a time: its outbox and archive folders are its
 * own), their ledger writes started together (report-turns.ts) so that files settled together share
 * commits. As many as the ledger keeps read connections for the reports' snapshots.
 */
const REPORTS_AT_ONCE = 4;

export class ReportScheduler {
  private readonly dirty = new Set<number>();
  /** Dirty files whose documents are all final: settled at once, not at the next interval. */
  private readonly complete = new Set<number>();
  private timerAt = Infinity;
  private readonly times = new Map<number, FileTimes>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly intervalMs: number;
  private readonly progressMs: number;
  /**
   * No progress report of any file before this. Each file's own spacing keeps its writes to a tenth of
   * the time, but with hundreds of files sending at once (one per company) those tenths add up: a pass's
   * progress reports together wait ten times what they took.
   */
  private progressAfter = 0;
  /** One company's report jobs one after the other. */
  private readonly turns = new KeyedTurns();

  constructor(private readonly options: ReportSchedulerOptions) {
    this.intervalMs = options.intervalMs ?? 1_000;
    this.progressMs = options.progressMs ?? 5_000;
    options.storage?.onResume(() => this.schedule(0));
  }

  /**
   * The file's documents changed: its report is due — at once when the file is complete, else within
   * the interval. Dirty now (a flush right after writes it); whether it is complete is read after: only
   * a scheduling hint, since the pass reads the ledger again and settles a file only when the ledger
   * says every document is final (finishFile checks that in its own transaction).
   */
  touch(fileId: number): void {
    this.dirty.add(fileId);
    this.schedule(this.intervalMs);
    this.options.ledger.fileProgress(fileId).then(
      (p) => {
        if (!p.final || !this.dirty.has(fileId)) return;
        this.complete.add(fileId);
        this.schedule(0);
      },
      (err: unknown) =>
        this.options.logger.warn(
          { err, fileId },
          "could not read a file's progress; its report is written at the next pass",
        ),
    );
  }

  /** Writes every dirty report now (final ones settle). Resolves when done. */
  async flush(): Promise<void> {
    await this.running;
    const pass = this.pass(true);
    this.running = pass;
    try {
      await pass;
    } finally {
      // Left set, the timer would take it for a pass still running and postpone every later report.
      if (this.running === pass) this.running = undefined;
    }
  }

  /** Stop the timer after a last flush. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    await this.flush();
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) {
      if (this.timerAt <= Date.now() + ms) return;
      clearTimeout(this.timer); // a complete file does not wait for the interval of the others
    }
    this.timerAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      if (this.running) {
        this.schedule(Math.max(ms, 20));
        return;
      }
      this.running = this.pass(false).finally(() => {
        this.running = undefined;
        if (this.dirty.size > 0)
          this.schedule(
            this.complete.size > 0 ? 0 : Math.max(this.intervalMs, this.progressAfter - Date.now()),
          );
      });
    }, ms);
    this.timer.unref?.();
  }

  private async pass(force: boolean): Promise<void> {
    if (!force && this.options.storage?.paused === true) return; // rewritten when it lifts (onResume)
    const now = Date.now();
    const progressDue = force || now >= this.progressAfter;
    let spent = 0;
    const due = [...this.dirty].filter((fileId) => {
      if (force || this.complete.has(fileId)) return true;
      const t = this.times.get(fileId);
      return progressDue && !(t && now < t.nextWrite);
    });
    const { ledger, companies } = this.options;
    await finishTogether(
      ledger,
      companies,
      due.filter((id) => this.complete.has(id)),
    );
    const together = new WritesTogether();
    await eachAtOnce(due, REPORTS_AT_ONCE, async (fileId) => {
      const complete = this.complete.has(fileId);
      this.dirty.delete(fileId);
      this.complete.delete(fileId);
      const started = Date.now();
      await this.report(fileId, together);
      if (!complete) spent += Date.now() - started;
    });
    // the time the pass took for progress reports: theirs together, shared by the reports made at once
    spent /= Math.max(1, Math.min(REPORTS_AT_ONCE, due.length));
    if (spent > 0) this.progressAfter = now + Math.max(this.intervalMs, spent * 10);
  }

  /**
   * Writes the file's report now, outside the interval (`edoc-bridge submit` at its end): settled when
   * every document is final, a progress report otherwise; one final already is written again. Throws
   * when the outbox cannot be written.
   */
  async reportNow(fileId: number): Promise<FileReport> {
    await this.running;
    const job = (async () => {
      this.dirty.delete(fileId);
      this.complete.delete(fileId);
      const file = await this.options.ledger.getFile(fileId);
      if (!file) throw new Error(`reportNow: no file ${fileId} in the ledger`);
      const written = await this.write(file, this.timesOf(fileId));
      return (
        written ??
        writeFileReport(this.options.ledger, fileId, this.outboxOf(file), { scrub: this.scrub() })
      );
    })();
    // a timer pass waits for this one, as for a flush
    const running = job.then(
      () => undefined,
      () => undefined,
    );
    this.running = running;
    try {
      return await job;
    } finally {
      if (this.running === running) this.running = undefined;
    }
  }

  private async report(fileId: number, together?: WritesTogether): Promise<void> {
    const { logger } = this.options;
    // a ledger that cannot be read now (PostgreSQL: connection cut) must not end the timer's pass: tried again later
    const file = await this.options.ledger.getFile(fileId).catch((err: unknown) => {
      logger.warn(
        { err, fileId },
        'the ledger could not be read for a report: tried again shortly',
      );
      this.dirty.add(fileId);
      return null;
    });
    if (!file) return;
    if (!this.options.companies.owns(file.company)) {
      this.times.delete(fileId);
      return;
    }
    const started = Date.now();
    const t = this.timesOf(fileId);
    try {
      await this.turns.run(file.company, () =>
        together === undefined
          ? this.write(file, t)
          : together.within(() => this.write(file, t, together.run)),
      );
    } catch (err) {
      // The ledger keeps every result: try again later rather than lose or block anything.
      // A full disk is one line for the whole daemon (StorageWatch), and the report is rewritten when it lifts.
      // Cluster: the company's lease went to another node between the owner check and the write; its new
      // owner writes the report. Not an outbox failure.
      if (isEdocError(err, 'EDOC_CLUSTER_FENCED')) {
        logger.info(
          { file: file.name, company: file.company },
          "report left to the company's new owner (its lease moved)",
        );
        this.times.delete(fileId);
        return;
      }
      const full = this.options.storage?.report(err, 'outbox') === true;
      if (!full && !t.failing) {
        logger.error(
          {
            err,
            code: 'EDOC_REPORT_WRITE',
            file: file.name,
            kind: file.kind,
            company: file.company,
          },
          'cannot write the outbox; results are kept in the ledger and written when it is back',
        );
      }
      t.failing ||= !full;
      this.dirty.add(fileId);
      t.nextWrite = Date.now() + (full ? 0 : 5_000);
      return;
    }
    const took = Date.now() - started;
    t.lastWrite = Date.now();
    // Big reports cost more to write: space them so writing never dominates.
    t.nextWrite = t.lastWrite + Math.max(this.intervalMs, took * 10);
  }

  private timesOf(fileId: number): FileTimes {
    const t = this.times.get(fileId) ?? newFileTimes(Date.now());
    this.times.set(fileId, t);
    return t;
  }

  /** Fixed when the file was recorded (a reload may have changed the layout since); derived for older ledgers. */
  private outboxOf(file: FileRow): string {
    return file.outboxDir ?? this.options.outboxDir(file.company, file.kind);
  }

  private scrub(): ((text: string) => string) | undefined {
    return this.options.scrub?.bind(this.options);
  }

  /** Settles the file, or writes its progress report; the report written, if any (none for one settled before). */
  private async write(
    file: FileRow,
    t: FileTimes,
    together?: LedgerWrite,
  ): Promise<FileReport | undefined> {
    const { ledger, logger } = this.options;
    const fileId = file.id;
    const outboxDir = this.outboxOf(file);
    await mkdir(outboxDir, { recursive: true });
    const scrub = this.scrub();
    const settled = await settleFile(ledger, fileId, outboxDir, {
      archive: file.archive ?? this.options.archives?.(file.path) ?? true,
      scrub,
      together,
    });
    let written = settled.report;
    if (!settled.settled) {
      written = await writeFileReport(ledger, fileId, outboxDir, { scrub, together });
      await logProgress({ ledger, logger, progressMs: this.progressMs }, file, t);
    } else {
      this.times.delete(fileId);
      if (settled.changedAfterSend !== undefined) {
        logger.error(
          {
            code: 'EDOC_READ_CHANGED_AFTER_SEND',
            file: file.name,
            kind: file.kind,
            company: file.company,
          },
          `FILE CHANGED AFTER SENDING BEGAN, ${settled.changedAfterSend}; the changed file is not archived ` +
            'and is taken as a new file',
        );
      }
      if (settled.archivedPath !== undefined)
        this.options.onArchived?.(fileId, settled.archivedPath);
      const counts = settled.report?.counts;
      // said once, when the final report or the archive happens: not again for a file settled before
      if (settled.report !== undefined || settled.archivedPath !== undefined) {
        logger.info(
          {
            file: file.name,
            kind: file.kind,
            company: file.company,
            counts,
            archived: settled.archivedPath,
          },
          'file complete',
        );
      }
    }
    if (t.failing) logger.info({ file: file.name }, 'outbox writable again: report written');
    t.failing = false;
    return written;
  }
}
