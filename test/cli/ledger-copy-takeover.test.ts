/**
 * Issue 13 item 4: an installation's SQLite ledger copied with `edoc-bridge ledger copy`, then the
 * PostgreSQL ledger takes over. The copy shows the same `status` summary as the original, and a daemon
 * run on it (`edoc-bridge run` with ledger.url, against the emulator over real HTTP) sends what was
 * waiting, resends nothing that was final, and leaves in-doubt documents in doubt: the emulator never
 * sees a request for them. Child processes, the harness's PostgreSQL server.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, expect } from 'vitest';
import { openLedger } from '../../src/ledger/open.js';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, COMPANY_MAIN, eventually } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice } from '../helpers/documents.js';
import { adminQuery, describePg, usePgDatabase } from '../helpers/postgres.js';
import { everyStateFolder } from '../fixtures/ledger/every-state.js';
import { tempDir } from '../ledger/helpers.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const FIRST = 990_400_000;

describePg('ledger copy, then the PostgreSQL ledger takes over', () => {
  const pg = usePgDatabase();

  test('the copy shows the same status; a daemon on it sends what waited, nothing final again, nothing in doubt', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({ companies: [COMPANY_MAIN], ledger: { url: pg().url } });
    const sqliteDir = tempDir('edoc-takeover-');
    const filled = await everyStateFolder(sqliteDir, {
      documents: 240,
      perFile: 40,
      companies: ['main'],
      kinds: ['invoice'],
      root: p.dir,
      request: (i) => ({ raw: JSON.stringify(invoice(FIRST + i)), number: `SETP/${FIRST + i}` }),
    });

    const copy = await runCli(p, ['ledger', 'copy', '--from', sqliteDir], { timeoutMs: 120_000 });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).not.toContain(pg().server.password);

    const lite = await openLedger({ paths: { state: sqliteDir } }, { readOnly: true });
    const post = await openLedger(
      { paths: { state: p.stateDir }, ledger: { url: pg().url } },
      { readOnly: true },
    );
    try {
      const summary = await lite.statusSummary(1000);
      expect(summary.inDoubt.length).toBeGreaterThan(0);
      expect(summary.failed.length).toBeGreaterThan(0);
      expect(await post.statusSummary(1000)).toEqual(summary);
    } finally {
      await lite.close();
      await post.close();
    }

    // what the SQLite ledger had waiting, by what a daemon must do with it
    const source = new Database(path.join(sqliteDir, 'ledger.sqlite'), { readonly: true });
    const ids = (where: string): number[] =>
      source
        .prepare(`SELECT id FROM documents WHERE ${where} ORDER BY id`)
        .pluck()
        .all() as number[];
    const toSend = ids(
      `(state = 'pending' AND next_attempt_at IS NOT NULL) OR (state = 'sending' AND own_number = 1)`,
    );
    const sendingNumbered = ids(`state = 'sending' AND own_number = 1`);
    const sendingUnnumbered = ids(`state = 'sending' AND own_number = 0`);
    const finalStates = new Map(
      source
        .prepare(`SELECT id, state FROM documents WHERE state NOT IN ('pending', 'sending')`)
        .raw(true)
        .all() as [number, string][],
    );
    source.close();
    expect(toSend.length).toBeGreaterThan(0);
    expect(sendingUnnumbered.length).toBeGreaterThan(0);
    // left `sending` with its own number by the old daemon: resent once after the copy
    expect(sendingNumbered.length).toBeGreaterThan(0);
    expect(filled.inDoubtIds.length).toBeGreaterThan(0);

    const daemon = await startDaemon(60_000);
    await eventually(
      async () => {
        const left = await adminQuery(
          `SELECT count(*)::int AS n FROM documents
        WHERE state = 'sending' OR (state = 'pending' AND next_attempt_at IS NOT NULL)`,
          [],
          pg().name,
        );
        return left.rows[0].n === 0 ? true : undefined;
      },
      'every document that waited is settled',
      60_000,
    );
    expect((await daemon.stop()).code).toBe(0);

    const sent = new Map<string, number>();
    for (const d of await emulator.client.documents())
      sent.set(d.documentNumber, (sent.get(d.documentNumber) ?? 0) + 1);
    const requests = (id: number): number =>
      sent.get((filled.numbers.get(id) ?? '').replace('/', '')) ?? 0;
    // nothing final, nothing in doubt, nothing sent without its own number reached the service
    for (const id of [...finalStates.keys(), ...sendingUnnumbered])
      expect(requests(id), `document ${id}`).toBe(0);
    // what waited went out, once each
    for (const id of toSend) expect(requests(id), `document ${id}`).toBe(1);

    const after = new Map(
      (await adminQuery('SELECT id::int AS id, state FROM documents', [], pg().name)).rows.map(
        (r: { id: number; state: string }) => [r.id, r.state],
      ),
    );
    for (const [id, state] of finalStates) expect(after.get(id), `document ${id}`).toBe(state);
    for (const id of filled.inDoubtIds) expect(after.get(id)).toBe('in-doubt');
    // a document left sending without its own number may have reached the service: in doubt now, not resent
    for (const id of sendingUnnumbered) expect(after.get(id)).toBe('in-doubt');
  });
});
