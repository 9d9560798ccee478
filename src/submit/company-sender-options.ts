/**
 * What a `CompanySender` is given, and its tuning with every default in one object
 * (`COMPANY_SENDER_DEFAULTS`). The tuning is not user configuration: the defaults are what the daemon
 * and `edoc-bridge submit` run with; tests pass small values instead of waiting.
 */
import type { CompanyConfig, Config, PosKindConfig } from '../config/schema.js';
import type { LedgerPort } from '../ledger/port.js';
import type { StorageWatch } from '../storage/storage-watch.js';
import type { AppLogger } from '../log/logger.js';
import type { CompanyPause, PauseState } from '../rate/company-pause.js';
import type { CompanyRate } from '../rate/company-rate.js';
import type { ServiceClient } from '../service/client.js';
import type { SubmissionBatcher } from './submission-commits.js';

export interface CompanySenderTuning {
  /**
   * Documents waiting in the queue at most, per request the company may have in flight
   * (`rate.concurrency`, C): the feeder claims up to this × C from the ledger, marking those with
   * their own number `sending` in one commit.
   * @defaultValue 4
   */
  queuedPerConnection: number;
  /**
   * The feeder claims again once this × C or fewer documents wait in the queue (so at least
   * (`queuedPerConnection` − this) × C at a time: one commit for many marks, while C queued and C in
   * flight keep the connections busy meanwhile).
   * @defaultValue 1
   */
  refillAtPerConnection: number;
  /**
   * Where the rate lets more leave within `queueAheadMs` than `queuedPerConnection` × C, the queue holds
   * that many instead (fewer commits and fsyncs per document on a fast service with a high rate), but
   * never more than this × C.
   * @defaultValue 16
   */
  maxQueuedPerConnection: number;
  /**
   * How far ahead of the rate the queue may hold documents marked `sending`, in milliseconds of the
   * company's `requestsPerSecond`. Where the rate binds (the default 5/s), the queue stays
   * `queuedPerConnection` × C.
   * @defaultValue 100
   */
  queueAheadMs: number;
  /**
   * The feeder's longest sleep with nothing to do: nothing due, or the company paused by a 401.
   * `wake()` and a reload end it early; a retry due sooner shortens it.
   * @defaultValue 60000
   */
  idleMs: number;
  /**
   * How often the feeder looks again whether the queue has room, besides being told when it has.
   * @defaultValue 1000
   */
  refillCheckMs: number;
  /**
   * How often a writer held by a full disk (or by verdicts waiting to be committed) looks again.
   * @defaultValue 250
   */
  storagePollMs: number;
  /**
   * The longest the verdict of a document with its own number waits to ride along with the next
   * batch of `sending` marks (one commit, one fsync for both); the last one in the queue does not wait.
   * Safe at any value: a crash before that commit leaves the document `sending`, and recovery resends it
   * as "may have been delivered" (its own number makes the resend a duplicate at the service, not a
   * second issue, though a Regla 90 answer to it leaves it `in-doubt`, repeated-number, for the operator:
   * so the wait stays short).
   * @defaultValue 20
   */
  lazyCommitMs: number;
  /**
   * How long `close()` lets requests in flight finish before aborting them.
   * @defaultValue 10000
   */
  drainTimeoutMs: number;
}

export const COMPANY_SENDER_DEFAULTS: Readonly<CompanySenderTuning> = Object.freeze({
  queuedPerConnection: 4,
  refillAtPerConnection: 1,
  maxQueuedPerConnection: 16,
  queueAheadMs: 100,
  idleMs: 60_000,
  refillCheckMs: 1_000,
  storagePollMs: 250,
  lazyCommitMs: 20,
  drainTimeoutMs: 10_000,
});

