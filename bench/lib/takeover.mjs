// The take-over after `ledger copy` (issue 13 must-show 4), for bench/ledger-copy.mjs --takeover: what
// the SQLite source had in each state, the emulator's submissions counted per document (its invoice
// number), cluster nodes run on the copy until nothing waits, and the checks that nothing final was
// sent again, nothing in doubt was sent, and what waited went out once.
import { createReadStream, existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { parse, stringify } from 'yaml';
import { startNode } from './cluster.mjs';
import { dist, sleep } from './util.mjs';

const FINAL = new Set(['accepted', 'rejected', 'invalid', 'failed', 'duplicate']);

/**
 * The source's documents by what a node must do with them, each with its key (the request's
 * SerieNumber, what the emulator is counted by): final and in-doubt ones never sent; pending ones due
 * (`next_attempt_at` set) sent once; pending ones held back (their file was still being read: a new
 * drop of it reads it again) left alone; `sending` ones resent once when they carry their own number,
 * in doubt when the service numbers them.
 */
export function sourceExpectations(sqliteFile) {
  const db = new Database(sqliteFile, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT d.id, d.state, d.own_number AS own, d.next_attempt_at IS NOT NULL AS due,
      json_extract(b.raw, '$.SerieNumber') AS key FROM documents d JOIN document_bodies b ON b.id = d.id ORDER BY d.id`,
      )
      .all();
    const groups = {
      final: [],
      inDoubt: [],
      pendingDue: [],
      pendingHeld: [],
      sendingNumbered: [],
      sendingUnnumbered: [],
    };
    const byId = new Map();
    for (const r of rows) {
      byId.set(r.id, r);
      if (FINAL.has(r.state)) groups.final.push(r);
      else if (r.state === 'in-doubt') groups.inDoubt.push(r);
      else if (r.state === 'pending') (r.due ? groups.pendingDue : groups.pendingHeld).push(r);
      else if (r.state === 'sending')
        (r.own ? groups.sendingNumbered : groups.sendingUnnumbered).push(r);
      else throw new Error(`document ${r.id}: state ${r.state} unknown to the take-over check`);
    }
    const keys = new Set(rows.map((r) => r.key));
    if (keys.size !== rows.length)
      throw new Error(
        `the source's documents share invoice numbers (${keys.size} keys, ${rows.length} documents)`,
      );
    // files still open: every document of theirs ends final, so each must end done, with its final report in its outbox
    const openFiles = db
      .prepare(
        `SELECT id, name, report_name AS reportName, outbox_dir AS outboxDir FROM files WHERE state = 'open' ORDER BY id`,
      )
      .all();
    return { groups, byId, keys, total: rows.length, openFiles };
  } finally {
    db.close();
  }
}

/**
 * Counts the emulator's invoice submissions (E1) per SerieNumber, at its handler (after the rate limit
 * and faults; the bench runs with neither, and checks that the counted total equals the emulator's own
 * E1 statistic). The handler table is the emulator module's, in this process.
 */
export async function countSubmissions() {
  const { HANDLERS } = await dist('emulator/router.js');
  const original = HANDLERS.E1;
  const counts = new Map();
  let unreadable = 0;
  HANDLERS.E1 = (state, request) => {
    let key;
    try {
      key = JSON.parse(request.text).SerieNumber;
    } catch {
      /* counted below */
    }
    if (key === undefined) unreadable += 1;
    else counts.set(String(key), (counts.get(String(key)) ?? 0) + 1);
    return original(state, request);
  };
  return {
    counts,
    get unreadable() {
      return unreadable;
    },
    get total() {
      let n = unreadable;
      for (const c of counts.values()) n += c;
      return n;
    },
    restore() {
      HANDLERS.E1 = original;
    },
  };
}

/** Points the project's configuration at another emulator and database, and clears what the last run wrote. */
export async function resetProject(project, { baseUrl, url }) {
  const config = parse(await readFile(project.configFile, 'utf8'));
  config.service.baseUrl = baseUrl;
  config.ledger.url = url;
  await writeFile(project.configFile, stringify(config));
  for (const sub of ['outbox', 'state', 'logs'])
    await rm(path.join(project.dir, sub), { recursive: true, force: true });
}

