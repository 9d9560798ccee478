/**
 * Whether the service answers: the one place that tracks it, fed by every call the daemon makes (the
 * sender, the puller, the idle probe) and read by readiness, the metrics and the alerts.
 *
 * Any HTTP answer counts as "answering" (even a 4xx/5xx with an envelope: the service is reachable);
 * only a network failure or a timeout (outcome `transient` with no HTTP status) counts against it.
 */
import { EventEmitter } from 'node:events';

export type ServiceState = 'unknown' | 'up' | 'down';

export interface ServiceHealthEvents {
  /** The service stopped answering (first failure after an answer, or the first call failed). */
  down: [{ since: number; reason: string }];
  /** It answers again after being down. */
  up: [{ at: number; downSince: number }];
}

export class ServiceHealth extends EventEmitter<ServiceHealthEvents> {
  private stateNow: ServiceState = 'unknown';
  private lastAnswer: number | undefined;
  private lastFailure: { at: number; reason: string } | undefined;
  private downFrom: number | undefined;

  /** The service gave an HTTP answer. */
  noteAnswer(at = Date.now()): void {
    this.lastAnswer = Math.max(this.lastAnswer ?? 0, at);
    if (this.stateNow === 'down') {
      const downSince = this.downFrom ?? at;
      this.stateNow = 'up';
      this.downFrom = undefined;
      this.emit('up', { at, downSince });
    } else {
      this.stateNow = 'up';
    }
  }

  /** A call got no HTTP answer (connection refused or reset, timeout). */
  noteFailure(reason: string, at = Date.now()): void {
    this.lastFailure = { at, reason };
    if (this.stateNow !== 'down') {
      this.stateNow = 'down';
      this.downFrom = at;
      this.emit('down', { since: at, reason });
    }
  }

  get state(): ServiceState {
    return this.stateNow;
  }
  /** Epoch ms of the last HTTP answer. */
  get lastAnswerAt(): number | undefined {
    return this.lastAnswer;
  }
  get lastFailureAt(): number | undefined {
    return this.lastFailure?.at;
  }
  get lastFailureReason(): string | undefined {
    return this.lastFailure?.reason;
  }
  /** Epoch ms since when the service has not answered, while down. */
  get downSince(): number | undefined {
    return this.downFrom;
  }
}
