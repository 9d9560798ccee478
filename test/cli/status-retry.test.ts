/**
 * PRODUCT "Command line" and docs/operations.md: `edoc-bridge status` reads the
 * ledger beside a running daemon; `edoc-bridge retry` re-queues failed work,
 * releases in-doubt documents only on the operator's explicit word, and wakes
 * a running daemon (SIGHUP). Child processes against an emulator on port 0.
 */
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  eventually,
  type Project,
  type ProjectOptions,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import {
  daemonTest as test,
  type DaemonFixtures,
  type DaemonProject,
} from '../helpers/daemon-fixture.js';
import type { FaultSet } from '../helpers/emulator-client.js';
import { invoice, jsonText, supportDocument } from '../helpers/documents.js';

interface StatusJson {
  stateDir: string;
  daemon: { running: boolean; pid?: number };
  byCompanyKind: { company: string; kind: string; counts: Record<string, number> }[];
  filesInProgress: unknown[];
  inDoubt: { key: string | null; file: string; index: number; lastError: string | null }[];
  failed: {
    key: string | null;
    file: string;
    index: number;
    attempts: number;
    lastError: string | null;
  }[];
  lastPulls: unknown[];
}

beforeAll(async () => {
  await buildCli();
}, 240_000);

async function setUp(
  daemonProject: DaemonFixtures['daemonProject'],
  faults: FaultSet = {},
  options: Partial<ProjectOptions> = {},
): Promise<{ emu: TestEmulator; p: Project; startDaemon: DaemonProject['startDaemon'] }> {
  const { emulator, project, startDaemon } = await daemonProject({
    faults,
    companies: [COMPANY_MAIN],
    retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
    ...options,
  });
  return { emu: emulator, p: project, startDaemon };
}