/** A client of `db` (node-postgres lets a connection string's missing password override the one given beside it). */
function clientOf(db, password) {
  const u = new URL(db.url);
  return new pg.Client({
    host: u.hostname,
    port: Number(u.port),
    user: decodeURIComponent(u.username),
    database: u.pathname.slice(1),
    password,
  });
}

async function waiting(client) {
  const { rows } =
    await client.query(`SELECT count(*) FILTER (WHERE state = 'sending')::int AS sending,
    count(*) FILTER (WHERE state = 'pending' AND next_attempt_at IS NOT NULL)::int AS due FROM documents`);
  return rows[0];
}

/** Error and warning lines of a node's log, by message. */
async function logProblems(file) {
  const byMessage = {};
  try {
    for await (const line of createInterface({ input: createReadStream(file) })) {
      if (
        !line.includes('"level":"error"') &&
        !line.includes('"level":"fatal"') &&
        !line.includes('"level":"warn"')
      )
        continue;
      const entry = JSON.parse(line);
      const key = `${entry.level}: ${entry.msg}${entry.code ? ` (${entry.code})` : ''}`;
      byMessage[key] = (byMessage[key] ?? 0) + 1;
    }
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  return byMessage;
}

/**
 * Starts `nodes` cluster nodes at once on the copied ledger and waits until nothing is `sending` or
 * due; then stops them (SIGTERM, exit 0 expected). Times from the first spawn to settled; peak RSS per
 * node (VmHWM, sampled while waiting). `restart`: once what is due has fallen to half its peak, the
 * first node is stopped (SIGTERM) while it sends, and started again under its name.
 */
export async function runNodes({
  project,
  nodes,
  db,
  password,
  settleTimeoutMs,
  restart = false,
  onProgress,
}) {
  const client = clientOf(db, password);
  await client.connect();
  const names = Array.from({ length: nodes }, (_, i) => `node-${i + 1}`);
  const started = performance.now();
  const running = [];
  const exits = [];
  const peakKb = new Map();
  const sample = (d, name) => {
    d.memory();
    peakKb.set(name, Math.max(peakKb.get(name) ?? 0, d.peakHwmKb));
  };
  let restarted;
  try {
    running.push(...(await Promise.all(names.map((name) => startNode(project, name, password)))));
    const ready = performance.now();
    let last = 0;
    let peakDue = 0;
    for (;;) {
      for (const [i, d] of running.entries()) {
        sample(d, names[i]);
        if (d.exit)
          throw new Error(
            `${names[i]} (pid ${d.pid}) exited ${JSON.stringify(d.exit)}: ${d.stderr.slice(-1500)}`,
          );
      }
      const left = await waiting(client);
      if (left.sending === 0 && left.due === 0) break;
      peakDue = Math.max(peakDue, left.due);
      if (restart && restarted === undefined && left.due < peakDue / 2) {
        const at = performance.now();
        const stopped = await running[0].stop();
        exits.push({ name: names[0], ...stopped });
        running[0] = await startNode(project, names[0], password);
        restarted = { atMs: at - started, stopMs: performance.now() - at, left };
      }
      if (performance.now() - started > settleTimeoutMs)
        throw new Error(`not settled after ${settleTimeoutMs} ms: ${JSON.stringify(left)}`);
      if (performance.now() - last > 10_000) {
        last = performance.now();
        onProgress?.(left, performance.now() - started);
      }
      await sleep(250);
    }
    const settledMs = performance.now() - started;
    for (const [i, d] of running.entries()) {
      sample(d, names[i]);
      exits.push({ name: names[i], ...(await d.stop()) });
    }
    const problems = {};
    for (const name of names) problems[name] = await logProblems(project.node(name).logFile);
    return {
      settledMs,
      readyMs: ready - started,
      peakMb: names.map((name) => (peakKb.get(name) ?? 0) / 1024),
      exits,
      problems,
      restarted,
    };
  } finally {
    for (const d of running) if (!d.exit) await d.stop('SIGKILL');
    await client.end();
  }
}

/** The copied ledger's document states after the take-over, by id, and its files' states. */
export async function statesAfter(db, password) {
  const client = clientOf(db, password);
  await client.connect();
  try {
    const { rows } = await client.query('SELECT id::int AS id, state FROM documents');
    const files = await client.query(
      'SELECT id::int AS id, state, report_state AS "reportState", report_dir AS "reportDir" FROM files',
    );
    const after = new Map(rows.map((r) => [r.id, r.state]));
    after.files = new Map(files.rows.map((f) => [f.id, f]));
    return after;
  } finally {
    await client.end();
  }
}

/**
 * The checks, each with how many documents it covered and the first few that failed it. `emulatorE1`:
 * the emulator's own count of invoice requests (every status).
 */
export function checkTakeover(source, submissions, after, emulatorE1) {
  const sent = (r) => submissions.counts.get(String(r.key)) ?? 0;
  const checks = [];
  const check = (name, rows, ok) => {
    const bad = rows.filter((r) => !ok(r));
    checks.push({
      name,
      documents: rows.length,
      failed: bad.length,
      examples: bad
        .slice(0, 5)
        .map((r) => `id ${r.id} (${r.state} → ${after.get(r.id)}, ${sent(r)} requests)`),
    });
  };
  const g = source.groups;
  check(
    'final before: 0 requests, state unchanged',
    g.final,
    (r) => sent(r) === 0 && after.get(r.id) === r.state,
  );
  check(
    'in-doubt before: 0 requests, still in-doubt',
    g.inDoubt,
    (r) => sent(r) === 0 && after.get(r.id) === 'in-doubt',
  );
  check(
    'pending (due) before: sent once, now final',
    g.pendingDue,
    (r) => sent(r) === 1 && FINAL.has(after.get(r.id)),
  );
  check(
    'pending held back (file still being read): 0 requests, still pending',
    g.pendingHeld,
    (r) => sent(r) === 0 && after.get(r.id) === 'pending',
  );
  check(
    'sending, own number: resent at most once, now final',
    g.sendingNumbered,
    (r) => sent(r) <= 1 && FINAL.has(after.get(r.id)),
  );
  check(
    'sending, service-numbered: 0 requests, now in-doubt',
    g.sendingUnnumbered,
    (r) => sent(r) === 0 && after.get(r.id) === 'in-doubt',
  );
  const reported = (f) => {
    const now = after.files.get(f.id);
    return (
      now?.state === 'done' &&
      now.reportState === 'final' &&
      existsSync(path.join(now.reportDir ?? f.outboxDir, `${f.reportName}.result.json`))
    );
  };
  const openBad = source.openFiles.filter((f) => !reported(f));
  checks.push({
    name: 'files open before: done, final report in the outbox',
    documents: source.openFiles.length,
    failed: openBad.length,
    examples: openBad.slice(0, 5).map((f) => `${f.name}: ${JSON.stringify(after.files.get(f.id))}`),
  });
  const leftSending = [...after.values()].filter((s) => s === 'sending').length;
  checks.push({
    name: 'nothing left sending',
    documents: after.size,
    failed: leftSending,
    examples: [],
  });
  const strangers = [...submissions.counts.keys()].filter(
    (k) => !source.keys.has(k) && !source.keys.has(Number(k)),
  );
  checks.push({
    name: 'no request for a number the source does not hold (and none unreadable)',
    documents: submissions.counts.size,
    failed: strangers.length + submissions.unreadable,
    examples: strangers.slice(0, 5),
  });
  checks.push({
    name: `counted requests = the emulator's E1 count (${emulatorE1})`,
    documents: submissions.total,
    failed: submissions.total === emulatorE1 ? 0 : Math.abs(submissions.total - emulatorE1),
    examples: [],
  });
  const resent = g.sendingNumbered.filter((r) => sent(r) === 1).length;
  return { checks, ok: checks.every((c) => c.failed === 0), resent };
}
