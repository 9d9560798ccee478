/**
 * What a gained or lost company means for the pipeline runs in the lease keeper's `events` callbacks,
 * one after the other per company and outside the beat (a slow recovery never delays a renewal). A
 * failing step is logged and does not stop the next.
 */
import { KeyedTurns } from '../policy/keyed-turns.js';
import type { LeaseKeeperOptions } from './lease-keeper-types.js';

export class CompanyChains {
  private readonly turns = new KeyedTurns();

  constructor(
    private readonly logger: LeaseKeeperOptions['logger'],
    private readonly node: string,
  ) {}

  /** Runs `step` after the company's steps before it. */
  run(company: string, step: () => Promise<void>): void {
    // the failure is logged inside the turn, so `settled` resolves after its line was written
    void this.turns.run(company, async () => {
      try {
        await step();
      } catch (err) {
        this.logger.error(
          { err, node: this.node, company },
          "cluster: a company's start or stop failed",
        );
      }
    });
  }

  /** Resolves once every company's steps queued so far have run. */
  async settled(): Promise<void> {
    await this.turns.settled();
  }
}
