/**
 * `GET /healthz` and `GET /readyz`, public (a load balancer or systemd's watchdog has no token, and
 * they tell nothing secret). healthz: the process runs and its event loop answers. readyz: every
 * readiness check passes (health/readiness.ts), else 503 naming each failing check.
 */
import { checkReadiness, type ReadinessCheck } from '../health/readiness.js';
import { sendJson } from './replies.js';
import type { Route } from './route.js';

export function healthRoutes(checks: readonly ReadinessCheck[]): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      access: 'public',
      probe: true,
      handle: ({ res }) => sendJson(res, 200, { status: 'ok' }, { 'Cache-Control': 'no-store' }),
    },
    {
      method: 'GET',
      path: '/readyz',
      access: 'public',
      probe: true,
      async handle({ res }) {
        const report = await checkReadiness(checks);
        const failing = report.checks
          .filter((c) => !c.ok)
          .map((c) => ({ check: c.name, problem: c.problem }));
        sendJson(
          res,
          report.ready ? 200 : 503,
          {
            status: report.ready ? 'ready' : 'not-ready',
            checks: Object.fromEntries(report.checks.map((c) => [c.name, c.ok ? 'ok' : 'failing'])),
            ...(failing.length > 0 ? { failing } : {}),
          },
          { 'Cache-Control': 'no-store' },
        );
      },
    },
  ];
}
