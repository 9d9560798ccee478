/**
 * Issue 13, one node on the PostgreSQL ledger: `edoc-bridge run` with ledger.url sends a dropped file and
 * writes its report with every document in the database (nothing in the state folder), while `status`
 * and `retry` from other processes read and change the same ledger. Child processes, the emulator over
 * real HTTP, the harness's PostgreSQL server.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, COMPANY_MAIN, eventually, type Project } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';
import { adminQuery, describePg, usePgDatabase } from '../helpers/postgres.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

interface StatusJson {
  byCompanyKind: { company: string; kind: string; counts: Record<string, number> }[];
  failed: { key: string | null; file: string }[];
}

async function statusJson(p: Project): Promise<StatusJson> {
  const run = await runCli(p, ['status', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as StatusJson;
}

describePg('edoc-bridge on the PostgreSQL ledger', () => {
  const pg = usePgDatabase();

  test('run sends a file and writes its report; status and retry from other processes work on the same database meanwhile', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      ledger: { url: pg().url },
      retry: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 50 },
    });
    // before anything ran: no ledger in the database yet, and the command says so
    const empty = await runCli(p, ['retry', '--file', 'nada.json']);
    expect(empty.code).toBe(1);

    const daemon = await startDaemon(60_000);
    await p.drop('invoice', 'ventas.json', jsonText([invoice(990_300_001), invoice(990_300_002)]));
    const done = await p.finalResult('invoice', 'ventas.json', { timeoutMs: 30_000 });
    expect(done.counts).toMatchObject({ total: 2, accepted: 2 });
    expect((await emulator.client.issued()).map((d) => d.documentNumber).sort()).toEqual([
      'SETP990300001',
      'SETP990300002',
    ]);

    // a failure the operator retries from another process, against the same database, while the daemon runs
    await emulator.client.setFaults({ errorRate: 1 });
    await p.drop('invoice', 'caida.json', jsonText([invoice(990_300_003)]));
    expect(
      (await p.finalResult('invoice', 'caida.json', { timeoutMs: 30_000 })).counts,
    ).toMatchObject({ total: 1, failed: 1 });
    const status = await statusJson(p);
    expect(status.byCompanyKind).toEqual([
      {
        company: 'main',
        kind: 'invoice',
        counts: expect.objectContaining({ accepted: 2, failed: 1 }) as unknown,
      },
    ]);
    expect(status.failed.map((d) => [d.key, d.file])).toEqual([
      ['main/invoice/SETP/990300003', 'caida.json'],
    ]);
    const text = await runCli(p, ['status']);
    expect(text.stdout).toContain('main/invoice/SETP/990300003');
    expect(text.stdout + text.stderr).not.toContain(pg().server.password);

    await emulator.client.setFaults({});
    const retry = await runCli(p, ['retry', '--file', 'caida.json']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toContain('re-queued 1 document(s) of 1 file(s)');
    expect(retry.stdout).toContain('PostgreSQL ledger picks them up');
    daemon.signal('SIGHUP');
    await eventually(
      async () =>
        (await p.result('invoice', 'caida.json'))?.counts.accepted === 1 ? true : undefined,
      'caida.result.json rewritten with the document accepted',
      30_000,
    );
    expect((await statusJson(p)).failed).toEqual([]);
    expect(daemon.running).toBe(true);
    expect((await daemon.stop()).code).toBe(0);
    // the database holds the ledger: the state folder has none
    expect(existsSync(path.join(p.stateDir, 'ledger.sqlite'))).toBe(false);
  });

  test("the database cuts the daemon's connections while it sends: nothing is issued twice, and after a restart every document is settled", async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 200, concurrency: 4 } }],
      ledger: { url: pg().url },
      faults: { latencyMs: 30 },
    });
    let daemon = await startDaemon(60_000);
    const numbers = Array.from({ length: 150 }, (_, i) => 990_400_001 + i);
    await p.drop('invoice', 'cortada.json', jsonText(numbers.map((n) => invoice(n))));
    await eventually(
      async () => ((await emulator.client.issued()).length >= 20 ? true : undefined),
      'the first invoices issued',
      30_000,
    );
    // every connection of the daemon's database, as an operator's pg_terminate_backend (or a failover) would; five
    // times, so that some cut lands on a statement in flight (a read of the feeder, a mark, a verdict)
    let cuts = 0;
    for (let i = 0; i < 5; i++) {
      const cut = await adminQuery(
        `SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1
        AND pid <> pg_backend_pid()`,
        [pg().name],
      );
      cuts += Number((cut.rows[0] as { n: string }).n);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(cuts).toBeGreaterThan(0);
    const settled = async (): Promise<boolean> =>
      (await p.result('invoice', 'cortada.json'))?.finishedAt != null;
    // a mark or verdict whose commit was cut may be in the database or not: those documents wait for the next start
    const early = await eventually(
      async () => ((await settled()) ? true : undefined),
      'the report',
      20_000,
    ).catch(() => false);
    if (!early) {
      expect(
        daemon.running,
        `${daemon.stderr.slice(-2000)}\n${p
          .logLines()
          .slice(-5)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
      ).toBe(true);
      await daemon.stop();
      daemon = await startDaemon(60_000);
    }
    const done = await p.finalResult('invoice', 'cortada.json', { timeoutMs: 60_000 });
    expect(done.counts.total).toBe(150);
    expect(done.counts.accepted + done.counts.duplicate).toBe(150);
    const issued = (await emulator.client.issued()).map((d) => d.documentNumber);
    expect(issued).toHaveLength(new Set(issued).size);
    expect(new Set(issued)).toEqual(new Set(numbers.map((n) => `SETP${n}`)));
    expect(daemon.running).toBe(true);
    await daemon.stop();
  });
});
