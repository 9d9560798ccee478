/**
 * The operator surface of the daemon: the listener (http/server.ts) with its routes, over the parts
 * the composition root builds (root/open-operator.ts): the idle service probe, the readiness checks
 * (what they ask is here, `readinessChecks`), the metrics and the console's reads and actions
 * (`consoleDeps`). Started by the daemon after its watcher runs, closed first when it stops. Absent
 * `http` in the configuration: none of it.
 *
 * Routes: health and readiness (public), metrics (token), and the console's pages (token,
 * http/console/): it reads the pipeline's ledger and senders, and its actions are the CLI's
 * (daemon/operator-actions.ts) with the daemon's own report scheduler and wake-up.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { AlertLog } from '../alerts/alert-record.js';
import type { HttpConfig } from '../config/http-schema.js';
import type { Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import { checkReadiness, serviceAnswers, type ReadinessCheck } from '../health/readiness.js';
import type { ConsoleDeps } from '../http/console/deps.js';
import { pageScrubberOf } from '../http/console/page-secrets.js';
import { consoleRoutes } from '../http/console/routes.js';
import { healthRoutes } from '../http/health-routes.js';
import type { OperatorMetrics } from '../http/metrics.js';
import { startOperatorServer, type OperatorServer } from '../http/server.js';
import type { AppLogger } from '../log/logger.js';
import type { RangeState } from '../ranges/range-state.js';
import { PAUSE_FIX } from '../submit/pause-file.js';
import { consoleActions } from './operator-actions.js';
import type { Pipeline } from './pipeline.js';
import type { ServiceProbe } from './service-probe.js';

/** What the operator surface reads: the daemon's pipeline, configuration, watcher, ranges and alerts. */
export interface OperatorSources {
  /** The current configuration (it changes on SIGHUP). */
  config: () => Readonly<Config>;
  pipeline: Pipeline;
  /** What is wrong with the inbox watcher, or undefined while it runs (the daemon knows). */
  watcherProblem: () => Promise<string | undefined> | string | undefined;
  /** The numbering-range watch's view (ranges/), when it runs: the range metrics and the console. */
  ranges?: () => readonly RangeState[];
  /** The alerts raised, when alerts run: the console's "last alerts". */
  alerts?: AlertLog;
}

/** The listener's parts, built by the composition root (root/open-operator.ts). */
export interface OperatorSurfaceParts {
  /** The `http` section at start (listen address, token, session time). */
  http: HttpConfig;
  logger: AppLogger;
  /** Not started yet: `start` starts it, before the listener. */
  probe: ServiceProbe;
  metrics: OperatorMetrics;
  checks: readonly ReadinessCheck[];
  console: ConsoleDeps;
}

/** How long a ledger write probe's verdict is reused: a flood of /readyz must not become a flood of writes. */
const LEDGER_PROBE_REUSE_MS = 2_000;

export class OperatorSurface {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: OperatorServer,
    private readonly metrics: OperatorMetrics,
    private readonly probe: ServiceProbe,
    readonly checks: readonly ReadinessCheck[],
  ) {}

  /** The listener's address as bound. */
  get url(): string {
    return this.server.url;
  }

  /** Starts the probe and the listener. A port in use throws EDOC_HTTP_LISTEN (the probe and the metrics' observer stopped). */
  static async start(parts: OperatorSurfaceParts): Promise<OperatorSurface> {
    const { http, probe, metrics, checks } = parts;
    probe.start();
    try {
      const server = await startOperatorServer({
        listen: http.listen,
        token: http.token,
        sessionIdleMs: http.sessionIdleMs,
        routes: [...healthRoutes(checks), metrics.route, ...consoleRoutes(parts.console)],
        logger: parts.logger,
      });
      return new OperatorSurface(server, metrics, probe, checks);
    } catch (err) {
      metrics.close();
      await probe.close();
      throw err;
    }
  }

  /** Readiness as /readyz reports it (tests, `status`). */
  readiness(): ReturnType<typeof checkReadiness> {
    return checkReadiness(this.checks);
  }

  /**
   * Why the running listener may not take this configuration, or undefined. The listen address applies
   * only at the next start, the token at once: a file without a token would open the live listener's
   * console and metrics (to the network when it listens beyond loopback). Removing `http` is allowed:
   * the daemon then closes the listener.
   */
  reloadRefusal(next: Readonly<Config>): EdocError | undefined {
    if (next.http === undefined || next.http.token !== undefined || !this.server.guarded)
      return undefined;
    return new EdocError(
      'EDOC_CONFIG_INVALID',
      `http.token: the running listener (${this.server.url}) has a token; a reload cannot remove it, as that would open the console ` +
        'and the metrics without one: keep http.token, remove the whole http section (the listener then closes), or restart the daemon',
      { path: 'http.token' },
    );
  }

  /** A new configuration (SIGHUP): the token applies now; a changed listen or session time on the next start. */
  reload(before: Readonly<Config>, next: Readonly<Config>, logger: AppLogger): void {
    if (next.http === undefined) return;
    const refusal = this.reloadRefusal(next);
    if (refusal !== undefined) throw refusal;
    this.server.setToken(next.http.token);
    if (
      next.http.listen !== before.http?.listen ||
      next.http.sessionIdleMs !== before.http?.sessionIdleMs
    ) {
      logger.warn(
        { keys: ['http'] },
        'http (listen or sessionIdleMs) changed: this applies only when the daemon restarts; the token applies now',
      );
    }
  }

  /** Closes the listener (open connections too), the metrics' observer and the probe. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.server.close();
      this.metrics.close();
      await this.probe.close();
    })();
    return this.closing;
  }
}

/** The console's reads and actions: the pipeline's ledger and senders, the ranges, the alerts, the received folders. */
export function consoleDeps(options: OperatorSources): ConsoleDeps {
  const { pipeline } = options;
  return {
    ledger: pipeline.ledger,
    companies: () => pipeline.senderViews(),
    ...(options.ranges === undefined ? {} : { ranges: options.ranges }),
    ...(options.alerts === undefined ? {} : { alerts: options.alerts }),
    receivedDir: (company) => path.join(options.config().paths.outbox, 'received', company),
    actions: consoleActions(pipeline.ledger, {
      wake: () => pipeline.wake(),
      report: (fileId) => pipeline.report(fileId),
    }),
    scrub: (page) => pageScrubberOf(options.config()).scrub(page),
  };
}

