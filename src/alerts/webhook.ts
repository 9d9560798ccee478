/**
 * Delivers alerts to the configured webhook in the background: one POST of one JSON message per
 * alert, retried with backoff (policy/backoff.ts) while the receiver is down, in order. It never
 * blocks whoever raised the alert: messages wait in a bounded queue and, past its size, the oldest is
 * dropped and counted (the next message delivered says how many). The URL is a secret (its token):
 * no log line shows more than its origin, and its userinfo travels as an Authorization header.
 */
import { nextDelay } from '../policy/backoff.js';
import type { Logger } from '../log/logger.js';
import { delay } from '../rate/company-rate.js';
import type { AlertRecord } from './alert-record.js';

/** The webhook message: an AlertRecord with the format's version, when it was raised as text, and what was dropped. */
export interface WebhookMessage extends AlertRecord {
  version: 1;
  source: 'edoc-bridge';
  /** `at` as an ISO-8601 UTC instant. */
  time: string;
  /** Messages dropped before this one because the receiver stayed down while the queue was full. */
  dropped?: number;
}

export interface WebhookOptions {
  url: string;
  /** What a log line may show of the URL (its origin). */
  shownAs: string;
  logger: Logger;
  /** Removes every configured secret from the body (a key that slipped into a message). */
  scrub(text: string): string;
  queue: number;
  timeoutMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  random?: () => number;
}

/** Receivers answer these when they want the same message again later. */
const RETRY_STATUS = new Set([408, 425, 429]);

export class WebhookDelivery {
  private readonly queue: WebhookMessage[] = [];
  private dropped = 0;
  private droppedLogged = false;
  private failing = false;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly target: { url: string; authorization?: string };
  private closed = false;
  /** Messages the receiver took (tests, status). */
  delivered = 0;

  constructor(private readonly options: WebhookOptions) {
    this.target = splitCredentials(options.url);
  }

  /** Queues the alert and returns at once. */
  send(record: AlertRecord): void {
    if (this.closed) return;
    if (this.queue.length >= this.options.queue) {
      this.queue.shift();
      this.dropped += 1;
      if (!this.droppedLogged) {
        this.droppedLogged = true;
        this.options.logger.warn(
          { code: 'EDOC_ALERT_DROPPED', webhook: this.options.shownAs, queue: this.options.queue },
          'alert webhook: the queue is full while the receiver is down; the oldest alerts are dropped (counted in the next message)',
        );
      }
    }
    this.queue.push({
      version: 1,
      source: 'edoc-bridge',
      ...record,
      time: new Date(record.at).toISOString(),
    });
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (this.queue.length > 0 && !this.closed) {
      const message =
        this.dropped > 0 ? { ...this.queue[0], dropped: this.dropped } : this.queue[0];
      const verdict = await this.post(message);
      if (this.closed) return;
      if (verdict === 'retry') {
        attempt += 1;
        await delay(
          nextDelay(attempt, this.options, undefined, this.options.random),
          this.abort.signal,
        );
        continue;
      }
      this.queue.shift();
      attempt = 0;
      if (verdict === 'ok') {
        this.delivered += 1;
        if (message.dropped !== undefined) {
          this.dropped = 0;
          this.droppedLogged = false;
        }
      }
    }
  }

  private async post(message: WebhookMessage): Promise<'ok' | 'retry' | 'refused'> {
    let status: number | undefined;
    let reason: string;
    // The attempt's own controller, aborted by a timer this object holds (and by close): a timer cannot be
    // collected before it fires. AbortSignal.timeout inside AbortSignal.any can (Node 20 holds the sources
    // weakly), and a receiver that accepted and never answered then held the queue for undici's 300 s.
    const attempt = new AbortController();
    const timer = setTimeout(
      () =>
        attempt.abort(
          new DOMException(`no answer within ${this.options.timeoutMs} ms`, 'TimeoutError'),
        ),
      this.options.timeoutMs,
    );
    const onClose = (): void => attempt.abort();
    this.abort.signal.addEventListener('abort', onClose, { once: true });
    try {
      const res = await fetch(this.target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'edoc-bridge-alerts/1',
          ...(this.target.authorization ? { authorization: this.target.authorization } : {}),
        },
        body: this.options.scrub(JSON.stringify(message)),
        signal: attempt.signal,
        // a redirect is answered as it is (a 3xx): refused below, never followed (the token would travel on)
        redirect: 'manual',
      });
      status = res.status;
      await res.body?.cancel().catch(() => undefined);
      if (res.ok) {
        if (this.failing) {
          this.failing = false;
          this.options.logger.info(
            { webhook: this.options.shownAs },
            'alert webhook: the receiver takes alerts again',
          );
        }
        return 'ok';
      }
      reason = `HTTP ${res.status}`;
    } catch (err) {
      if (this.closed) return 'retry';
      reason =
        err instanceof Error
          ? err.cause instanceof Error
            ? err.cause.message
            : err.message
          : String(err);
    } finally {
      clearTimeout(timer);
      this.abort.signal.removeEventListener('abort', onClose);
    }
    if (status !== undefined && status < 500 && !RETRY_STATUS.has(status)) {
      // the receiver refuses this message itself (a 4xx, or a 3xx: a webhook that moved is configured
      // anew, never followed): sending it again cannot help, and it must not hold back the others
      this.options.logger.error(
        {
          code: 'EDOC_ALERT_UNDELIVERED',
          webhook: this.options.shownAs,
          httpStatus: status,
          alert: message.kind,
          alertId: message.id,
        },
        'alert webhook refused an alert; it is not sent again',
      );
      return 'refused';
    }
    if (!this.failing) {
      this.failing = true;
      // a fetch error may quote the URL: only its origin is shown
      this.options.logger.warn(
        {
          code: 'EDOC_ALERT_UNDELIVERED',
          webhook: this.options.shownAs,
          reason: this.options.scrub(reason),
          queued: this.queue.length,
        },
        'alert webhook did not take an alert; retried with backoff in the background',
      );
    }
    return 'retry';
  }

  /** Stops delivering; what is still queued is dropped (logged). Idempotent. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.abort.abort();
      if (this.queue.length > 0) {
        this.options.logger.warn(
          {
            code: 'EDOC_ALERT_UNDELIVERED',
            webhook: this.options.shownAs,
            queued: this.queue.length,
          },
          'stopping: alerts not yet delivered to the webhook are dropped',
        );
      }
    }
    await this.running;
  }
}

/** fetch refuses a URL with credentials: they become a Basic Authorization header. */
function splitCredentials(text: string): { url: string; authorization?: string } {
  const url = new URL(text);
  if (url.username === '' && url.password === '') return { url: url.href };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return {
    url: url.href,
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
  };
}
