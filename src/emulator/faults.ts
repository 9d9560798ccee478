/**
 * Fault injection: latency, uncontrolled 500s, 502s, connection resets, drops
 * after the change was committed, and a per-company sliding-second rate limit.
 * One draw per faultable request from a seeded PRNG, so a given `randomSeed`
 * repeats the same sequence of faults for the same sequence of requests.
 */
import { z } from 'zod';

const rate = z.number().min(0).max(1).default(0);

export const faultsSchema = z.strictObject({
  latencyMs: z.number().int().min(0).default(0),
  jitterMs: z.number().int().min(0).default(0),
  errorRate: rate,
  badGatewayRate: rate,
  resetRate: rate,
  dropAfterCommitRate: rate,
  rateLimitPerSecond: z.number().int().min(0).default(0),
  allEndpoints: z.boolean().default(false),
  randomSeed: z.number().int().nullable().default(null),
});
export type Faults = z.output<typeof faultsSchema>;

/** The operations that submit a document (E1–E6): those the probabilistic faults hit by default. */
export const SUBMISSIONS: readonly string[] = ['E1', 'E2', 'E3', 'E4', 'E5', 'E6'];

/** What happens to one request, decided before its handler runs. */
export type FaultDecision = 'none' | 'reset' | 'error' | 'bad-gateway' | 'drop-after-commit';

/** mulberry32: small, fast, good enough to spread draws; repeatable from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  private faults: Faults;
  private random: () => number;
  /** Admitted request times per company, for the strict sliding-second limit. */
  private readonly windows = new Map<string, number[]>();

  constructor(faults: Faults) {
    this.faults = faults;
    this.random = faults.randomSeed === null ? Math.random : mulberry32(faults.randomSeed);
  }

  get current(): Faults {
    return this.faults;
  }

  /** Replaces the whole set (POST /_emulator/faults) and restarts the PRNG from its seed. */
  replace(faults: Faults): void {
    this.faults = faults;
    this.random = faults.randomSeed === null ? Math.random : mulberry32(faults.randomSeed);
    this.windows.clear();
  }

  /** Whether the probabilistic faults apply to an operation (the submissions, or all with allEndpoints). */
  appliesTo(op: string): boolean {
    return this.faults.allEndpoints || SUBMISSIONS.includes(op);
  }

  /**
   * True when the company already had `rateLimitPerSecond` admitted requests in
   * the last 1000 ms; a refused request does not count, so a client that waits
   * for Retry-After is served.
   */
  overRateLimit(company: string, now: number): boolean {
    const limit = this.faults.rateLimitPerSecond;
    if (limit <= 0) return false;
    let times = this.windows.get(company);
    if (times === undefined) {
      times = [];
      this.windows.set(company, times);
    }
    while (times.length > 0 && times[0] <= now - 1000) times.shift();
    if (times.length >= limit) return true;
    times.push(now);
    return false;
  }

  /** Latency to wait before answering: latencyMs plus a uniform draw in [0, jitterMs]. */
  delayMs(): number {
    const { latencyMs, jitterMs } = this.faults;
    if (latencyMs === 0 && jitterMs === 0) return 0;
    return latencyMs + (jitterMs > 0 ? Math.floor(this.random() * (jitterMs + 1)) : 0);
  }

  /** One draw, split into consecutive bands: reset, 500, 502, drop after commit. */
  decide(): FaultDecision {
    const f = this.faults;
    const total = f.resetRate + f.errorRate + f.badGatewayRate + f.dropAfterCommitRate;
    if (total === 0) return 'none';
    const u = this.random();
    let edge = f.resetRate;
    if (u < edge) return 'reset';
    edge += f.errorRate;
    if (u < edge) return 'error';
    edge += f.badGatewayRate;
    if (u < edge) return 'bad-gateway';
    edge += f.dropAfterCommitRate;
    if (u < edge) return 'drop-after-commit';
    return 'none';
  }
}