/**
 * What /readyz asks: the ledger (not paused by a full disk, a write probe passes, its verdict reused for
 * 2 s), the inbox watcher, whether the service answers (fed by the idle probe) and whether any company
 * can send.
 */
export function readinessChecks(
  options: OperatorSources,
  probeIdleMs: number,
  probeTimeoutMs: number,
): ReadinessCheck[] {
  const { pipeline } = options;
  let lastProbe: { at: number; problem: string | undefined } | undefined;
  const ledger: ReadinessCheck = {
    name: 'ledger',
    check: async () => {
      if (pipeline.storagePaused)
        return 'paused: the disk is full or the ledger cannot be written (EDOC_STORAGE_FULL / EDOC_LEDGER_WRITE)';
      const now = Date.now();
      if (lastProbe === undefined || now - lastProbe.at > LEDGER_PROBE_REUSE_MS) {
        let problem: string | undefined;
        try {
          await pipeline.ledger.probeWrite(now);
        } catch (err) {
          problem = `a write probe failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
        }
        lastProbe = { at: now, problem };
      }
      return lastProbe.problem;
    },
  };
  const watcher: ReadinessCheck = { name: 'watcher', check: () => options.watcherProblem() };
  // An answer older than two probe periods (plus the probe's own timeout) means the probe is stuck.
  const service = serviceAnswers(
    pipeline.health,
    2 * probeIdleMs + probeTimeoutMs,
    Date.now,
    () => !options.config().companies.some((c) => pipeline.mayStart(c.alias)),
  );
  return [ledger, watcher, service, companiesCanSend(pipeline)];
}

/**
 * Not ready when no company can send: every company this daemon sends for is paused because the service refused
 * its credentials (401). The body names each, its reason and the fix; one company still sending keeps it ready.
 */
function companiesCanSend(pipeline: Pipeline): ReadinessCheck {
  return {
    name: 'companies',
    check: () => {
      const views = pipeline.senderViews();
      if (views.length === 0 || views.some((v) => v.pause === undefined)) return undefined;
      const each = views.map(
        (v) =>
          `${v.alias} since ${new Date(v.pause?.since ?? 0).toISOString()} (${v.pause?.reason ?? ''})`,
      );
      return `no company can send: the service refused the credentials of ${each.join('; ')} (EDOC_SERVICE_UNAUTHORIZED); ${PAUSE_FIX}`;
    },
  };
}

/**
 * What is wrong with the inbox folders the watcher watches: one that does not exist (the watcher makes a
 * removed folder again within seconds, watch/root-folders.ts; one still missing could not be made).
 * Named by company and kind, never by path: /readyz is public.
 */
export class InboxFolderCheck {
  async problem(
    folders: readonly { dir: string; kind: string; company: string }[],
  ): Promise<string | undefined> {
    for (const folder of folders) {
      try {
        await access(folder.dir);
      } catch {
        return `the inbox folder of ${folder.company}/${folder.kind} does not exist`;
      }
    }
    return undefined;
  }
}
