// Speed of the CSV intake against its floor, one file, four ways, each in a fresh child process:
//   floor    csv-parse + iconv-lite alone: the file decoded and split into records, nothing else;
//   read     our intake without the ledger (bench-only): hashFile, then openSource (reader + mapping,
//            the read pass hashed as the intake does) and validateDocument + documentKey per document;
//   full     our intake (intakeFile) into a real SQLite ledger in a temporary state folder: the file
//            recorded, its documents stored held back in batches, verified and released (finishReading);
//   full-pg  the same into a PostgreSQL ledger (the URL given, its password in PGPASSWORD);
//   daemon   full as the daemon runs it: the file read, mapped and validated on the intake worker
//            (IntakeReader) while the main thread stores the batches; CPU is the whole process's.
// Each child prints { rows, documents, invalid, ms, cpuMs }; full and full-pg also what the ledger asked of
// the database (statements, calls: awaited calls through the SQL port, round trips on PostgreSQL,
// transactions), full-pg the server's CPU (serverCpuMs, its processes from EDOC_BENCH_PG_PID).
//
//   npm run build && node bench/intake-speed.mjs [rows] [runs]      (default 100000 rows, 3 runs)
//   EDOC_BENCH_BEFORE=/tmp/other-build node bench/intake-speed.mjs   (also another build, same file, same run)
//
// The PostgreSQL server is a throwaway one started by the bench (lib/postgres.mjs); without PostgreSQL on
// the machine, full-pg is left out with one line saying why. `npm run bench -- --only intake` runs the
// same through bench/scenarios/intake.mjs.
import { createReadStream, existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CountingExecutor, zeroCounts } from './lib/counting-executor.mjs';
import { serverCpu } from './lib/postgres.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);

const COMPANY = { alias: 'main', nit: '900123456' };

async function floor(file, code) {
  const { createRequire } = await import('node:module');
  const require = createRequire(join(code, 'package.json'));
  const { parse } = require('csv-parse');
  const iconv = require('iconv-lite');
  const clock = startClock();
  const parser = parse({
    delimiter: ';',
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    relax_quotes: true,
  });
  createReadStream(file, { highWaterMark: 64 * 1024 })
    .pipe(iconv.decodeStream('windows-1252'))
    .pipe(parser);
  let rows = 0;
  for await (const record of parser) if (record.length > 0) rows += 1;
  return { rows: rows - 1, documents: null, invalid: null, ...clock() };
}

async function read(file, code) {
  const dist = (rel) => import(join(code, 'dist', rel));
  // the per-kind entry points moved from validate/ to kinds/ (issue 16); a "before" build has them in validate/
  const either = (rel) => dist(`kinds/${rel}`).catch(() => dist(`validate/${rel}`));
  const { createHash } = await import('node:crypto');
  const { loadMapping } = await dist('map/load-mapping.js');
  const { openSource } = await dist('read/open-source.js');
  const { hashFile } = await dist('read/hash.js');
  const { validateDocument } = await either('validate-document.js');
  const { documentKey } = await either('document-key.js');
  const { colombiaToday } = await dist('policy/dates.js');
  const mapping = await loadMapping(join(ROOT, 'config/mappings/sales.csv.yaml'));
  const clock = startClock();
  const hash = await hashFile(file);
  const readHash = createHash('sha256');
  const opened = await openSource(file, 'invoice', {
    company: COMPANY,
    mapping,
    expect: { size: hash.size, mtimeMs: hash.mtimeMs },
    hash: readHash,
  });
  const ctx = { today: colombiaToday(), issuerNit: COMPANY.nit };
  let documents = 0;
  let invalid = 0;
  let rows = 0;
  for await (const d of opened.documents) {
    documents += 1;
    rows += d.source.rows.length;
    const problems =
      d.request !== undefined && d.problems.length === 0
        ? validateDocument('invoice', d.request, ctx)
        : d.problems;
    if (d.request !== undefined) documentKey('invoice', d.request);
    if (d.request === undefined || problems.length > 0) invalid += 1;
  }
  if (readHash.digest('hex') !== hash.sha256)
    throw new Error('the read pass did not hash to the file hash');
  return { rows, documents, invalid, ...clock() };
}

/**
 * The ledger `full` writes into, through a counting executor (lib/counting-executor.mjs): SQLite in
 * `stateDir`, or the PostgreSQL database at `url` (its password in PGPASSWORD), both migrated. `raw` is the
 * executor itself, for the checks after the clock stopped (they are not counted).
 */
async function openBenchLedger(code, backend, stateDir, url) {
  const dist = (rel) => import(join(code, 'dist', rel));
  const { Ledger } = await dist('ledger/ledger.js');
  let raw;
  if (backend === 'postgres') {
    const { openPostgresExecutor } = await dist('ledger/sql/postgres.js');
    const { migratePostgres } = await dist('ledger/sql/pg-migrations.js');
    raw = openPostgresExecutor(url, { env: process.env });
    await migratePostgres(raw);
  } else {
    const { openSqliteExecutor } = await dist('ledger/sql/sqlite.js');
    const { migrate } = await dist('ledger/migrations.js');
    await mkdir(stateDir, { recursive: true });
    raw = openSqliteExecutor(join(stateDir, 'ledger.sqlite'));
    migrate(raw.db);
  }
  const counts = zeroCounts();
  return { ledger: new Ledger(new CountingExecutor(raw, counts), false), raw, counts };
}

