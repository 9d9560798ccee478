/**
 * What the pipeline (pipeline.ts) is opened with and what it takes: its options, the service it sends
 * to, an input file ready to be taken, and what taking one came to.
 */
import type { ServiceClient } from '../service/client.js';
import type { IntakeOutcome } from '../intake/intake-types.js';

export type { SetPart } from '../intake/set-hash.js';

/**
 * The service the pipeline sends to, as the composition root reached it (root/service.ts): its address,
 * whether it is the embedded emulator, and its end (the emulator stopped, after the client's pool).
 */
export interface PipelineService {
  readonly baseUrl: string;
  readonly embedded: boolean;
  close(): Promise<void>;
}

/** What the pipeline itself is given (the composition root's own options: root/open-pipeline.ts). */
export interface PipelineOptions {
  /** The companies that get a sender (`submit` sends for the one it was given). @defaultValue every configured company */
  companies?: readonly string[];
  /** Wraps the service client the senders use (`submit` counts the requests no service answered). */
  watchClient?(client: ServiceClient): ServiceClient;
  /** Aborting it stops reading input files, like `close()` does (submit's Ctrl-C). */
  signal?: AbortSignal;
  /** How long close() lets in-flight requests finish before aborting them. @defaultValue COMPANY_SENDER_DEFAULTS.drainTimeoutMs (10000) */
  drainTimeoutMs?: number;
  /** Pinned "today" for validation (tests). */
  today?: string;
}

export type { PipelineFile } from '../intake/pipeline-file.js';

/**
 * What taking a file came to: the intake's outcome; `deferred` when a full disk stopped it (taken
 * again when space returns; `error` says why); `skipped` when the pipeline is stopping or the
 * company is not configured (any more).
 */
export type Taken =
  | { fileId?: number; outcome: IntakeOutcome }
  | { outcome: 'deferred'; error?: unknown }
  | { outcome: 'skipped' };
