// Loaded into the daemon with `--import` (EDOC_BENCH_COUNT_COMMITS=1, bench/lib/companies-side.mjs): counts
// the ledger's SQLite COMMITs and the time spent in them (their fsync), and the statements run outside any
// transaction that changed rows (autocommit writes), over the daemon's whole life (its warm-up file included), and writes
// them to commit-counts.json in its working folder at exit.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const require = createRequire(path());
  const Database = require('better-sqlite3');
  const counts = { commits: 0, commitMs: 0, autocommitWrites: 0 };
  const exec = Database.prototype.exec;
  Database.prototype.exec = function (sql) {
    if (sql !== 'COMMIT') return exec.call(this, sql);
    const started = performance.now();
    try {
      return exec.call(this, sql);
    } finally {
      counts.commits++;
      counts.commitMs += performance.now() - started;
    }
  };
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (...args) {
    const statement = prepare.apply(this, args);
    if (statement.reader) return statement;
    const run = statement.run;
    const inTransaction = () => this.inTransaction;
    statement.run = function (...params) {
      const outside = !inTransaction();
      const result = run.apply(this, params);
      // one that changed no row wrote nothing (no commit, no fsync)
      if (outside && result.changes > 0) counts.autocommitWrites++;
      return result;
    };
    return statement;
  };
  process.on('exit', () => {
    counts.commitMs = Math.round(counts.commitMs);
    writeFileSync('commit-counts.json', JSON.stringify(counts));
  });
}

function path() {
  return new URL('../../package.json', import.meta.url).pathname;
}
