/**
 * This node's clock against the database server's, measured at every heartbeat: the server's
 * clock_timestamp() against the midpoint of this machine's clock around the round trip. The offset is
 * what the ledger's clock adds (policy/ledger-clock.ts), so every time one node writes and another
 * compares (a document's next attempt, a file's times, an archive move) is the database's time. A node
 * more than a second off is told, once per episode (EDOC_CLUSTER_CLOCK_SKEW), and again when it is back.
 */
import type { SqlExecutor } from '../ledger/sql/executor.js';
import type { AppLogger } from '../log/logger.js';
import { setLedgerClockOffset } from '../policy/ledger-clock.js';

/** Beyond this the node's clock is reported off. */
export const CLOCK_SKEW_WARN_MS = 1_000;

export class ClockOffset {
  private skewed = false;

  constructor(
    private readonly db: SqlExecutor,
    private readonly node: string,
    private readonly logger: AppLogger,
  ) {}

  /** Measures the offset, sets the ledger's clock, and says so when the machine's clock is off. */
  async measure(): Promise<number> {
    const before = Date.now();
    const row = await this.db.get<{ ms: number }>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::double precision AS ms',
    );
    const after = Date.now();
    const offset = Number(row?.ms) - (before + after) / 2;
    if (!Number.isFinite(offset)) return 0;
    setLedgerClockOffset(offset);
    const off = Math.abs(offset) > CLOCK_SKEW_WARN_MS + (after - before) / 2;
    if (off && !this.skewed) {
      this.logger.warn(
        { code: 'EDOC_CLUSTER_CLOCK_SKEW', node: this.node, offsetMs: Math.round(offset) },
        `cluster: this machine's clock is ${Math.round(Math.abs(offset) / 1000)} s ${offset < 0 ? 'ahead of' : 'behind'} the database's: ` +
          "the times the nodes compare are taken from the database's clock; fix the machine's time (NTP)",
      );
    } else if (!off && this.skewed) {
      this.logger.info(
        { node: this.node, offsetMs: Math.round(offset) },
        "cluster: this machine's clock agrees with the database's again",
      );
    }
    this.skewed = off;
    return offset;
  }
}
