/**
 * `edoc-bridge show FILE` and `show --document KEY`: the console's file and document pages as a
 * command, read-only beside a running daemon and without API keys. Child processes against an
 * emulator on port 0.
 */
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, COMPANY_MAIN, eventually } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, BUILD_TIMEOUT_MS);

interface ShowFileJson {
  files: {
    name: string;
    state: string;
    documents: {
      index: number;
      key: string | null;
      state: string;
      attempts: number;
      errors: unknown[];
    }[];
  }[];
}

interface ShowDocumentJson {
  documents: {
    key: string;
    state: string;
    customer: string | null;
    events: { type: string; data: Record<string, unknown> | null }[];
  }[];
}

describe('show', () => {
  test("beside a running daemon: every document of a file with its outcome, as a table and as JSON; a document's history", async ({
    daemonProject,
  }) => {
    const {
      emulator,
      project: p,
      startDaemon,
    } = await daemonProject({
      faults: { errorRate: 1 },
      companies: [COMPANY_MAIN],
      retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
    });
    const daemon = await startDaemon();
    const bad = invoice(990_300_003);
    bad.ReasonCredit = 'no aplica';
    await p.drop(
      'invoice',
      'caida.json',
      jsonText([invoice(990_300_001), invoice(990_300_002), bad]),
    );
    await p.finalResult('invoice', 'caida.json');

    const table = await runCli(p, ['show', 'caida.json']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /^caida\.json — main\/invoice, done, taken .*: 3 document\(s\): 1 invalid, 2 failed$/m,
    );
    const lines = table.stdout.split('\n');
    expect(
      lines
        .find((l) => l.trimStart().startsWith('#'))
        ?.split(/\s{2,}/)
        .map((c) => c.trim()),
    ).toEqual(['#', 'key', 'state', 'attempts', 'first error']);
    expect(lines.find((l) => l.includes('SETP/990300001'))).toMatch(
      /^\s*0\s+main\/invoice\/SETP\/990300001\s+failed\s+2\s+\S/,
    );
    expect(lines.find((l) => l.includes('SETP/990300003'))).toMatch(/invalid\s+0\s+\S/);

    // a path as typed finds the file by its name
    expect((await runCli(p, ['show', 'export/hoy/caida.json'])).stdout).toContain(
      'caida.json — main/invoice, done',
    );

    const json = await runCli(p, ['show', 'caida.json', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as ShowFileJson;
    expect(parsed.files.map((f) => [f.name, f.state])).toEqual([['caida.json', 'done']]);
    expect(parsed.files[0].documents.map((d) => [d.index, d.key, d.state, d.attempts])).toEqual([
      [0, 'main/invoice/SETP/990300001', 'failed', 2],
      [1, 'main/invoice/SETP/990300002', 'failed', 2],
      [2, 'main/invoice/SETP/990300003', 'invalid', 0],
    ]);

    await emulator.client.setFaults({});
    expect((await runCli(p, ['retry', '--document', 'SETP/990300001'])).code).toBe(0);
    await eventually(
      async () => (await p.result('invoice', 'caida.json'))?.counts.accepted === 1 || undefined,
      'retried document accepted',
      15_000,
    );

    const history = await runCli(p, ['show', '--document', 'SETP/990300001']);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(
      'main/invoice/SETP/990300001 — main/invoice, document #0 of caida.json',
    );
    expect(history.stdout).toMatch(/^state: accepted, 1 attempt\(s\), customer \d+/m);
    const events = history.stdout
      .split('\n')
      .map((l) => l.split(/\s{2,}/)[1])
      .filter((e) => e !== undefined);
    expect(events).toEqual(
      expect.arrayContaining(['sending', 'retry-scheduled', 'failed', 'requeued', 'accepted']),
    );
    expect(events.indexOf('requeued')).toBeLessThan(events.lastIndexOf('accepted'));
    const doc = JSON.parse(
      (await runCli(p, ['show', '--document', 'caida.json#0', '--json'])).stdout,
    ) as ShowDocumentJson;
    expect(doc.documents.map((d) => d.state)).toEqual(['accepted']);
    expect(doc.documents[0].events.find((e) => e.type === 'requeued')?.data).toMatchObject({
      by: 'cli',
    });
    expect(daemon.running).toBe(true);
  });

  test('an unknown file or document: one clear line, exit 1; neither or both of FILE and --document: usage error', async ({
    project,
  }) => {
    const none = await runCli(project, ['show', 'nada.json']);
    expect(none.code).toBe(1);
    expect(none.stderr.trim()).toMatch(/^nothing to show: there is no ledger in /);
    expect((await runCli(project, ['show'])).code).toBe(2);
    expect((await runCli(project, ['show', 'a.json', '--document', 'X/1'])).code).toBe(2);
  });
});
