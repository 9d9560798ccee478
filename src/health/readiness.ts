/**
 * Readiness: whether the daemon can do its work now. Each check names itself and says what is wrong
 * (undefined when fine); the daemon is ready when every check is. The checks are given by the wiring
 * (daemon/operator.ts): the ledger is writable, the inbox watcher runs, the service answers.
 */
import type { ServiceHealth } from './service-health.js';

export interface ReadinessCheck {
  name: string;
  /** undefined: fine; otherwise one line saying what is wrong (no secret, no input quoted). */
  check(): Promise<string | undefined> | string | undefined;
}

export interface ReadinessReport {
  ready: boolean;
  checks: { name: string; ok: boolean; problem?: string }[];
}

export async function checkReadiness(checks: readonly ReadinessCheck[]): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        const problem = await check();
        return problem === undefined ? { name, ok: true } : { name, ok: false, problem };
      } catch (err) {
        return {
          name,
          ok: false,
          problem: `the check failed: ${err instanceof Error ? err.message.split('\n')[0].slice(0, 200) : 'unknown error'}`,
        };
      }
    }),
  );
  return { ready: results.every((r) => r.ok), checks: results };
}

/**
 * The service answers: its last call got an HTTP answer, and that answer is not older than
 * `staleMs` (the idle probe keeps it fresh; a probe that hangs makes it stale). `asksNone`: this
 * process may ask the service for no company now (a cluster node holding no lease: the probe asks
 * nothing, as another node's company is that node's to count), so there is nothing to judge: ready.
 */
export function serviceAnswers(
  health: ServiceHealth,
  staleMs: number,
  now: () => number = Date.now,
  asksNone: () => boolean = () => false,
): ReadinessCheck {
  return {
    name: 'service',
    check: () => {
      if (asksNone()) return undefined;
      if (health.state === 'unknown') return 'not asked yet (the first probe is on its way)';
      if (health.state === 'down') {
        const since =
          health.downSince === undefined
            ? ''
            : ` since ${new Date(health.downSince).toISOString()}`;
        return `does not answer${since}: ${health.lastFailureReason ?? 'no answer'}`;
      }
      const last = health.lastAnswerAt ?? 0;
      if (now() - last > staleMs) return `no answer for ${Math.round((now() - last) / 1_000)} s`;
      return undefined;
    },
  };
}
