/**
 * An ERP that writes the same daily name (`compras.json`) every day: an in-doubt document of yesterday's
 * file and one of today's both show as `compras.json#0`. The operator's word (`resolve --issued`,
 * `retry --in-doubt`) is about the document they looked up at the service: given by a name that several
 * files share, it changes nothing and lists the files by their archived copies, which name one exactly.
 * The real CLI beside the running daemon, the emulator over HTTP.
 */
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, eventually } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { jsonText, supportDocument } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describe('operator actions on a file name a daily export reuses', () => {
  test('resolve --file / retry --in-doubt by the shared name refuse and list the files; the archived path names one', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
      cli,
    } = await daemonProject({ retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } });
    const daemon = await startDaemon();
    const inDoubt = (n: number, what: string): Promise<true> =>
      eventually(() => (p.ledgerStates()['in-doubt'] === n ? true : undefined), what);
    // yesterday: the connection was cut before the service did anything (not issued)
    await emulator.client.setFaults({ resetRate: 1 });
    await p.drop('support-document', 'compras.json', jsonText([supportDocument(undefined, 'M-1')]));
    await inDoubt(1, "yesterday's document in doubt");
    await p.finalResult('support-document', 'compras.json');
    // today, the same name: issued, and its answer lost
    await emulator.client.setFaults({ dropAfterCommitRate: 1 });
    await p.drop('support-document', 'compras.json', jsonText([supportDocument(undefined, 'M-2')]));
    await inDoubt(2, "today's document in doubt too");
    await emulator.client.setFaults({});
    expect((await emulator.client.issued()).length).toBe(1);
    const archived = (): string[] =>
      p
        .ledgerQuery<{ archived_path: string | null }>(
          'SELECT archived_path FROM files ORDER BY id',
        )
        .flatMap((f) => (f.archived_path === null ? [] : [f.archived_path]));
    await eventually(() => (archived().length === 2 ? true : undefined), 'both archived');
    const [yesterday, today] = archived();
    expect(path.basename(today)).toBe('compras (2).json');

    // the operator found TODAY's document at the service; the name also names yesterday's, never issued
    for (const args of [
      ['resolve', '--file', 'compras.json', '--issued'],
      ['retry', '--file', 'compras.json', '--in-doubt'],
      ['resolve', '--document', 'compras.json#0', '--issued'],
    ]) {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('names documents of 2 files; nothing was done');
      expect(run.stderr).toContain(yesterday);
      expect(run.stderr).toContain(today);
    }
    expect(p.ledgerStates()).toEqual({ 'in-doubt': 2 });

    // by its archived copy: only that file's document
    const resolved = await cli(['resolve', '--file', today, '--issued', '--note', 'in the portal']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain('recorded 1 document(s) as issued');
    const released = await cli(['retry', '--document', `${yesterday}#0`, '--in-doubt']);
    expect(released.code, released.stderr).toBe(0);
    await eventually(
      () => (p.ledgerStates().accepted === 2 ? true : undefined),
      "yesterday's document sent again and accepted",
    );
    // the ledger and the service agree: two documents, each issued once
    expect((await emulator.client.issued()).length).toBe(2);
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);
});
