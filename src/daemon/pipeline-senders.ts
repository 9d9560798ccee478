/**
 * How the pipeline makes each company's sender (a CompanyRun's part): the pipeline's ledger, client,
 * storage watch and reports, the configuration in force, and — with one node — one commit batcher shared
 * by every company, so a turn's marks and verdicts of all companies cost one transaction (one fsync). In a
 * cluster each company keeps its own: a lease fence refusal must refuse that company's items only.
 */
import type { EventEmitter } from 'node:events';
import type { CompanyConfig, Config } from '../config/schema.js';
import type { CompanyGate } from '../company/company-gate.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AppLogger } from '../log/logger.js';
import { ledgerNow } from '../policy/ledger-clock.js';
import type { CompanyPause } from '../rate/company-pause.js';
import type { CompanyRate } from '../rate/company-rate.js';
import type { ServiceClient } from '../service/client.js';
import type { StorageWatch } from '../storage/storage-watch.js';
import {
  COMPANY_SENDER_DEFAULTS,
  CompanySender,
  type SenderEvent,
} from '../submit/company-sender.js';
import { submissionBatcher, type SubmissionBatcher } from '../submit/submission-commits.js';

export interface SenderParts {
  ledger: LedgerPort;
  /** The client a new sender gets (the pipeline's, or the caller's wrapper of it: `watchClient`). */
  client(): ServiceClient;
  logger: AppLogger;
  storage: StorageWatch;
  config(): Readonly<Config>;
  /** A file's documents changed: its report is due. */
  touch(fileId: number): void;
  events: EventEmitter<{ event: [SenderEvent] }>;
  /** Cluster mode: each company commits on its own (its lease fences its items). */
  clustered: boolean;
}

export type MakeSender = (
  company: CompanyConfig,
  rate: CompanyRate,
  gate: CompanyGate,
  pause: CompanyPause,
) => CompanySender;

/** The pipeline's sender maker; with one node its senders share one commit batcher, made at the first sender. */
export function senderMaker(parts: SenderParts): MakeSender {
  let shared: SubmissionBatcher | undefined;
  const onChanged = (ids: readonly number[]): void => {
    for (const id of ids) parts.touch(id);
  };
  const commits = (): SubmissionBatcher =>
    (shared ??= submissionBatcher(parts.ledger, {
      onChanged,
      now: ledgerNow,
      lazyMs: COMPANY_SENDER_DEFAULTS.lazyCommitMs,
    }));
  return (company, rate, gate, pause) =>
    new CompanySender({
      ledger: parts.ledger,
      client: parts.client(),
      company,
      rate,
      gate,
      pause,
      retry: parts.config().retry,
      pos: parts.config().kinds.pos,
      logger: parts.logger,
      storage: parts.storage,
      onChanged,
      onEvent: (event) => parts.events.emit('event', event),
      ...(parts.clustered ? {} : { commits: commits() }),
    });
}
