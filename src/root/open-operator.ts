/**
 * The operator listener's parts, built for the daemon (start-daemon.ts) once its watcher runs: the idle
 * service probe (one company's E10 at a time, through its run's gate and rate), the readiness checks,
 * the metrics (the ledger's counts, every call of the client, the range watch's view) and the console's
 * reads and actions, handed to `OperatorSurface.start` (daemon/operator.ts). None without `http`.
 */
import {
  consoleDeps,
  OperatorSurface,
  readinessChecks,
  type OperatorSources,
} from '../daemon/operator.js';
import { SERVICE_PROBE_DEFAULTS, ServiceProbe } from '../daemon/service-probe.js';
import { createOperatorMetrics } from '../http/metrics.js';
import type { AppLogger } from '../log/logger.js';

/** Starts the listener on what it reads, or undefined when the configuration has no `http`. */
export async function openOperator(
  sources: OperatorSources,
  logger: AppLogger,
  /** The idle probe's own timeout (tests). @defaultValue SERVICE_PROBE_DEFAULTS.timeoutMs */
  probeTimeoutMs?: number,
): Promise<OperatorSurface | undefined> {
  const http = sources.config().http;
  if (http === undefined) return undefined;
  const { pipeline } = sources;
  const probe = new ServiceProbe({
    client: pipeline.client,
    runs: pipeline.companies,
    config: sources.config,
    logger,
    timeoutMs: probeTimeoutMs,
  });
  const checks = readinessChecks(
    sources,
    http.probeIdleMs,
    probeTimeoutMs ?? SERVICE_PROBE_DEFAULTS.timeoutMs,
  );
  const metrics = createOperatorMetrics({
    counts: () => pipeline.ledger.operatorCounts(),
    companies: () => sources.config().companies,
    observe: (observer) => pipeline.client.observe(observer),
    ...(sources.ranges === undefined ? {} : { ranges: sources.ranges }),
  });
  return OperatorSurface.start({
    http,
    logger,
    probe,
    metrics,
    checks,
    console: consoleDeps(sources),
  });
}
