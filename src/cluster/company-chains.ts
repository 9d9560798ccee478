/**
 * What a gained or lost company means for the pipeline runs in the lease keeper's `events` callbacks,
 * one after the other per company and outside the beat (a slow recovery never delays a renewal). A
 * failing step is logged and does not stop the next.
 */
import type { LeaseKeeperOptions } from './lease-keeper-types.js';

export class CompanyChains {
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly logger: LeaseKeeperOptions['logger'],
    private readonly node: string,
  ) {}

  /** Runs `step` after the company's steps before it. */
  run(company: string, step: () => Promise<void>): void {
    const before = this.chains.get(company) ?? Promise.resolve();
    const next = before.then(step).catch((err: unknown) => {
      this.logger.error(
        { err, node: this.node, company },
        "cluster: a company's start or stop failed",
      );
    });
    this.chains.set(company, next);
    void next.finally(() => {
      if (this.chains.get(company) === next) this.chains.delete(company);
    });
  }

  /** Resolves once every company's steps queued so far have run. */
  async settled(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }
}
