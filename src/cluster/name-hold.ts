/**
 * What this run says of its node's name: that another run took it (EDOC_CLUSTER_NODE_IN_USE: this one runs
 * no company) and, when that run stops beating and this one registers again, that it holds the name again.
 * Each said once per change, however many beats repeat it.
 */
import type { AppLogger } from '../log/logger.js';

export class NameHold {
  private stoodDown = false;

  constructor(
    private readonly logger: Pick<AppLogger, 'error' | 'warn'>,
    private readonly node: string,
  ) {}

  /** Another running process holds the name now. */
  lost(): void {
    if (this.stoodDown) return;
    this.stoodDown = true;
    this.logger.error(
      { node: this.node, code: 'EDOC_CLUSTER_NODE_IN_USE' },
      "cluster: another running process took this node's name: this one runs no company (give each node its own cluster.node)",
    );
  }

  /** This run registered under the name again (the other run's heartbeat expired). */
  regained(): void {
    if (!this.stoodDown) return;
    this.stoodDown = false;
    this.logger.warn(
      { node: this.node },
      "cluster: the other run of this node's name stopped beating: this one holds the name again and takes companies",
    );
  }
}
