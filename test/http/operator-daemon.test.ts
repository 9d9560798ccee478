/**
 * The operator listener of a real daemon (the CLI as a child process) over real HTTP: health,
 * readiness following the service while the daemon is idle (the probe), metrics agreeing with the
 * ledger after a SIGKILL and a restart, and the start-up refusals. No answer ever carries a key or
 * the token.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest } from '../helpers/daemon-fixture.js';
import {
  buildCli,
  COMPANY_MAIN,
  eventually,
  startTestEmulator,
  type DaemonProcess,
} from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const TOKEN = 'console-token-0123456789abcdef';
const HTTP = { listen: '127.0.0.1:0', token: TOKEN, probeIdleMs: 300 };
const SECRETS = [TOKEN, COMPANY_MAIN.apiKey];

/** The listener's address, from its start line in this run's log. */
async function listenerUrl(daemon: DaemonProcess): Promise<string> {
  const line = await daemon.waitForLog((l) => l.msg === 'operator listener started');
  return String(line.url);
}

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { headers, redirect: 'manual' });
  const text = await response.text();
  for (const secret of SECRETS) expect(text).not.toContain(secret);
  return { status: response.status, text };
}

const bearer = { authorization: `Bearer ${TOKEN}` };

/** `name{labels} value` lines of one metric, as label text → value. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (match) out.set(match[1] ?? '', Number(match[2]));
  }
  return out;
}

describe('a running daemon', () => {
  daemonTest(
    'healthz is public; readyz turns 200 once the probe got an answer; metrics need the token',
    async ({ daemonProject }) => {
      const { startDaemon } = await daemonProject({ http: HTTP });
      const url = await listenerUrl(await startDaemon());
      expect(await get(`${url}/healthz`)).toEqual({ status: 200, text: '{"status":"ok"}\n' });
      const ready = await eventually(async () => {
        const r = await get(`${url}/readyz`);
        return r.status === 200 ? r : undefined;
      }, 'ready');
      expect(JSON.parse(ready.text)).toEqual({
        status: 'ready',
        checks: { ledger: 'ok', watcher: 'ok', service: 'ok', companies: 'ok' },
      });

      expect((await get(`${url}/metrics`)).status).toBe(401);
      expect(
        (await get(`${url}/metrics`, { authorization: 'Bearer not-the-console-token' })).status,
      ).toBe(401);
      const metrics = await get(`${url}/metrics`, bearer);
      expect(metrics.status).toBe(200);
      // the idle probe is E10, counted under the company's alias, never its id or key
      expect(
        samples(metrics.text, 'edoc_requests_total').get(
          '{company="main",endpoint="E10",code="200"}',
        ),
      ).toBeGreaterThanOrEqual(1);
      expect(metrics.text).toContain(
        'edoc_request_duration_seconds_bucket{le="0.025",company="main",endpoint="E10"}',
      );
      expect(samples(metrics.text, 'edoc_queue_depth').get('{company="main"}')).toBe(0);
      expect(samples(metrics.text, 'edoc_in_doubt_documents').get('{company="main"}')).toBe(0);
      expect(metrics.text).toContain('process_cpu_user_seconds_total');
    },
  );

  daemonTest(
    'readiness follows the service while the daemon is idle: 503 naming the service when it stops, 200 when it is back',
    async ({ resources }) => {
      let emulator = await startTestEmulator([COMPANY_MAIN]);
      const port = Number(new URL(emulator.url).port);
      resources.defer(() => emulator.close());
      const { startDaemon } = await resources.daemonProject({ http: HTTP, emulator });
      const url = await listenerUrl(await startDaemon());
      await eventually(
        async () => ((await get(`${url}/readyz`)).status === 200 ? true : undefined),
        'ready',
      );

      await emulator.close();
      const down = await eventually(async () => {
        const r = await get(`${url}/readyz`);
        return r.status === 503 ? r : undefined;
      }, 'not ready');
      const body = JSON.parse(down.text) as {
        status: string;
        checks: Record<string, string>;
        failing: { check: string; problem: string }[];
      };
      expect(body.checks).toEqual({
        ledger: 'ok',
        watcher: 'ok',
        service: 'failing',
        companies: 'ok',
      });
      expect(body.failing).toEqual([
        {
          check: 'service',
          problem: expect.stringMatching(/^does not answer since .*E10: no answer$/) as unknown,
        },
      ]);
      expect((await get(`${url}/healthz`)).status).toBe(200);

      emulator = await startTestEmulator([COMPANY_MAIN], {}, { port });
      await eventually(
        async () => ((await get(`${url}/readyz`)).status === 200 ? true : undefined),
        'ready again',
      );
    },
  );

  daemonTest(
    'readiness names the watcher when an inbox folder disappears, and is ready again once the daemon made it again (watched anew)',
    async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({ http: HTTP });
      const url = await listenerUrl(await startDaemon());
      await eventually(
        async () => ((await get(`${url}/readyz`)).status === 200 ? true : undefined),
        'ready',
      );
      await rm(project.inbox('payroll'), { recursive: true });
      const down = await get(`${url}/readyz`);
      expect(down.status).toBe(503);
      expect(JSON.parse(down.text)).toMatchObject({
        checks: { watcher: 'failing' },
        failing: [{ check: 'watcher', problem: 'the inbox folder of main/payroll does not exist' }],
      });
      await eventually(
        async () => ((await get(`${url}/readyz`)).status === 200 ? true : undefined),
        'ready again',
      );
      expect(existsSync(project.inbox('payroll'))).toBe(true);
    },
  );

  daemonTest(
    'metrics agree with the ledger after a SIGKILL in the middle of sending and a restart',
    async ({ daemonProject }) => {
      const slow = { ...COMPANY_MAIN, rate: { requestsPerSecond: 20, concurrency: 1 } };
      const { project, startDaemon } = await daemonProject({ http: HTTP, companies: [slow] });
      const first = await startDaemon();
      const invoices = Array.from({ length: 60 }, (_, i) => invoice(990_000_001 + i));
      invoices[10] = invoice(5_000); // outside the company's range: not accepted
      await project.drop('invoice', 'batch.jsonl', jsonlText(invoices));
      await eventually(() => {
        const [row] = project.ledgerQuery<{ n: number }>(
          `SELECT count(*) AS n FROM documents WHERE state = 'accepted'`,
        );
        return row.n >= 5 ? true : undefined;
      }, 'some documents accepted');
      await first.kill();

      const second = await startDaemon();
      const url = await listenerUrl(second);
      await project.finalResult('invoice', 'batch.jsonl', { timeoutMs: 30_000 });
      const ledger = project.ledgerQuery<{
        company: string;
        kind: string;
        state: string;
        n: number;
      }>('SELECT company, kind, state, count(*) AS n FROM documents GROUP BY company, kind, state');
      const metrics = await get(`${url}/metrics`, bearer);
      // a status no document has any more stays as 0 (the per-file counts keep it): the series goes on
      const documents = [...samples(metrics.text, 'edoc_documents_total')].filter(([, n]) => n > 0);
      expect(Object.fromEntries(documents)).toEqual(
        Object.fromEntries(
          ledger.map((r) => [`{company="${r.company}",kind="${r.kind}",status="${r.state}"}`, r.n]),
        ),
      );
      expect(ledger.reduce((sum, r) => sum + r.n, 0)).toBe(60);
      expect(ledger.length).toBeGreaterThan(1); // more than one status
      expect(samples(metrics.text, 'edoc_files_total').get('{kind="invoice",outcome="done"}')).toBe(
        1,
      );
    },
  );
});

describe('reload', () => {
  daemonTest(
    'SIGHUP: a new token applies at once, the old one is refused; neither reaches the log',
    async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({ http: HTTP });
      const daemon = await startDaemon();
      const url = await listenerUrl(daemon);
      expect((await get(`${url}/metrics`, bearer)).status).toBe(200);
      const NEW_TOKEN = 'the-new-console-token-9876543210';
      await project.writeConfig({ ...project.options, http: { ...HTTP, token: NEW_TOKEN } });
      daemon.signal('SIGHUP');
      await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
      expect((await get(`${url}/metrics`, bearer)).status).toBe(401);
      expect((await get(`${url}/metrics`, { authorization: `Bearer ${NEW_TOKEN}` })).status).toBe(
        200,
      );
      const log = JSON.stringify(project.logLines());
      for (const secret of [TOKEN, NEW_TOKEN, COMPANY_MAIN.apiKey])
        expect(log).not.toContain(secret);
    },
  );
});

describe('a reload never opens the running listener', () => {
  /** The one error line of a refused reload; the old configuration stays in force. */
  async function refusedReload(daemon: DaemonProcess): Promise<Record<string, unknown>> {
    const refused = await daemon.waitForLog(
      (l) => l.level === 'error' && /configuration refused/.test(l.msg),
    );
    expect(refused.code).toBe('EDOC_CONFIG_INVALID');
    expect(JSON.stringify(refused.err)).toContain('http.token: the running listener');
    return refused;
  }

  daemonTest(
    'SIGHUP with a file that drops http.token: refused with one error line, the token still required',
    async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({ http: HTTP });
      const daemon = await startDaemon();
      const url = await listenerUrl(daemon);
      await project.writeConfig({
        ...project.options,
        http: { listen: HTTP.listen, probeIdleMs: 300 },
      });
      daemon.signal('SIGHUP');
      await refusedReload(daemon);
      expect((await get(`${url}/metrics`)).status).toBe(401);
      expect((await get(`${url}/metrics`, { authorization: 'Bearer x' })).status).toBe(401);
      expect((await get(`${url}/metrics`, bearer)).status).toBe(200);
      expect(daemon.logLines().filter((l) => l.msg === 'configuration reloaded')).toHaveLength(0);
      expect(daemon.logLines().filter((l) => l.level === 'error')).toHaveLength(1);
    },
  );

  daemonTest(
    'listening on 0.0.0.0 with a token, a file saying 127.0.0.1 without one is refused: the console stays closed to the network',
    async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({
        http: { ...HTTP, listen: '0.0.0.0:0' },
      });
      const daemon = await startDaemon();
      const url = (await listenerUrl(daemon)).replace('0.0.0.0', '127.0.0.1');
      await project.writeConfig({ ...project.options, http: { listen: '127.0.0.1:0' } });
      daemon.signal('SIGHUP');
      await refusedReload(daemon);
      expect((await get(`${url}/metrics`)).status).toBe(401);
      expect((await get(`${url}/`, { accept: 'text/html' })).status).toBe(303);
      expect((await get(`${url}/metrics`, bearer)).status).toBe(200);
    },
  );

  daemonTest(
    'SIGHUP with a file without the http section closes the listener',
    async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({ http: HTTP });
      const daemon = await startDaemon();
      const url = await listenerUrl(daemon);
      expect((await get(`${url}/healthz`)).status).toBe(200);
      const { http: _dropped, ...withoutHttp } = project.options;
      await project.writeConfig(withoutHttp);
      daemon.signal('SIGHUP');
      await daemon.waitForLog((l) => l.msg === 'http was removed: the operator listener is closed');
      await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
      await expect(fetch(`${url}/metrics`)).rejects.toThrow();
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      expect(daemon.running).toBe(true);
    },
  );
});

describe('start-up refusals', () => {
  daemonTest(
    'a port in use is one clear error naming http.listen, exit 2',
    async ({ daemonProject }) => {
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      try {
        const port = (blocker.address() as { port: number }).port;
        const { spawnDaemon } = await daemonProject({ http: { listen: `127.0.0.1:${port}` } });
        const daemon = spawnDaemon();
        expect((await daemon.exited).code).toBe(2);
        expect(daemon.stderr).toMatch(
          /http\.listen: cannot listen on 127\.0\.0\.1:\d+: the port is in use/,
        );
        expect(daemon.stderr.trim().split('\n')).toHaveLength(1);
      } finally {
        blocker.close();
      }
    },
  );

  daemonTest(
    'a non-loopback listen without a token is refused at configuration load, exit 2 naming http.token',
    async ({ daemonProject }) => {
      const { spawnDaemon } = await daemonProject({ http: { listen: '0.0.0.0:0' } });
      const daemon = spawnDaemon();
      expect((await daemon.exited).code).toBe(2);
      expect(daemon.stderr).toContain(
        'http.token: is required when listen (0.0.0.0:0) is not a loopback address',
      );
    },
  );
});