async function full(file, code, dir, backend = 'sqlite', url = undefined, worker = false) {
  const dist = (rel) => import(join(code, 'dist', rel));
  const { loadConfig } = await dist('config/load.js');
  const { createLogger } = await dist('log/logger.js');
  // the intake stage's folder (dist/intake/), or dist/daemon/ in builds from before it moved (d143910)
  const stage = existsSync(join(code, 'dist', 'intake', 'intake.js')) ? 'intake' : 'daemon';
  const { intakeFile } = await dist(`${stage}/intake.js`);
  const { loadMapping } = await dist('map/load-mapping.js');
  const configFile = join(dir, 'edoc-bridge.yaml');
  await writeFile(
    configFile,
    [
      'service: { baseUrl: "http://127.0.0.1:9" }',
      `companies: [{ alias: ${COMPANY.alias}, id: 1, nit: "${COMPANY.nit}", apiKey: "bench-key-0123456789", userId: 1 }]`,
      `paths: { inbox: "${join(dir, 'inbox')}", outbox: "${join(dir, 'outbox')}", state: "${join(dir, 'state')}", logs: "${join(dir, 'logs')}" }`,
      `kinds: { invoice: { mapping: "${join(ROOT, 'config/mappings/sales.csv.yaml')}" } }`,
      'received: { enabled: false }',
      '',
    ].join('\n'),
  );
  const config = await loadConfig(configFile, {}, { cwd: dir });
  const inbox = join(dir, 'inbox', 'invoice');
  await mkdir(inbox, { recursive: true });
  // the file's own extension: a spreadsheet is read as one (scenarios/sheets.mjs)
  const dropped = join(inbox, `sales${extname(file) || '.csv'}`);
  await link(file, dropped);
  const st = await stat(dropped);
  const logger = createLogger({ file: join(dir, 'logs', 'edoc-bridge.log') });
  const { ledger, raw, counts } = await openBenchLedger(code, backend, config.paths.state, url);
  const mapping = await loadMapping(config.kinds.invoice.mapping);
  const company = config.companies[0];
  // the server's CPU (its processes still running: ours holds its connection until close)
  const serverPid = backend === 'postgres' ? Number(process.env.EDOC_BENCH_PG_PID) : undefined;
  const server0 = serverPid ? serverCpu(serverPid) : undefined;
  // the daemon's intake worker (built code only), started before the clock as the daemon starts it
  let reader;
  if (worker) {
    const { IntakeReader } = await dist(`${stage}/intake-reader.js`);
    reader = new IntakeReader(logger);
    reader.start();
  }
  const clock = startClock();
  const result = await intakeFile(
    {
      ledger,
      config,
      logger,
      ...(reader ? { reader } : {}),
      mapping: () => Promise.resolve(mapping),
      onDocuments() {},
      onFileChanged() {},
    },
    { path: dropped, kind: 'invoice', company, size: st.size, mtimeMs: st.mtimeMs },
  );
  const { ms, cpuMs } = clock();
  await reader?.close();
  const serverCpuMs = serverPid ? Math.round((serverCpu(serverPid) - server0) * 1000) : undefined;
  const asked = { ...counts };
  if (result.outcome !== 'read') throw new Error(`intake ended ${result.outcome}`);
  const file_ = await ledger.getFile(result.fileId);
  const counted = await raw.all('SELECT state, n FROM file_counts WHERE file_id = ?', [
    result.fileId,
  ]);
  const rowsOf =
    backend === 'postgres'
      ? "json_array_length(CAST(source AS json) -> 'rows')"
      : "json_array_length(source, '$.rows')";
  const { rows } = await raw.get(
    `SELECT CAST(sum(${rowsOf}) AS BIGINT) AS rows FROM documents WHERE file_id = ?`,
    [result.fileId],
  );
  const { held } = await raw.get(
    "SELECT count(*) AS held FROM documents WHERE file_id = ? AND state = 'pending' AND next_attempt_at IS NULL",
    [result.fileId],
  );
  if (held !== 0) throw new Error(`${held} documents still held back after the intake`);
  await ledger.close();
  await logger.close();
  const documents = counted.reduce((n, c) => n + c.n, 0);
  return {
    rows,
    documents,
    invalid: counted.find((c) => c.state === 'invalid')?.n ?? 0,
    ms,
    cpuMs,
    fileState: file_.state,
    statements: asked.statements,
    calls: asked.roundTrips,
    transactions: asked.transactions,
    ...(serverCpuMs === undefined ? {} : { serverCpuMs }),
  };
}

/** Wall and CPU milliseconds since the call. */
function startClock() {
  const started = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const d = process.cpuUsage(cpu);
    return { ms: performance.now() - started, cpuMs: (d.user + d.system) / 1000 };
  };
}

async function child(mode, file, code, url) {
  const dir = await mkdtemp(join(tmpdir(), 'edoc-intake-speed-'));
  try {
    const clock = startClock();
    let out;
    if (mode === 'floor') out = await floor(file, code);
    else if (mode === 'read') out = await read(file, code);
    else if (mode === 'full') out = await full(file, code, dir);
    else if (mode === 'full-pg') out = await full(file, code, dir, 'postgres', url);
    else if (mode === 'daemon') out = await full(file, code, dir, 'sqlite', undefined, true);
    else throw new Error(`unknown mode ${mode}`);
    // peak resident memory of this process (KiB on Linux): the whole read, the ledger and the runtime
    process.stdout.write(
      JSON.stringify({
        mode,
        ...clock(),
        ...out,
        maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const { intake } = await import('./scenarios/intake.mjs');
  const rows = Number(process.argv[2] ?? 100_000);
  const runs = Number(process.argv[3] ?? 3);
  const r = await intake({ runs, rows });
  console.log(JSON.stringify(r, null, 2));
}

if (process.argv[1] === SELF) {
  if (process.argv[2] === '--child')
    await child(process.argv[3], process.argv[4], process.argv[5], process.argv[6]);
  else await main();
}
