/**
 * An outsider's attack on the company's one 401 pause (company/company-runs.ts, rate/company-pause.ts)
 * through reloads: the real daemon as a child process, the emulator over HTTP, requests counted there.
 * PRODUCT "Delivery rules": a 401 pauses the company's submissions; they resume when the key is fixed
 * (config reload) — a reload that fixes nothing (logrotate's daily one) must not send again.
 */
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import {
  buildCli,
  COMPANY_MAIN,
  COMPANY_OTHER,
  type LogLine,
  sleep,
} from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

function e1(stats: { requests: Record<string, Record<string, number> | undefined> }): number {
  return Object.values(stats.requests.E1 ?? {}).reduce((a, b) => a + b, 0);
}

function isUnauthorized(l: LogLine): boolean {
  return l.code === 'EDOC_SERVICE_UNAUTHORIZED';
}

describe('a paused company and reloads', () => {
  test('a reload that leaves the refused key as it was keeps the company paused (no request, no new alert); fixing the key resumes it', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      companies: [COMPANY_MAIN, COMPANY_OTHER],
      apiKeys: { main: 'not-the-key' },
    });
    const daemon = await startDaemon();
    const aDocs = Array.from({ length: 8 }, (_, i) => invoice(990_270_001 + i));
    await project.drop('invoice', 'a.jsonl', jsonlText(aDocs), 'main');
    await daemon.waitForLog(isUnauthorized);
    await sleep(500);
    const requestsBefore = e1(await emulator.client.stats());

    // three reloads that change nothing (SIGHUP as logrotate sends it)
    for (let i = 1; i <= 3; i++) {
      const since = project.logLines().length;
      daemon.signal('SIGHUP');
      await project.waitForLog((l) => l.msg === 'configuration reloaded', { since });
      await sleep(700);
    }
    // the other company is untouched meanwhile
    await project.drop(
      'invoice',
      'b.jsonl',
      jsonlText([invoice(990_270_101, COMPANY_OTHER)]),
      'other',
    );
    const b = await project.finalResult('invoice', 'b.jsonl', { company: 'other' });
    expect(b.counts).toMatchObject({ total: 1, accepted: 1 });

    // main sent nothing more: the one E1 after is b.jsonl's; one alert line in all
    expect(e1(await emulator.client.stats())).toBe(requestsBefore + 1);
    expect(daemon.logLines().filter(isUnauthorized)).toHaveLength(1);
    expect(
      daemon.logLines().filter((l) => l.msg === 'configuration reloaded: submissions resume'),
    ).toHaveLength(0);
    const status = JSON.parse((await runCli(project, ['status', '--json'])).stdout) as {
      paused: { company: string }[];
    };
    expect(status.paused.map((p) => p.company)).toEqual(['main']);

    // the operator fixes the key and reloads: main resumes and its documents are accepted
    await project.writeConfig({ ...project.options, apiKeys: {} });
    const since = project.logLines().length;
    daemon.signal('SIGHUP');
    await project.waitForLog((l) => l.msg === 'configuration reloaded', { since });
    const a = await project.finalResult('invoice', 'a.jsonl', { company: 'main' });
    expect(a.counts).toMatchObject({ total: 8, accepted: 8, failed: 0 });
  }, 90_000);
});
