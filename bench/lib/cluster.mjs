// The cluster bench's surroundings: a throwaway PostgreSQL server (scripts/pg-test-server.mjs, with
// pg_stat_statements loaded so statements can be counted), a database per run, what the database did
// (statements, transactions, rows), an emulator seeded with many companies, and cluster nodes (child
// processes of the real daemon sharing one configuration, `${EDOC_NODE}` naming each).
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { nowMs } from './emulator.mjs';
import { checkDigit, companyInvoiceLines } from './documents.mjs';
import { benchDatabase, cpuSeconds, startBenchPostgres as startPostgres } from './postgres.mjs';
import { DaemonProcess } from './project.mjs';
import { dist } from './util.mjs';

// the check digit's home is documents.mjs; the cluster benches import it from here
export { checkDigit };

/** The bench's server (lib/postgres.mjs) with pg_stat_statements loaded, or { skipped } with the one-line reason. */
export async function startBenchPostgres(dir) {
  const pgs = await startPostgres(dir, [
    'shared_preload_libraries=pg_stat_statements',
    'pg_stat_statements.track=all',
    'pg_stat_statements.max=5000',
  ]);
  if (pgs.skipped) return pgs;
  // the counters are read from the `postgres` database, so reading them adds nothing to a bench database's figures
  await pgs.admin('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return pgs;
}

export { benchDatabase };

/** What the database did so far: statements (pg_stat_statements calls, sent and nested), transactions and rows (pg_stat_database). */
export async function dbCounters(pgs, db) {
  // toplevel: what the nodes sent (one round trip each: node-postgres does not pipeline); nested: what
  // triggers and foreign-key checks ran inside those
  const [s] = await pgs.admin(
    `SELECT coalesce(sum(calls) FILTER (WHERE toplevel), 0)::bigint AS statements,
    coalesce(sum(calls) FILTER (WHERE NOT toplevel), 0)::bigint AS nested FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
    [db.name],
  );
  const [d] = await pgs.admin(
    `SELECT xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
    FROM pg_stat_database WHERE datname = $1`,
    [db.name],
  );
  return Object.fromEntries(Object.entries({ ...s, ...d }).map(([k, v]) => [k, Number(v)]));
}

/** The statements run most often, with their calls (what a document costs, by statement). */
export async function topStatements(pgs, db, n = 12) {
  const rows = await pgs.admin(
    `SELECT calls, toplevel, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) ORDER BY calls DESC LIMIT ${n}`,
    [db.name],
  );
  return rows.map((r) => ({ calls: Number(r.calls), toplevel: r.toplevel, query: r.query }));
}

export async function resetStatements(pgs) {
  await pgs.admin('SELECT pg_stat_statements_reset()');
}

/** `n` companies with their own ids, NITs and keys, each with an invoice range SETP. */
export function benchCompanies(n) {
  return Array.from({ length: n }, (_, i) => {
    const nit = String(902_000_000 + i * 1_013);
    return {
      alias: `e${String(i + 1).padStart(2, '0')}`,
      id: 5001 + i,
      nit,
      apiKey: `bench-cluster-key-${5001 + i}`,
      userId: 100 + i,
    };
  });
}

/** The emulator with these companies and `faults`; `trace` has the first arrival, the last answer and 200s. */
export async function startClusterEmulator(companies, faults) {
  const { startEmulator } = await dist('emulator/server.js');
  const seed = {
    today: null,
    faults: { ...faults },
    companies: companies.map((c) => ({
      id: c.id,
      nit: c.nit,
      checkDigit: checkDigit(c.nit),
      name: `Empresa ${c.alias}`,
      apiKey: c.apiKey,
      userIds: [c.userId],
      ranges: [
        {
          DocumentType: 'Invoice',
          Prefix: 'SETP',
          ResolutionNumber: `1876${c.id}`,
          ResolutionDate: '2019-01-19',
          TechnicalKey: null,
          FromNumber: 990_000_000,
          ToNumber: 995_000_000,
          ValidFrom: '2019-01-19T00:00:00',
          ValidTo: '2030-01-19T23:59:59',
          Active: true,
        },
      ],
    })),
  };
  const running = await startEmulator({ host: '127.0.0.1', port: 0, seed });
  const trace = { firstArrival: undefined, lastAnswer: undefined, statuses: {} };
  const stats = running.stats;
  const arrival = stats.arrival.bind(stats);
  stats.arrival = (company, now) => {
    trace.firstArrival ??= nowMs();
    arrival(company, now);
  };
  const record = stats.record.bind(stats);
  stats.record = (endpoint, status) => {
    if (endpoint === 'E1') {
      trace.lastAnswer = nowMs();
      trace.statuses[status] = (trace.statuses[status] ?? 0) + 1;
    }
    record(endpoint, status);
  };
  return {
    url: running.url,
    trace,
    snapshot: () => stats.snapshot(),
    close: () => running.close(),
  };
}

/** One project folder, one configuration for every node: ledger.url without its password, `${EDOC_NODE}` for the rest. */
export async function clusterProject({ baseUrl, companies, rate, db, leaseMs }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-cluster-'));
  const configFile = path.join(dir, 'edoc-bridge.yaml');
  await writeFile(
    configFile,
    stringify({
      service: { baseUrl, timeoutMs: 30_000 },
      companies: companies.map((c) => ({
        alias: c.alias,
        id: c.id,
        nit: c.nit,
        apiKey: c.apiKey,
        userId: c.userId,
        rate,
      })),
      paths: {
        inbox: path.join(dir, 'inbox'),
        outbox: path.join(dir, 'outbox'),
        state: path.join(dir, 'state', '${EDOC_NODE}'),
        logs: path.join(dir, 'logs', '${EDOC_NODE}'),
      },
      ledger: { url: db.url },
      cluster: { node: '${EDOC_NODE}', leaseMs },
      retry: { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000 },
      watch: { stableMs: 1000, usePolling: false },
      received: { enabled: false },
      log: { level: 'info' },
    }),
  );
  let staged = [];
  return {
    dir,
    configFile,
    node: (name) => ({ dir, configFile, logFile: path.join(dir, 'logs', name, 'edoc-bridge.log') }),
    /** Writes `count` invoices per company beside the inbox (release() renames them in, all at once). */
    async stage(companies, count) {
      await mkdir(path.join(dir, 'staging'), { recursive: true });
      staged = [];
      for (const company of companies) {
        const lines = companyInvoiceLines(company, count, 990_000_001);
        const from = path.join(dir, 'staging', `carga-${company.alias}.jsonl`);
        const inbox = path.join(dir, 'inbox', company.alias, 'invoice');
        await mkdir(inbox, { recursive: true });
        await writeFile(from, `${lines.join('\n')}\n`);
        staged.push([from, path.join(inbox, `carga-${company.alias}.jsonl`)]);
      }
    },
    async release() {
      for (const [from, to] of staged) await rename(from, to);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export async function startNode(project, name, password) {
  return DaemonProcess.start(project.node(name), {
    env: { EDOC_NODE: name, PGPASSWORD: password },
  });
}

export { cpuSeconds };
