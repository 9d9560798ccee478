// 5. Start-up with 1,000,000 documents in the ledger: `run` from spawn to the `watching the inbox`
// log line, beside the same start on an empty ledger. The big ledger is built once by direct SQL
// inserts into a ledger created by Ledger.open: 2,000 files of 500 documents; 1,998 files done,
// reported and archived (accepted, with some rejected, invalid, failed and in-doubt documents), and
// 2 open files holding 750 pending documents (500 due now, 250 due in an hour). The rate is low
// (5/s) and each run stops right after the line, and the few documents it sent are put back to
// pending, so every run starts from the same ledger.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { invoice } from '../lib/documents.mjs';
import { startBenchEmulator } from '../lib/emulator.mjs';
import { DaemonProcess, Project } from '../lib/project.mjs';
import { dist, lineTime, log, median, round } from '../lib/util.mjs';

const FILES = 2000;
const PER_FILE = 500;
const OPEN = [FILES - 1, FILES]; // the last two files are open

function finalState(i) {
  if (i % 1000 === 7) return 'rejected';
  if (i % 1000 === 11) return 'invalid';
  if (i % 5000 === 13) return 'failed';
  if (i % 10000 === 17) return 'in-doubt';
  return 'accepted';
}

/** `perFile`: documents per file (the metrics benchmark also builds a ledger of many small files). */
export async function buildLedger(stateDir, total, perFile = PER_FILE) {
  const { Ledger } = await dist('ledger/ledger.js');
  await Ledger.open(stateDir).close();
  const db = new Database(path.join(stateDir, 'ledger.sqlite'));
  db.pragma('synchronous = OFF');
  const now = Date.now();
  const files = total / perFile;
  const small = JSON.stringify({
    SeriePrefix: 'SETP',
    Currency: 'COP',
    Lines: [{ Number: '1', Quantity: '1.00' }],
  });
  const response = JSON.stringify({
    Code: 200,
    Success: true,
    ResultData: { Cufe: 'f'.repeat(96), Number: 0 },
    Messages: [],
  });
  const insFile =
    db.prepare(`INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, format, encoding, state,
    total, started_at, finished_at, archived_path, report_state) VALUES (?, ?, ?, ?, 1000, ?, 'invoice', 'main', 'jsonl', 'utf-8', ?, ?, ?, ?, ?, ?)`);
  const insDoc =
    db.prepare(`INSERT INTO documents(file_id, idx, company, kind, source, key, own_number, state, attempts,
    next_attempt_at, last_outcome, result_code, http_status, response, updated_at)
    VALUES (?, ?, 'main', 'invoice', ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insBody = db.prepare('INSERT INTO document_bodies(id, request, raw) VALUES (?, ?, ?)');
  const insCount = db.prepare('INSERT INTO file_counts(file_id, state, n) VALUES (?, ?, ?)');
  const pendingIds = [];
  db.transaction(() => {
    let n = 0;
    for (let f = 1; f <= files; f++) {
      const open = f > files - OPEN.length;
      insFile.run(
        f,
        `/erp/inbox/invoice/export-${f}.jsonl`,
        `export-${f}.jsonl`,
        `export-${f}`,
        `sha-${f}`,
        open ? 'open' : 'done',
        perFile,
        now - (files - f) * 60_000,
        open ? null : now,
        open ? null : `/erp/outbox/invoice/archive/export-${f}.jsonl`,
        open ? 'partial' : 'final',
      );
      const counts = {};
      for (let i = 0; i < perFile; i++, n++) {
        const number = 990_000_001 + n;
        const pending = open && (f === files - 1 || i >= perFile / 2);
        const state = pending ? 'pending' : finalState(n);
        counts[state] = (counts[state] ?? 0) + 1;
        const request = pending ? JSON.stringify(invoice(number)) : small;
        const due = pending ? (i % 3 === 2 ? now + 3_600_000 : now) : null;
        const info = insDoc.run(
          f,
          i,
          JSON.stringify({ lines: [i + 1] }),
          `main/invoice/SETP/${number}`,
          state,
          pending ? 0 : 1,
          due,
          pending ? null : '{"kind":"accepted"}',
          pending ? null : '200',
          pending ? null : 200,
          pending ? null : response,
          now,
        );
        insBody.run(
          info.lastInsertRowid,
          request,
          pending ? request : `{"SerieNumber":"${number}"}`,
        );
        if (pending) pendingIds.push(Number(info.lastInsertRowid));
      }
      for (const [state, c] of Object.entries(counts)) insCount.run(f, state, c);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return pendingIds;
}

/** Puts back what a run changed, so every run starts from the same ledger. */
function resetLedger(stateDir) {
  const db = new Database(path.join(stateDir, 'ledger.sqlite'));
  try {
    const ids = OPEN.map((k) => FILES - OPEN.length + OPEN.indexOf(k) + 1);
    db.transaction(() => {
      db.prepare(
        `UPDATE documents SET state = 'pending', attempts = 0, last_outcome = NULL, result_code = NULL, http_status = NULL,
        response = NULL, errors = NULL WHERE file_id IN (${ids.join(',')}) AND state <> 'pending'
        AND id IN (SELECT id FROM document_bodies WHERE request LIKE '{"Currency"%')`,
      ).run();
      db.prepare(
        `UPDATE files SET state = 'open', report_state = 'partial', archived_path = NULL, finished_at = NULL
        WHERE id IN (${ids.join(',')})`,
      ).run();
    })();
  } finally {
    db.close();
  }
}

async function startOnce(stateDir) {
  const emulator = await startBenchEmulator({});
  const project = await Project.create({
    baseUrl: emulator.url,
    rate: { requestsPerSecond: 5, concurrency: 1 },
    stateDir,
  });
  let daemon;
  try {
    daemon = DaemonProcess.spawn(project);
    const ready = await daemon.waitForLog((l) => l.msg === 'watching the inbox', 120_000, 5);
    const first = daemon.lines()[0];
    return {
      ms: lineTime(ready) - daemon.spawnedAt,
      firstLineMs: lineTime(first) - daemon.spawnedAt,
    };
  } finally {
    await daemon?.stop();
    await emulator.close();
    await project.remove();
  }
}

export async function startup({ runs, quick }) {
  const total = quick ? 100_000 : FILES * PER_FILE;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-ledger-'));
  const big = path.join(dir, 'big');
  try {
    const t = Date.now();
    const pending = await buildLedger(big, total);
    const buildSeconds = (Date.now() - t) / 1000;
    log(
      `startup: ledger of ${total} documents (${pending.length} pending) built in ${buildSeconds.toFixed(1)} s`,
    );
    const empty = [];
    const full = [];
    for (let r = 0; r < runs; r++) {
      const emptyDir = path.join(dir, `empty-${r}`);
      empty.push(await startOnce(emptyDir));
      await rm(emptyDir, { recursive: true, force: true });
      full.push(await startOnce(big));
      resetLedger(big);
      log(
        `startup run ${r + 1}: empty ledger ${empty.at(-1).ms} ms, ${total} documents ${full.at(-1).ms} ms`,
      );
    }
    return {
      documents: total,
      pending: pending.length,
      buildSeconds: round(buildSeconds, 1),
      emptyMs: median(empty.map((x) => x.ms)),
      fullMs: median(full.map((x) => x.ms)),
      emptyFirstLineMs: median(empty.map((x) => x.firstLineMs)),
      fullFirstLineMs: median(full.map((x) => x.firstLineMs)),
      runs: { empty, full },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