export interface CompanySenderOptions extends Partial<CompanySenderTuning> {
  ledger: LedgerPort;
  client: ServiceClient;
  company: CompanyConfig;
  /**
   * The company's one rate (window, transit margin, 429 slow-down), shared with the received-documents
   * puller: made by the wiring (`CompanyRates.of(company)`). The sender applies a reloaded
   * `rate.requestsPerSecond` to it (`update`).
   */
  rate: CompanyRate;
  retry: Config['retry'];
  pos: PosKindConfig;
  logger: AppLogger;
  /** Documents of these files reached a final state (or changed): their reports are due. */
  onChanged(fileIds: readonly number[]): void;
  /** Pauses every writer while the disk is full; one of the sender's own when absent. */
  storage?: StorageWatch;
  /** The clock. @defaultValue ledgerNow (policy/ledger-clock.ts: the database's in a cluster) */
  now?: () => number;
  /** Told when the company is paused (credentials refused) and when a document reaches its final state (alerts). */
  onEvent?(event: SenderEvent): void;
  /**
   * The company's gate (company/company-gate.ts): whether a request may start for it now (always with one
   * process; in a cluster while this node holds its lease and renewed it recently enough: while closed,
   * nothing is claimed and marked documents wait), and where a commit refused by the lease fence
   * (EDOC_CLUSTER_FENCED) is told: the sender has stopped starting requests, the company's owner recovers
   * what it left `sending`.
   */
  gate: SenderGate;
  /**
   * The company's 401 pause (its run's, shared with its received-documents pull): a 401 to a submission
   * pauses the whole company, a 401 to the pull pauses the sender too; `update` lifts it. One of the
   * sender's own when absent.
   */
  pause?: CompanyPause;
  /**
   * One node without a cluster: the batcher every company's sender commits through (one transaction per
   * turn for all of them, `submissionBatcher`); one of the sender's own when absent.
   */
  commits?: SubmissionBatcher;
}

/** What the sender asks of its company's gate (company/company-gate.ts). */
export interface SenderGate {
  open(): boolean;
  fenced(): void;
}

/** What the sender tells the operator surface: never a key, never a request. */
export type SenderEvent =
  | { type: 'paused'; company: string; reason: string }
  | { type: 'final'; company: string; status: string; doubt?: string };

/** The tuning in force: the given values over the defaults; an impossible combination is refused early. */
export function senderTuning(options: Partial<CompanySenderTuning>): Readonly<CompanySenderTuning> {
  const tuning = { ...COMPANY_SENDER_DEFAULTS };
  for (const key of Object.keys(COMPANY_SENDER_DEFAULTS) as (keyof CompanySenderTuning)[]) {
    const value = options[key];
    if (value !== undefined) tuning[key] = value;
  }
  if (!(
    tuning.refillAtPerConnection >= 0 && tuning.queuedPerConnection > tuning.refillAtPerConnection
  )) {
    throw new RangeError(
      `CompanySender: queuedPerConnection (${tuning.queuedPerConnection}) must be greater than ` +
        `refillAtPerConnection (${tuning.refillAtPerConnection}) >= 0`,
    );
  }
  if (!(tuning.maxQueuedPerConnection >= tuning.queuedPerConnection)) {
    throw new RangeError(
      `CompanySender: maxQueuedPerConnection (${tuning.maxQueuedPerConnection}) must be at least ` +
        `queuedPerConnection (${tuning.queuedPerConnection})`,
    );
  }
  return Object.freeze(tuning);
}

/**
 * How many documents may wait in a company's queue: `queuedPerConnection` × C, or as many as its rate
 * lets leave in `queueAheadMs` when that is more (a fast service and a high rate), at most
 * `maxQueuedPerConnection` × C.
 */
export function queueDepth(
  rate: { requestsPerSecond: number; concurrency: number },
  tuning: Pick<
    CompanySenderTuning,
    'queuedPerConnection' | 'maxQueuedPerConnection' | 'queueAheadMs'
  > = COMPANY_SENDER_DEFAULTS,
): number {
  const c = rate.concurrency;
  const ahead = Math.floor((rate.requestsPerSecond * tuning.queueAheadMs) / 1000);
  return Math.floor(
    Math.min(tuning.maxQueuedPerConnection * c, Math.max(tuning.queuedPerConnection * c, ahead)),
  );
}

/** What an operator sees of a company's sender (the console): read-only, a snapshot. */
export interface SenderView {
  alias: string;
  /** Claimed from the ledger and waiting for a connection. */
  queued: number;
  /** Requests on the wire now. */
  inFlight: number;
  concurrency: number;
  /** Configured requests per second, and what the rate allows now (lower after a 429). */
  requestsPerSecond: number;
  currentLimit: number;
  /** Paused by a 401 until the configuration is reloaded with a working key. */
  paused: boolean;
  /** While paused: since when (epoch ms) and the service's reason. */
  pause?: { since: number; reason: string };
  /** The last request got no answer from the service. */
  unreachable: boolean;
  /** Waiting for disk space to record verdicts. */
  storageBlocked: boolean;
}

/** The pause fields of a view: paused or not, and while paused since when and why. */
export function pauseView(state: PauseState | undefined): Pick<SenderView, 'paused' | 'pause'> {
  return state === undefined
    ? { paused: false }
    : { paused: true, pause: { since: state.since, reason: state.reason } };
}
