/**
 * One company's numbering-range schedule, a job of its run (company/company-run.ts): its ranges are
 * read (E10, through the run's rate while its gate is open: range-watch.ts) when the run starts and
 * every `alerts.ranges.every` after; a reload that gave the company another key or NIT reads them at
 * once; a stopped run's read under way is aborted. What is read goes to the shared RangeWatch, which
 * judges intake's numbers and keeps ranges.json for `status`.
 */
import type { CompanyConfig } from '../config/schema.js';
import type { RangeWatch } from './range-watch.js';

export class RangeSchedule {
  private timer: NodeJS.Timeout | undefined;
  private readAs: { apiKey: string; nit: string };

  constructor(
    private readonly watch: RangeWatch,
    private readonly run: { readonly company: CompanyConfig },
    /** How often E10 is read (`alerts.ranges.every`, read at each (re)schedule). */
    private readonly everyMs: () => number,
  ) {
    this.readAs = { apiKey: run.company.apiKey, nit: run.company.nit };
  }

  private get alias(): string {
    return this.run.company.alias;
  }

  /** Reads the company's ranges now, then every `everyMs`. */
  start(): void {
    if (this.timer !== undefined) return;
    void this.watch.read(this.alias);
    this.schedule();
    this.watch.scheduled(this, true);
  }

  /** The schedule starts again from now (a reloaded `every`). */
  reschedule(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.schedule();
  }

  /** A reloaded company: another key or NIT has its ranges read now, not at the next `every`. */
  reload(company: CompanyConfig): void {
    if (company.apiKey === this.readAs.apiKey && company.nit === this.readAs.nit) return;
    this.readAs = { apiKey: company.apiKey, nit: company.nit };
    if (this.timer !== undefined) void this.watch.read(company.alias);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watch.scheduled(this, false);
    await this.watch.stopReading(this.alias);
  }

  private schedule(): void {
    this.timer = setInterval(() => void this.watch.read(this.alias), this.everyMs());
    this.timer.unref();
  }
}
