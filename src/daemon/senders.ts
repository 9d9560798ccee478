/**
 * The pipeline's company senders, one per company it sends for: started, updated on a reload, stopped
 * alone (cluster: a company handed over or lost) or all together at close.
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import type { CompanySender, SenderView } from '../submit/company-sender.js';

export class Senders {
  private readonly senders = new Map<string, CompanySender>();

  constructor(private readonly make: (company: CompanyConfig) => CompanySender) {}

  get(alias: string): CompanySender | undefined {
    return this.senders.get(alias);
  }

  /** Starts the company's sender unless it runs already. */
  start(company: CompanyConfig): void {
    if (this.senders.has(company.alias)) return;
    const sender = this.make(company);
    this.senders.set(company.alias, sender);
    sender.start();
  }

  /** Stops one company's sender: its in-flight requests finish (up to `drainMs`) and their verdicts are committed. */
  async stop(alias: string, drainMs?: number): Promise<void> {
    const sender = this.senders.get(alias);
    if (sender === undefined) return;
    this.senders.delete(alias);
    await sender.close(drainMs);
  }

  /** A reload: new keys and rates; companies gone are stopped; `runs` says which new ones start here. */
  async update(next: Readonly<Config>, runs: (alias: string) => boolean): Promise<void> {
    for (const company of next.companies) {
      const sender = this.senders.get(company.alias);
      if (sender) sender.update(company, next.retry);
      else if (runs(company.alias)) this.start(company);
    }
    for (const alias of [...this.senders.keys()]) {
      if (!next.companies.some((c) => c.alias === alias)) await this.stop(alias);
    }
  }

  wake(): void {
    for (const sender of this.senders.values()) sender.wake();
  }

  views(): SenderView[] {
    return [...this.senders.values()].map((s) => s.view());
  }

  async closeAll(drainMs?: number): Promise<void> {
    const all = [...this.senders.values()];
    this.senders.clear();
    await Promise.all(all.map((s) => s.close(drainMs)));
  }
}