async function statusJson(p: Project): Promise<StatusJson> {
  const run = await runCli(p, ['status', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as StatusJson;
}

describe('status', () => {
  test('on an empty state folder it says there are no documents and no daemon', async ({
    daemonProject,
  }) => {
    const { p } = await setUp(daemonProject);
    const run = await runCli(p, ['status']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('no daemon running');
    expect(run.stdout).toContain('No documents in the ledger yet.');
    const json = await statusJson(p);
    expect(json).toMatchObject({
      daemon: { running: false },
      byCompanyKind: [],
      inDoubt: [],
      failed: [],
    });
  });

  test('after a submit: the counts table per company and kind, and --json with byCompanyKind, inDoubt, failed, daemon', async ({
    daemonProject,
  }) => {
    const { p } = await setUp(daemonProject);
    const bad = invoice(990_200_003);
    bad.ReasonCredit = 'no aplica';
    const file = await p.exportFile(
      'ventas.json',
      jsonText([invoice(990_200_001), invoice(990_200_002), bad]),
    );
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(1);

    const run = await runCli(p, ['status']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    const header = lines.find((l) => l.startsWith('company'));
    expect(header?.split(/\s+/)).toEqual([
      'company',
      'kind',
      'pending',
      'sending',
      'accepted',
      'rejected',
      'invalid',
      'failed',
      'duplicate',
      'in-doubt',
    ]);
    expect(lines.find((l) => l.startsWith('main'))?.split(/\s+/)).toEqual([
      'main',
      'invoice',
      '0',
      '0',
      '2',
      '0',
      '1',
      '0',
      '0',
      '0',
    ]);
    expect(run.stdout).toContain('Received documents: no pull yet.');

    const json = await statusJson(p);
    expect(json.daemon.running).toBe(false);
    expect(json.byCompanyKind).toEqual([
      {
        company: 'main',
        kind: 'invoice',
        counts: expect.objectContaining({ accepted: 2, invalid: 1, failed: 0 }) as unknown,
      },
    ]);
    expect(json.inDoubt).toEqual([]);
    expect(json.failed).toEqual([]);
  });

  test('beside a running daemon it says a daemon is running, with its pid, and lists the files in progress', async ({
    daemonProject,
  }) => {
    const { emu, p, startDaemon } = await setUp(daemonProject);
    const daemon = await startDaemon();
    await p.drop('invoice', 'uno.json', jsonText([invoice(990_200_101)]));
    await p.finalResult('invoice', 'uno.json');
    const run = await runCli(p, ['status']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`a daemon is running (pid ${daemon.child.pid}`);
    const json = await statusJson(p);
    expect(json.daemon).toMatchObject({ running: true, pid: daemon.child.pid });
    expect(json.byCompanyKind[0].counts.accepted).toBe(1);

    // a file still being sent shows under "Files in progress" with how many of its documents are final
    // The text and the JSON are read inside the same window (a loaded machine can close a short one between
    // two commands): both are asked again until both show the file in progress.
    await emu.client.setFaults({ latencyMs: 6_000 });
    await p.drop('invoice', 'lento.json', jsonText([invoice(990_200_102), invoice(990_200_103)]));
    const row = /^lento\.json +main +invoice +open +0\/2$/m;
    type InProgress = { name: string; state: string; progress: { total: number } }[];
    const seen = await eventually(
      async () => {
        const out = (await runCli(p, ['status'])).stdout;
        if (!row.test(out)) return undefined;
        const inProgress = (await statusJson(p)).filesInProgress as InProgress;
        return inProgress.length === 1 ? { out, inProgress } : undefined;
      },
      'lento.json in progress in the status, text and JSON',
      20_000,
    );
    expect(seen.out).toContain('Files in progress (1):');
    expect(seen.inProgress.map((f) => [f.name, f.state, f.progress.total])).toEqual([
      ['lento.json', 'open', 2],
    ]);
    await emu.client.setFaults({});
    await p.finalResult('invoice', 'lento.json');
    expect((await statusJson(p)).filesInProgress).toEqual([]);
  });
});

describe('retry', () => {
  test('failed documents are listed by status; retry --file re-queues them and the running daemon (told by SIGHUP) gets them accepted', async ({
    daemonProject,
  }) => {
    const { emu, p, startDaemon } = await setUp(daemonProject, { errorRate: 1 });
    const daemon = await startDaemon();
    await p.drop('invoice', 'caida.json', jsonText([invoice(990_200_201), invoice(990_200_202)]));
    const failed = await p.finalResult('invoice', 'caida.json');
    expect(failed.counts).toMatchObject({ total: 2, failed: 2 });

    const run = await runCli(p, ['status']);
    expect(run.stdout).toMatch(/Failed \(gave up; edoc-bridge retry re-queues them\): 2/);
    expect(run.stdout).toContain('main/invoice/SETP/990200201');
    const json = await statusJson(p);
    expect(json.failed.map((d) => [d.key, d.file, d.attempts])).toEqual([
      ['main/invoice/SETP/990200201', 'caida.json', 2],
      ['main/invoice/SETP/990200202', 'caida.json', 2],
    ]);
    expect(json.failed[0].lastError).toBeTruthy();

    await emu.client.setFaults({});
    const retry = await runCli(p, ['retry', '--file', 'caida.json']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toContain('re-queued 2 document(s) of 1 file(s)');
    expect(retry.stdout).toContain(
      `the running daemon (pid ${daemon.child.pid}) was told to pick them up`,
    );
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    await eventually(
      async () => ((await emu.client.issued()).length === 2 ? true : undefined),
      'both invoices issued',
      10_000,
    );
    const done = await eventually(
      async () => {
        const r = await p.result('invoice', 'caida.json');
        return r?.finishedAt !== null && r?.counts.accepted === 2 ? r : undefined;
      },
      'caida.result.json rewritten with both accepted',
      10_000,
    );
    expect(done.counts).toMatchObject({ total: 2, accepted: 2, failed: 0 });
    expect((await statusJson(p)).failed).toEqual([]);
    expect(daemon.running).toBe(true);
  });

  test('retry --document prefix/number re-queues just that document; submit of the same file then sends it', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject, { errorRate: 1 });
    const file = await p.exportFile(
      'dos.json',
      jsonText([invoice(990_200_301), invoice(990_200_302)]),
    );
    const first = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/failed to process the requests \(HTTP 500\)/);
    await emu.client.setFaults({});

    const retry = await runCli(p, ['retry', '--document', 'SETP/990200302']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toContain('re-queued 1 document(s) of 1 file(s)');
    expect(retry.stdout).toContain('no daemon is running');
    const again = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/2 document\(s\): 1 accepted, 0 rejected, 0 invalid, 1 failed/);
    expect((await emu.client.issued()).map((d) => d.documentNumber)).toEqual(['SETP990200302']);

    const nothing = await runCli(p, ['retry', '--document', 'SETP/990200999']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/nothing to re-queue for SETP\/990200999/);
  });

  test('documents of a submitted file, re-queued beside a running daemon, are accepted by it', async ({
    daemonProject,
  }) => {
    const { emu, p, startDaemon } = await setUp(daemonProject, { errorRate: 1 });
    const file = await p.exportFile(
      'manual.json',
      jsonText([invoice(990_200_401), invoice(990_200_402)]),
    );
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(3);
    await emu.client.setFaults({});
    await startDaemon();
    const retry = await runCli(p, ['retry', '--file', 'manual.json']);
    expect(retry.code, retry.stderr).toBe(0);
    const done = await eventually(
      async () => {
        const r = await p.result('invoice', 'manual.json');
        return r?.finishedAt !== null && r?.counts.accepted === 2 ? r : undefined;
      },
      'manual.result.json with both accepted',
      10_000,
    );
    expect(done.counts).toMatchObject({ total: 2, accepted: 2 });
    expect((await emu.client.issued()).length).toBe(2);
  });

  test('an in-doubt support document without its own number is released only with --in-doubt, with a warning', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject, { dropAfterCommitRate: 1 });
    const file = await p.exportFile('compras.json', jsonText([supportDocument()]));
    const first = await runCli(p, ['submit', file, '--kind', 'support-document']);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toMatch(/1 document\(s\): .*1 in doubt/);
    expect((await emu.client.documents({ kind: 'support-document' })).length).toBe(1);

    const json = await statusJson(p);
    expect(json.inDoubt.map((d) => [d.key, d.file, d.index])).toEqual([[null, 'compras.json', 0]]);
    const shown = await runCli(p, ['status']);
    expect(shown.stdout).toMatch(/In doubt .*: 1/);
    expect(shown.stdout).toContain('compras.json#0');

    const refused = await runCli(p, ['retry', '--file', 'compras.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /1 in-doubt document\(s\) of compras\.json were not released: check with the service .* --in-doubt/,
    );
    expect((await statusJson(p)).inDoubt).toHaveLength(1);
    const refusedOne = await runCli(p, ['retry', '--document', 'main/support-document/0']);
    expect(refusedOne.code).toBe(1);
    expect(refusedOne.stderr).toMatch(
      /1 in-doubt document\(s\) of main\/support-document\/0 were not released/,
    );

    const released = await runCli(p, ['retry', '--document', 'compras.json#0', '--in-doubt']);
    expect(released.code, released.stderr).toBe(0);
    expect(released.stderr).toMatch(/^warning: 1 in-doubt document\(s\) released on your word/m);
    expect(released.stdout).toContain('re-queued 1 document(s)');
    const after = await statusJson(p);
    expect(after.inDoubt).toEqual([]);
    expect(after.byCompanyKind[0].counts).toMatchObject({ pending: 1, 'in-doubt': 0 });

    // Released on the operator's word: the next submit of the file sends it again.
    await emu.client.setFaults({});
    const resent = await runCli(p, ['submit', file, '--kind', 'support-document']);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toMatch(/1 document\(s\): 1 accepted/);
    expect((await emu.client.documents({ kind: 'support-document' })).length).toBe(2);
  });

  test('resolve --issued records an in-doubt document the operator found issued as accepted: nothing is sent, status and result.json agree', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject, { dropAfterCommitRate: 1 });
    const file = await p.exportFile(
      'compras.json',
      jsonText([supportDocument(undefined, 'uno'), supportDocument(undefined, 'dos')]),
    );
    const first = await runCli(p, ['submit', file, '--kind', 'support-document']);
    expect(first.code, first.stderr).toBe(1);
    expect((await statusJson(p)).inDoubt.map((d) => d.index)).toEqual([0, 1]);
    const sentBefore = (await emu.client.stats()).totalRequests;

    const unsaid = await runCli(p, ['resolve', '--document', 'compras.json#0']);
    expect(unsaid.code).toBe(2);
    expect(unsaid.stderr).toMatch(
      /say --issued .* if it did not, use edoc-bridge retry --in-doubt/,
    );
    const none = await runCli(p, ['resolve', '--document', 'compras.json#7', '--issued']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /nothing to resolve for compras\.json#7: no in-doubt document matches/,
    );

    const resolved = await runCli(p, [
      'resolve',
      '--document',
      'compras.json#0',
      '--issued',
      '--note',
      'DS 1043 en el portal',
    ]);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain(
      'recorded 1 document(s) as issued (accepted); nothing was sent',
    );
    expect(resolved.stdout).toContain(
      `report rewritten: ${p.resultPath('support-document', 'compras.json')}`,
    );
    const after = await statusJson(p);
    expect(after.inDoubt.map((d) => d.index)).toEqual([1]);
    expect(after.byCompanyKind[0].counts).toMatchObject({ accepted: 1, 'in-doubt': 1 });
    const result = await p.result('support-document', 'compras.json');
    expect(result?.counts).toMatchObject({ total: 2, accepted: 1, inDoubt: 1 });
    const doc = result?.documents[0] as
      { status: string; warnings: string[]; errors: unknown[] } | undefined;
    expect(doc?.status).toBe('accepted');
    expect(doc?.warnings[0]).toMatch(
      /^confirmed issued by the operator \(edoc-bridge resolve, \d{4}-\d\d-\d\dT[^)]*\): DS 1043 en el portal$/,
    );
    expect(result?.finishedAt).not.toBeNull();
    // nothing was sent for it, and retry has nothing left to release for that document
    expect((await emu.client.stats()).totalRequests).toBe(sentBefore);
    const retried = await runCli(p, ['retry', '--document', 'compras.json#0', '--in-doubt']);
    expect(retried.code).toBe(1);
  });

  test('resolve --issued --number on a service-numbered document stores the number the service gave as data: ledger key and result.json issued', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject, { dropAfterCommitRate: 1 });
    const file = await p.exportFile(
      'compras.json',
      jsonText([supportDocument(undefined, 'uno'), supportDocument(undefined, 'dos')]),
    );
    expect((await runCli(p, ['submit', file, '--kind', 'support-document'])).code).toBe(1);
    // what the service issued for the first document (the answer was lost: only the service knows the number)
    const held = await emu.client.documents({ kind: 'support-document' });
    expect(held.length).toBe(2);
    const [issued] = held;
    const number = `${issued.prefix}${String(issued.number)}`;

    const two = await runCli(p, [
      'resolve',
      '--file',
      'compras.json',
      '--issued',
      '--number',
      number,
    ]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/--number names the number of one document: use it with --document/);
    const bad = await runCli(p, [
      'resolve',
      '--document',
      'compras.json#0',
      '--issued',
      '--number',
      'DS-abc',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /--number DS-abc: not a number as the service writes one .*nothing was recorded/,
    );

    const resolved = await runCli(p, [
      'resolve',
      '--document',
      'compras.json#0',
      '--issued',
      '--number',
      number,
    ]);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain(
      `recorded 1 document(s) as issued (accepted) under ${String(issued.prefix)}/${String(issued.number)}; nothing was sent`,
    );
    const rows = p.ledgerQuery<{ key: string | null; state: string }>(
      'SELECT key, state FROM documents ORDER BY id',
    );
    expect(rows).toEqual([
      {
        key: `main/support-document/${String(issued.prefix)}/${String(issued.number)}`,
        state: 'accepted',
      },
      { key: null, state: 'in-doubt' },
    ]);
    const result = await p.result('support-document', 'compras.json');
    expect(result?.documents[0].issued).toMatchObject({
      prefix: issued.prefix,
      number: String(issued.number),
    });

    // without --number the operator is told the number is not recorded as data
    const other = await runCli(p, ['resolve', '--document', 'compras.json#1', '--issued']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr + other.stdout).toMatch(/1 of them had no number of their own: .*--number/);
  });

  test('exit 2 when neither or both of --file and --document are given', async ({
    daemonProject,
  }) => {
    const { p } = await setUp(daemonProject);
    for (const args of [['retry'], ['retry', '--file', 'a.json', '--document', 'SETP/1']]) {
      const run = await runCli(p, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trim()).toBe(
        'edoc-bridge retry: give exactly one of --file NAME or --document KEY (see edoc-bridge retry --help)',
      );
    }
  });
});
