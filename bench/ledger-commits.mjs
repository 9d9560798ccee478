// What the sender's ledger traffic costs per 1,000 documents, without HTTP: the overhead scenario's
// pattern (documents claimed 120 at a time and marked in one commit that carries the verdicts waiting,
// the other verdicts committed 40 at a time, as CommitBatcher's lazy timer does at that pace) on a fresh ledger, and the same with one part of the ledger's work left
// out, to size the proposals for the ledger (docs/benchmarks.md, "Own overhead, fourth pass"):
//   as is       the ledger as it is (synchronous FULL: an fsync per commit on the calling thread)
//   no fsync    synchronous NORMAL: what moving the commit's fsync off the main thread could save at most
//   no counts   without the per-row file_counts trigger: what counting per batch instead could save at most
// Variants alternate, each on its own ledger; CPU is the process's (process.cpuUsage), main thread busy its event
// loop's active time (a COMMIT's fsync on it counts, a sync awaited on the thread pool does not), wall is the loop's.
// On a build whose ledger syncs the WAL off the main thread (sql/wal-sync.ts), "as is" and "no fsync" both run NORMAL;
// "as is" still awaits each commit's fdatasync.
//   node bench/ledger-commits.mjs [DOCUMENTS] [RUNS]        (EDOC_BENCH_CODE selects the build)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { invoice, FIRST_NUMBER } from './lib/documents.mjs';
import { dist, loadNow, median, round } from './lib/util.mjs';

const [countText, runsText] = process.argv.slice(2);
const n = Number(countText ?? 5000);
const runs = Number(runsText ?? 3);
const { Ledger } = await dist('ledger/ledger.js');

const VARIANTS = {
  'as is': () => {},
  'no fsync': (db) => db.pragma('synchronous = NORMAL'),
  'no counts': (db) => db.exec('DROP TRIGGER documents_count_update'),
};

async function once(variant, pattern) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-ledger-'));
  const ledger = Ledger.open(dir);
  try {
    const { fileId } = await ledger.recordFile({
      path: path.join(dir, 'f.jsonl'),
      name: 'f.jsonl',
      size: 1,
      sha256: 'x'.repeat(64),
      kind: 'invoice',
      company: 'main',
      now: Date.now(),
    });
    const docs = [];
    for (let i = 0; i < n; i++) {
      const request = invoice(FIRST_NUMBER + i);
      const raw = JSON.stringify(request);
      docs.push({
        index: i,
        source: { line: i + 1 },
        number: `SETP/${FIRST_NUMBER + i}`,
        ownNumber: true,
        raw,
        requestFromRaw: true,
        rawIsRequestText: true,
      });
    }
    await ledger.insertDocuments(fileId, docs);
    await ledger.finishReading(fileId);
    VARIANTS[variant](ledger.db);
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    let commits = 0;
    const verdict = (id) => ({
      id,
      state: 'accepted',
      resultCode: '200',
      httpStatus: 200,
      warnings: [],
      maybeDelivered: false,
      errors: [],
      response: {
        Errors: [],
        IsValid: true,
        ResultCode: 200,
        Warning: [],
        ResultData: 'Procesado Correctamente.',
      },
      outcome: { kind: 'accepted', reason: 'HTTP 200, ResultCode 200' },
    });
    const { claim, verdictsPerCommit } = pattern;
    let sent = [];
    const queued = new Set();
    for (;;) {
      // a batch claimed and marked, carrying the verdicts waiting
      const due = await ledger.claimDue('main', Date.now(), claim, queued);
      const waiting = sent.splice(0, verdictsPerCommit);
      await ledger.commitSubmissions(
        due.map((d) => d.id),
        waiting.map(verdict),
      );
      commits += 1;
      for (const d of due) queued.add(d.id);
      sent.push(...due.map((d) => d.id));
      for (const id of sent) queued.delete(id);
      // the rest of the verdicts, verdictsPerCommit a commit (the lazy timer's commits), until a claim is due again
      while (sent.length > verdictsPerCommit) {
        await ledger.commitSubmissions([], sent.splice(0, verdictsPerCommit).map(verdict));
        commits += 1;
      }
      if (due.length === 0 && sent.length === 0) break;
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    // the main thread's busy time: a COMMIT's fsync made on it counts, an fdatasync awaited on the thread pool does not
    const busy = performance.eventLoopUtilization(elu0).active;
    // counted from the rows: the "no counts" variant has no file_counts
    const accepted = ledger.db
      .prepare(`SELECT count(*) FROM documents WHERE state = 'accepted'`)
      .pluck()
      .get();
    if (accepted !== n)
      throw new Error(`expected ${n} accepted, got ${accepted} after ${commits} commits`);
    return {
      wallPer1000: round((wall / n) * 1000, 0),
      mainBusyPer1000: round((busy / n) * 1000, 0),
      cpuPer1000: round(((cpu.user + cpu.system) / 1000 / n) * 1000, 0),
      commits,
    };
  } finally {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The sender's defaults at the overhead scenario's pace (~2,000 documents/s): 120 claimed and marked at
 * a time (16C, C = 8), and between two claims the lazy verdict timer (20 ms) commits about 40 verdicts.
 */
const PATTERN = { claim: 120, verdictsPerCommit: 40 };
const results = Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, []]));
for (let r = 0; r < runs; r++) {
  for (const v of Object.keys(VARIANTS)) {
    const load = loadNow();
    const one = await once(v, PATTERN);
    results[v].push(one);
    console.error(`run ${r + 1} ${v}: ${JSON.stringify(one)} (load ${load})`);
  }
}
console.log(`ledger commits, ${n} documents, median of ${runs}: ms per 1,000 documents`);
for (const [v, xs] of Object.entries(results)) {
  console.log(
    `  ${v.padEnd(10)} CPU ${median(xs.map((x) => x.cpuPer1000))}  main thread busy ${median(xs.map((x) => x.mainBusyPer1000))}` +
      `  wall ${median(xs.map((x) => x.wallPer1000))}  commits ${xs[0].commits}`,
  );
}
