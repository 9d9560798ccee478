import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { Ledger } from '../../src/ledger/ledger.js';
import { DOCUMENT_SELECT } from '../../src/ledger/rows.js';
import { describePg } from '../helpers/postgres.js';
import { describeBackends, postgresBackend } from './backends.js';
import { holdLedger, killHard, tempDir } from './helpers.js';

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child) await killHard(child);
  child = undefined;
});

describeBackends('crash recovery', ({ place, openAt }) => {
  it('documents marked sending by a process killed with SIGKILL are found sending at the next start', async () => {
    const dir = await place();
    child = await holdLedger(dir, 6);
    await killHard(child);
    const ledger = await openAt(dir);
    try {
      const left = await ledger.sendingAtStart();
      expect(left.map((d) => d.index)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(left.every((d) => d.attempts === 1)).toBe(true);
      expect(left.filter((d) => d.ownNumber).map((d) => d.index)).toEqual([0, 2, 4]);
    } finally {
      await ledger.close();
    }
  });

  it('recoverSending resends numbered documents and sets the others in-doubt, never sending them again', async () => {
    const dir = await place();
    child = await holdLedger(dir, 4);
    await killHard(child);
    const ledger = await openAt(dir);
    try {
      const now = Date.now();
      const r = await ledger.recoverSending(now);
      expect(r.resent).toHaveLength(2);
      expect(r.inDoubt).toHaveLength(2);
      expect(await ledger.sendingAtStart()).toEqual([]);
      const due = await ledger.claimDue('main', now, 10);
      expect(due.map((d) => d.id)).toEqual(r.resent);
      // the resend knows an earlier request may have arrived (the ledger's sticky flag): a repeated-number
      // answer to it is in doubt, not a clash and not an acceptance
      expect(due[0].lastOutcome).toMatchObject({ kind: 'unknown' });
      expect(due.every((d) => d.maybeDelivered)).toBe(true);
      const doubt = await ledger.getDocument(r.inDoubt[0]);
      expect(doubt).toMatchObject({ state: 'in-doubt' });
      expect(doubt?.errors[0].code).toBe('EDOC_SUBMIT_IN_DOUBT');
      expect((await ledger.statusSummary()).inDoubt).toHaveLength(2);
    } finally {
      await ledger.close();
    }
  });

  it('a node taking over one company recovers that company only', async () => {
    const ledger = await openAt(await place());
    const ids: Record<string, number[]> = {};
    for (const company of ['a', 'b']) {
      const { fileId } = await ledger.recordFile({
        path: `/inbox/${company}.json`,
        name: `${company}.json`,
        size: 1,
        sha256: company,
        kind: 'support-document',
        company,
        now: 1,
      });
      await ledger.insertDocuments(
        fileId,
        [0, 1].map((i) => ({
          index: i,
          source: {},
          number: i === 0 ? `N${i}` : null,
          ownNumber: i === 0,
          raw: '{}',
        })),
        1,
      );
      await ledger.finishReading(fileId, 1);
      ids[company] = (await ledger.claimDue(company, 1, 10)).map((d) => d.id);
      await ledger.markSending(ids[company], 2);
    }
    expect((await ledger.sendingAtStart('a')).map((d) => d.id)).toEqual(ids.a);
    expect((await ledger.openFiles('b')).map((f) => f.company)).toEqual(['b']);
    const r = await ledger.recoverSending(3, 'a');
    expect([...r.resent, ...r.inDoubt].sort((x, y) => x - y)).toEqual(ids.a);
    expect((await ledger.sendingAtStart()).map((d) => d.id)).toEqual(ids.b);
    expect(await ledger.filesToSettle('a')).toEqual([]);
    await ledger.close();
  });
});

describe('start-up stays fast with a large ledger', () => {
  it('start-up and hot queries use indexes, never a scan of documents', async () => {
    const ledger = Ledger.open(tempDir());
    const plan = (sql: string, ...params: unknown[]) =>
      (ledger.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((r) => r.detail)
        .join(' | ');
    const queries: [string, unknown[]][] = [
      [`SELECT id FROM documents WHERE state = 'sending' ORDER BY id`, []],
      [
        `SELECT id FROM documents WHERE state IN ('in-doubt','failed') AND state = ? ORDER BY id LIMIT 100`,
        ['failed'],
      ],
      [
        `SELECT id FROM documents WHERE company = ? AND state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT 10`,
        ['main', 1],
      ],
      [`SELECT id FROM documents WHERE key = ? AND state = 'accepted' LIMIT 1`, ['k']],
      // a repeated-number answer: may any document of ours with this number have reached the service?
      [`SELECT 1 FROM documents WHERE key = ? AND maybe_delivered = 1 LIMIT 1`, ['k']],
      [`SELECT id FROM documents WHERE file_id = ? AND idx > ? ORDER BY idx LIMIT 500`, [1, -1]],
      [`SELECT * FROM files WHERE state IN ('reading','open') ORDER BY id`, []],
      [`SELECT state, n FROM file_counts WHERE file_id = ?`, [1]],
      // markSending's batch read with its key checks
      [
        `SELECT d.id, (SELECT a.id FROM documents a WHERE a.key = d.key AND a.state = 'accepted' AND a.id <> d.id LIMIT 1) AS dup,
        EXISTS (SELECT 1 FROM documents s WHERE s.key = d.key AND s.state = 'sending' AND s.id <> d.id) AS busy
        FROM documents d WHERE d.id IN (SELECT value FROM json_each(?))`,
        ['[1,2]'],
      ],
      // a report's page and crash recovery, with the source text from its own table
      [`${DOCUMENT_SELECT} WHERE d.file_id = ? AND d.idx > ? ORDER BY d.idx LIMIT 500`, [1, -1]],
      [
        `SELECT d.id, b.request FROM documents d JOIN document_bodies b ON b.id = d.id
        WHERE d.state = 'sending' ORDER BY d.id`,
        [],
      ],
      [
        `SELECT * FROM files WHERE report_state <> 'final' OR archived_path IS NULL ORDER BY id`,
        [],
      ],
    ];
    for (const [sql, params] of queries) {
      const p = plan(sql, ...params);
      expect(p, sql).toMatch(/USING (COVERING )?INDEX|USING PRIMARY KEY|USING INTEGER PRIMARY KEY/);
      expect(p, sql).not.toMatch(/SCAN (documents|[dbas])\b(?! USING)/);
    }
    await ledger.close();
  });

  // how long the open takes with 200,000 documents is a figure of bench/ledger-open.mjs, not of a test
  it('a ledger with work in flight opens and finds exactly its 20 documents sending and its one open file', async () => {
    const dir = tempDir();
    const ledger = Ledger.open(dir);
    const { fileId } = await ledger.recordFile({
      path: '/i/big.json',
      name: 'big.json',
      size: 1,
      sha256: 'big',
      kind: 'invoice',
      company: 'main',
      now: 1,
    });
    await ledger.insertDocuments(
      fileId,
      (function* () {
        for (let i = 0; i < 2_000; i++)
          yield {
            index: i,
            source: { lines: [i + 1] },
            number: `N${i}`,
            ownNumber: true,
            raw: '{}',
          };
      })(),
      1,
    );
    await ledger.finishReading(fileId, 1);
    const claimed = (await ledger.claimDue('main', 1, 20)).map((d) => d.id);
    await ledger.markSending(claimed, 2);
    await ledger.close();
    const again = Ledger.open(dir);
    try {
      const left = await again.sendingAtStart();
      expect(left.map((d) => d.id)).toEqual(claimed);
      expect(await again.openFiles()).toMatchObject([{ id: fileId, name: 'big.json' }]);
    } finally {
      await again.close();
    }
  });
});

/** The same hot queries in PostgreSQL's words; each must be able to use an index (a seq scan only where none could serve). */
const PG_QUERIES: [string, unknown[]][] = [
  [`SELECT id FROM documents WHERE state = 'sending' ORDER BY id`, []],
  [
    `SELECT id FROM documents WHERE state IN ('in-doubt','failed') AND state = ? ORDER BY id LIMIT 100`,
    ['failed'],
  ],
  [
    `SELECT id FROM documents WHERE company = ? AND state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT 10`,
    ['main', 1],
  ],
  [`SELECT id FROM documents WHERE key = ? AND state = 'accepted' LIMIT 1`, ['k']],
  [`SELECT 1 FROM documents WHERE key = ? AND maybe_delivered = 1 LIMIT 1`, ['k']],
  [`SELECT id FROM documents WHERE file_id = ? AND idx > ? ORDER BY idx LIMIT 500`, [1, -1]],
  [`SELECT * FROM files WHERE state IN ('reading','open') ORDER BY id`, []],
  [`SELECT state, n FROM file_counts WHERE file_id = ?`, [1]],
  [`SELECT d.id FROM documents d WHERE d.id IN (SELECT unnest(CAST(? AS BIGINT[])))`, [[1, 2]]],
  [`${DOCUMENT_SELECT} WHERE d.file_id = ? AND d.idx > ? ORDER BY d.idx LIMIT 500`, [1, -1]],
  [`SELECT * FROM files WHERE report_state <> 'final' OR archived_path IS NULL ORDER BY id`, []],
  // the ranges watch: a key range read downwards, byte order (collation "C")
  [
    `SELECT key FROM documents WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT 1`,
    ['main/invoice/SETP/1', 'main/invoice/SETP/9 '],
  ],
];

describePg('start-up and hot queries on PostgreSQL', () => {
  const { open } = postgresBackend();

  it('can each use an index, never only a scan of documents or files', async () => {
    const ledger = await open();
    try {
      await ledger.sql.transaction(async (tx) => {
        // the tables are empty: forbid the scan a planner would rightly prefer there, so what remains shows an index serves
        await tx.exec('SET LOCAL enable_seqscan = off');
        for (const [sql, params] of PG_QUERIES) {
          const plan = (await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params))
            .map((r) => r['QUERY PLAN'])
            .join(' | ');
          expect(plan, sql).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
          expect(plan, sql).not.toMatch(
            /Seq Scan on (documents|files|file_counts|document_bodies)/,
          );
        }
      });
    } finally {
      await ledger.close();
    }
  });
});
