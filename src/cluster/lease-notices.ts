/**
 * "A lease was just released": PostgreSQL's LISTEN/NOTIFY on one channel, so the other nodes claim a
 * company handed over (a graceful stop, a fair-share hand-back) at once instead of at their next
 * heartbeat (up to leaseMs / 3 later). The release statement notifies (lease-store.ts, same
 * transaction: delivered only once it committed); each node listens on one connection of its own.
 *
 * A notice is only a hint to beat early: a node that misses one (its listening connection down, the
 * notice lost with it) claims at its next heartbeat as before, so nothing depends on delivery; once
 * listening again it looks at once (`onListeningAgain`). The connection is opened again after a failure,
 * once per heartbeat at most, and a failure is logged once per episode (the URL's password never:
 * node-postgres errors name the server, not the secret).
 */
import pg from 'pg';
import type { AppLogger } from '../log/logger.js';
import { resolvePgConnection } from '../config/pg-connection.js';

/** The channel every node listens on; the payload is the releasing node's name. */
export const LEASE_RELEASED_CHANNEL = 'edoc_lease_released';

export interface LeaseNoticesOptions {
  url: string;
  /** pg_stat_activity's name for the connection (the node's). */
  applicationName: string;
  /** This node's name: its own notices are not news. */
  node: string;
  /** How long to wait before opening the connection again after it failed. */
  retryMs: number;
  logger: AppLogger;
  /** Another node released a lease. */
  onReleased(by: string): void;
  /** Listening again after the connection failed: notices sent meanwhile are lost, so look now. */
  onListeningAgain?(): void;
}

export class LeaseNotices {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private failing = false;

  constructor(private readonly options: LeaseNoticesOptions) {}

  /** Starts listening in the background (never throws; a connection that fails is retried). */
  start(): void {
    void this.connect();
  }

  /** Whether the listening connection is up now (tests, status). */
  get listening(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const { url, applicationName, node, logger } = this.options;
    let client: pg.Client | undefined;
    try {
      const connection = resolvePgConnection(url);
      client = new pg.Client({
        connectionString: connection.connectionString,
        application_name: applicationName,
        connectionTimeoutMillis: this.options.retryMs,
      });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      client.on('notification', (msg) => {
        if (msg.channel === LEASE_RELEASED_CHANNEL && msg.payload !== node)
          this.options.onReleased(msg.payload ?? '');
      });
      await client.connect();
      await client.query(`LISTEN ${LEASE_RELEASED_CHANNEL}`);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      const again = this.failing;
      this.failing = false;
      if (again) {
        logger.info({ node }, 'cluster: listening for released leases again');
        this.options.onListeningAgain?.();
      }
    } catch (err) {
      if (!this.failing) {
        logger.warn(
          {
            node,
            reason: err instanceof Error ? err.message.split('\n')[0].slice(0, 200) : String(err),
          },
          'cluster: cannot listen for released leases: companies handed over are claimed at the next heartbeat',
        );
      }
      this.failing = true;
      const stream = (
        client as unknown as { connection?: { stream?: { destroy(): void } } } | undefined
      )?.connection?.stream;
      stream?.destroy();
      this.retry();
    }
  }

  private lost(client: pg.Client | undefined): void {
    if (client === undefined || this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (!this.closed) {
      this.failing = true;
      this.options.logger.warn(
        { node: this.options.node },
        'cluster: the connection listening for released leases ended: opened again',
      );
      this.retry();
    }
  }

  private retry(): void {
    if (this.closed || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, this.options.retryMs);
    this.timer.unref();
  }

  /** Stops listening and closes the connection. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
