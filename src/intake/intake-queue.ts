/**
 * The files waiting to be taken in, and how many are read at once: up to `concurrency` files (32 in the
 * pipeline, so a turn's small files share commits) within the byte budget (intake-budget.ts); one intake
 * per path at a time; files a full disk stopped, held until space returns. What taking one file means is
 * the pipeline's (`take`): this queue only orders and bounds the work, and one bad file never stops it.
 */
import PQueue from 'p-queue';
import type { AppLogger } from '../log/logger.js';
import { IntakeBudget } from './intake-budget.js';
import type { PipelineFile } from './pipeline-file.js';

/**
 * Input files taken in at once: their steps share the ledger's group commits, and many small exports
 * arriving together (one per company) are all sending within a second or two instead of one after
 * another; a huge file never holds the others back. The intake worker reads them
 * interleaved; the byte budget keeps big files from being read many at once.
 */
export const INTAKES = 32;

export class IntakeQueue {
  private readonly queue: PQueue;
  private readonly budget = new IntakeBudget();
  private readonly byPath = new Map<string, Promise<unknown>>();
  /** Ready files whose intake a full disk stopped (or that came while paused): taken again by `resume`. */
  private readonly deferred = new Map<string, PipelineFile>();

  constructor(
    private readonly logger: AppLogger,
    /** Takes the file in; an outcome `again` queues it once more (its read was cut short for another file's sake). */
    private readonly take: (file: PipelineFile) => Promise<{ outcome: string } | undefined>,
    concurrency: number,
  ) {
    this.queue = new PQueue({ concurrency });
  }

  /** Queues a ready file (waits while the queue is full: back-pressure on the watcher). */
  async offer(file: PipelineFile): Promise<void> {
    await this.queue.onSizeLessThan(this.queue.concurrency);
    void this.queue.add(() => this.takeInTurn(file));
  }

  /** A file whose intake a full disk stopped: held until `resume`. */
  defer(file: PipelineFile): void {
    this.deferred.set(file.path, file);
  }

  /** Space is back: the deferred files are taken again. */
  resume(): void {
    const files = [...this.deferred.values()];
    this.deferred.clear();
    for (const file of files) void this.queue.add(() => this.takeLogged(file));
  }

  /** Resolves once no file is being taken in or waiting. */
  idle(): Promise<void> {
    return this.queue.onIdle();
  }

  /**
   * One intake per path at a time: new content of a file whose earlier read is still running (and will
   * be dropped as changed) is read after it, so the two never share the path's ledger rows.
   */
  private takeInTurn(file: PipelineFile): Promise<unknown> {
    const before = this.byPath.get(file.path) ?? Promise.resolve();
    const mine = before.then(() => this.takeLogged(file));
    this.byPath.set(file.path, mine);
    return mine.finally(() => {
      if (this.byPath.get(file.path) === mine) this.byPath.delete(file.path);
    });
  }

  private async takeLogged(file: PipelineFile): Promise<void> {
    const release = await this.budget.acquire(
      file.parts ? file.parts.header.size + file.parts.lines.size : (file.size ?? 0),
    );
    try {
      const taken = await this.take(file);
      if (taken?.outcome === 'again') void this.queue.add(() => this.takeInTurn(file));
    } catch (err) {
      // One bad file never takes the daemon down.
      this.logger.error(
        { err, file: file.path, kind: file.kind, company: file.company },
        'intake failed',
      );
    } finally {
      release();
    }
  }
}
