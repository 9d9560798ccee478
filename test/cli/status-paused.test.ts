/**
 * A company the service refused (401, a wrong key) is paused: `edoc-bridge status` beside the running
 * daemon says so with the reason and the fix, as the log line and the console do, and `/readyz` is not
 * ready while no company can send, naming why in its body. A reload with the right key clears both.
 * The real CLI as child processes (daemon, status), the emulator over HTTP.
 */
import { beforeAll, describe, expect } from 'vitest';
import { loadPauses } from '../../src/submit/pause-file.js';
import { runCli } from '../helpers/cli-runner.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import {
  buildCli,
  COMPANY_MAIN,
  COMPANY_OTHER,
  type DaemonProcess,
  eventually,
  type Project,
} from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const TOKEN = 'console-token-0123456789abcdef';
const HTTP = { listen: '127.0.0.1:0', token: TOKEN, probeIdleMs: 300 };

interface Readyz {
  status: string;
  checks: Record<string, string>;
  failing?: { check: string; problem: string }[];
}

/**
 * The pause as `status` reads it: the daemon writes paused.json after the 401's log line (the line is
 * written as the pause begins, the file a moment later), so the line alone does not say status can see it.
 */
async function pauseRecorded(
  project: Project,
  daemon: DaemonProcess,
  company: string,
): Promise<void> {
  await eventually(
    () =>
      loadPauses(project.stateDir, daemon.child.pid ?? -1).some((p) => p.company === company)
        ? true
        : undefined,
    `paused.json naming ${company}`,
  );
}

async function readyz(url: string): Promise<{ status: number; body: Readyz }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as Readyz };
}

describe('a company paused by a wrong key', () => {
  test('status shows it with the reason and the fix; readyz is 503 naming it while no company can send; a reload with the right key clears both', async ({
    daemonProject,
  }) => {
    const { project, startDaemon } = await daemonProject({
      http: HTTP,
      apiKeys: { main: 'not-the-key' },
    });
    const daemon = await startDaemon();
    const url = String((await daemon.waitForLog((l) => l.msg === 'operator listener started')).url);
    await project.drop('invoice', 'a.jsonl', jsonlText([invoice(990_260_801)]));
    await daemon.waitForLog((l) => l.code === 'EDOC_SERVICE_UNAUTHORIZED');
    await pauseRecorded(project, daemon, 'main');

    const shown = await runCli(project, ['status']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /^PAUSED: company main since \d{4}-\d\d-\d\dT[^ ]+: the service refused its credentials \(EDOC_SERVICE_UNAUTHORIZED: .+\); its documents wait\. Fix: fix the company's apiKey \(or apiKeyFile\) and id in the configuration, then reload the daemon/m,
    );
    expect(shown.stdout).not.toContain('not-the-key');
    const json = JSON.parse((await runCli(project, ['status', '--json'])).stdout) as {
      paused: { company: string; code: string; fix: string }[];
    };
    expect(json.paused).toEqual([
      expect.objectContaining({
        company: 'main',
        code: 'EDOC_SERVICE_UNAUTHORIZED',
        fix: expect.stringMatching(/reload/) as unknown,
      }),
    ]);

    const notReady = await eventually(async () => {
      const r = await readyz(url);
      return r.status === 503 ? r : undefined;
    }, 'readyz 503');
    expect(notReady.body.checks.companies).toBe('failing');
    const problem = notReady.body.failing?.find((f) => f.check === 'companies')?.problem ?? '';
    expect(problem).toMatch(
      /^no company can send: the service refused the credentials of main since .+ \(EDOC_SERVICE_UNAUTHORIZED\); fix the company's apiKey/,
    );
    expect(JSON.stringify(notReady.body)).not.toContain('not-the-key');

    await project.writeConfig({ ...project.options, apiKeys: {} });
    daemon.signal('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    await project.finalResult('invoice', 'a.jsonl');
    const after = await runCli(project, ['status']);
    expect(after.stdout).not.toContain('PAUSED');
    const ready = await eventually(async () => {
      const r = await readyz(url);
      return r.status === 200 ? r : undefined;
    }, 'readyz 200');
    expect(ready.body.checks).toEqual({
      ledger: 'ok',
      watcher: 'ok',
      service: 'ok',
      companies: 'ok',
    });
  }, 60_000);

  test('one company paused, another sending: status names the paused one; readyz stays ready', async ({
    daemonProject,
  }) => {
    const { project, startDaemon } = await daemonProject({
      http: HTTP,
      companies: [COMPANY_MAIN, COMPANY_OTHER],
      apiKeys: { main: 'not-the-key' },
    });
    const daemon = await startDaemon();
    const url = String((await daemon.waitForLog((l) => l.msg === 'operator listener started')).url);
    await project.drop('invoice', 'a.jsonl', jsonlText([invoice(990_260_811)]), 'main');
    await project.drop(
      'invoice',
      'b.jsonl',
      jsonlText([invoice(990_260_812, COMPANY_OTHER)]),
      'other',
    );
    await daemon.waitForLog((l) => l.code === 'EDOC_SERVICE_UNAUTHORIZED');
    await project.finalResult('invoice', 'b.jsonl', { company: 'other' });
    await pauseRecorded(project, daemon, 'main');

    const shown = await runCli(project, ['status']);
    expect(shown.stdout.match(/^PAUSED: .*$/gm)).toEqual([
      expect.stringMatching(/^PAUSED: company main since /) as unknown,
    ]);
    const ready = await eventually(async () => {
      const r = await readyz(url);
      return r.status === 200 ? r : undefined;
    }, 'readyz 200');
    expect(ready.body.checks.companies).toBe('ok');
  }, 60_000);
});
