/**
 * Issue 13 must-show 4 with the cluster, at small size (bench/ledger-copy.mjs --takeover runs it at
 * 100,000): an installation's SQLite ledger, documents in every state of four companies, copied with
 * `edoc-bridge ledger copy`, then three `edoc-bridge run` nodes start on the copy at once — the first
 * claims every company and hands some back for fair share while it recovers them. Per document: no
 * request for what was final or in doubt, what was due sent once, numbered `sending` ones resent once,
 * service-numbered `sending` ones in doubt and not sent; every open file done and reported.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { clusterCompany, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';
import { everyStateFolder } from '../fixtures/ledger/every-state.js';
import { tempDir } from '../ledger/helpers.js';

// four companies: the fixture's files go round them and every third file is done, so each has some of each
const COMPANIES = [1, 2, 3, 4].map((i) => clusterCompany(i));
const FIRST = 990_500_000;

interface SourceRow {
  id: number;
  state: string;
  own: number;
  due: number;
  key: string;
}

describePg('ledger copy, then three cluster nodes take over', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: COMPANIES, leaseMs: 1_500 });

  it('nothing final or in doubt is sent, what waited is sent once, every open file reported', async () => {
    const sqliteDir = tempDir('edoc-copy-takeover-');
    const byAlias = new Map(COMPANIES.map((c) => [c.alias, c]));
    await everyStateFolder(sqliteDir, {
      documents: 640,
      perFile: 40,
      companies: COMPANIES.map((c) => c.alias),
      kinds: ['invoice'],
      root: ctx.cluster.shared.dir,
      request: (i, company) => ({
        raw: JSON.stringify(invoice(FIRST + i, byAlias.get(company))),
        number: `SETP/${FIRST + i}`,
      }),
    });
    const copy = await runCli(
      { dir: sqliteDir },
      ['ledger', 'copy', '--from', sqliteDir, '--to', db().url],
      { timeoutMs: 120_000 },
    );
    expect(copy.code, copy.stderr).toBe(0);

    const source = new Database(path.join(sqliteDir, 'ledger.sqlite'), { readonly: true });
    const rows = source
      .prepare(
        `SELECT d.id, d.state, d.own_number AS own, d.next_attempt_at IS NOT NULL AS due,
      'SETP' || json_extract(b.raw, '$.SerieNumber') AS key FROM documents d JOIN document_bodies b ON b.id = d.id`,
      )
      .all() as SourceRow[];
    const openFiles = source
      .prepare(`SELECT id, report_name AS name FROM files WHERE state = 'open'`)
      .all() as { id: number; name: string }[];
    source.close();
    const of = (test: (r: SourceRow) => boolean): SourceRow[] => rows.filter(test);
    const unsent = of(
      (r) =>
        !['pending', 'sending'].includes(r.state) ||
        (r.state === 'pending' && !r.due) ||
        (r.state === 'sending' && !r.own),
    );
    const due = of((r) => r.state === 'pending' && r.due === 1);
    const sendingNumbered = of((r) => r.state === 'sending' && r.own === 1);
    const sendingUnnumbered = of((r) => r.state === 'sending' && !r.own);
    for (const group of [
      due,
      sendingNumbered,
      sendingUnnumbered,
      of((r) => r.state === 'in-doubt'),
    ])
      expect(group.length).toBeGreaterThan(0);

    const nodes = await Promise.all(['a', 'b', 'c'].map((name) => ctx.cluster.start(name, 60_000)));
    await eventually(
      async () => {
        const [left] = await ctx.sql.all<{ n: number }>(`SELECT count(*)::int AS n FROM documents
        WHERE state = 'sending' OR (state = 'pending' AND next_attempt_at IS NOT NULL)`);
        return left.n === 0 ? true : undefined;
      },
      'every document that waited is settled',
      120_000,
    );
    for (const [i, node] of nodes.entries()) {
      const exit = await node.stop();
      // a SIGKILL here is the harness's, after 15 s without an exit: its log says which stop step it waited in
      const tail = node
        .logLines()
        .slice(-25)
        .map((l) => JSON.stringify(l).slice(0, 300))
        .join('\n');
      expect(
        exit,
        `node ${'abc'[i]} stopped with ${JSON.stringify(exit)}; its stderr ends:\n${node.stderr.slice(-3000)}\nits log ends:\n${tail}`,
      ).toEqual({ code: 0, signal: null });
    }

    // the emulator knows none of the source's documents: a request for any of them is issued and counted here
    const requests = new Map<string, number>();
    for (const d of await ctx.emulator.client.documents())
      requests.set(d.documentNumber, (requests.get(d.documentNumber) ?? 0) + 1);
    const stats = await ctx.emulator.client.stats();
    expect(Object.values(stats.requests.E1 ?? {}).reduce((a, b) => a + b, 0)).toBe(
      due.length + sendingNumbered.length,
    );
    const after = new Map(
      (
        await ctx.sql.all<{ id: number; state: string }>(
          'SELECT id::int AS id, state FROM documents',
        )
      ).map((r) => [r.id, r.state]),
    );
    for (const r of unsent)
      expect(requests.get(r.key) ?? 0, `document ${r.id} (${r.state})`).toBe(0);
    for (const r of [...due, ...sendingNumbered])
      expect(requests.get(r.key), `document ${r.id} (${r.state})`).toBe(1);
    for (const r of [...due, ...sendingNumbered]) expect(after.get(r.id)).toBe('accepted');
    for (const r of sendingUnnumbered) expect(after.get(r.id)).toBe('in-doubt');
    for (const r of of((r) => !['pending', 'sending'].includes(r.state)))
      expect(after.get(r.id), `document ${r.id}`).toBe(r.state);

    const files = new Map(
      (
        await ctx.sql.all<{ id: number; state: string; report_state: string }>(
          'SELECT id::int AS id, state, report_state FROM files',
        )
      ).map((f) => [f.id, f]),
    );
    for (const f of openFiles) {
      expect(files.get(f.id), f.name).toMatchObject({ state: 'done', report_state: 'final' });
      expect(
        existsSync(path.join(ctx.cluster.shared.dir, 'outbox', 'invoice', `${f.name}.result.json`)),
        f.name,
      ).toBe(true);
    }
  });
});
