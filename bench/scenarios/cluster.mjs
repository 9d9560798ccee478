// 8. Cluster scale (issue 13 "Must show" 3): 60 companies, each with rate R and concurrency C, against the
// emulator with latency L, so the limit is the sum over companies of min(R, C/L). One node and three nodes
// (the real daemon as child processes sharing one PostgreSQL ledger: a throwaway server started here, a
// fresh database per run) alternate within the run. Each run waits until the leases are spread
// (ceil(60 / nodes) each), then renames one file per company into the inbox at once; achieved = documents
// / (last answer − the renames). Also: the database's cost per document — statements counted by
// pg_stat_statements (top-level statements: one round trip each with node-postgres, which does not pipeline;
// BEGIN and COMMIT included; nested: what triggers and foreign-key checks ran inside them), transactions
// and rows from pg_stat_database — and the CPU seconds the nodes,
// the PostgreSQL server and the bench's own process (the emulator) used, against what 2 cores offer.
// Skipped with one line when the machine has no PostgreSQL.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  benchCompanies,
  benchDatabase,
  clusterProject,
  cpuSeconds,
  dbCounters,
  resetStatements,
  startBenchPostgres,
  startClusterEmulator,
  startNode,
  topStatements,
} from '../lib/cluster.mjs';
import { nowMs } from '../lib/emulator.mjs';
import { serverCpu } from '../lib/postgres.mjs';
import { log, median, round, sleep, until } from '../lib/util.mjs';

// leaseMs: the default. With 3,000 a node starved of CPU on this loaded machine let its leases lapse
// between renewals, and a file's intake refused by the fence stayed 'reading' for good (see the report)
export const CLUSTER = { companies: 60, latencyMs: 50, concurrency: 2, rps: 15, leaseMs: 15_000 };

function ownCpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function once(pgs, nodeCount, run, perCompany) {
  const { companies: n, latencyMs, concurrency, rps, leaseMs } = CLUSTER;
  const companies = benchCompanies(n);
  const limit = n * Math.min(rps, (concurrency * 1000) / latencyMs);
  const documents = n * perCompany;
  const emulator = await startClusterEmulator(companies, { latencyMs, rateLimitPerSecond: rps });
  const db = await benchDatabase(pgs, `bench_cluster_${process.pid}_${run}_${nodeCount}`);
  const project = await clusterProject({
    baseUrl: emulator.url,
    companies,
    rate: { requestsPerSecond: rps, concurrency },
    db,
    leaseMs,
  });
  const nodes = [];
  try {
    for (let i = 0; i < nodeCount; i++)
      nodes.push(await startNode(project, `node-${i + 1}`, pgs.info.password));
    const share = Math.ceil(n / nodeCount);
    await until(
      async () => {
        const rows = await pgs.admin(
          `SELECT owner, count(*)::int AS n FROM company_leases WHERE owner IS NOT NULL AND expires_at > now()
        GROUP BY owner`,
          [],
          db.name,
        );
        return rows.length === nodeCount &&
          rows.every((r) => r.n === share || r.n === n - share * (nodeCount - 1))
          ? true
          : undefined;
      },
      `leases spread over ${nodeCount} nodes`,
      120_000,
      200,
    );
    await project.stage(companies, perCompany);
    await resetStatements(pgs);
    const before = await dbCounters(pgs, db);
    const cpu0 = {
      nodes: nodes.map((d) => cpuSeconds(d.pid)),
      server: serverCpu(pgs.info.pid),
      bench: ownCpu(),
    };
    const t0 = nowMs();
    await project.release();
    // 20 × the time an ideal sender needs: a run that stalls is reported as stuck, not waited for
    const stuckAfterMs = Math.max(120_000, (20_000 * documents) / limit);
    try {
      await until(
        () => ((emulator.trace.statuses[200] ?? 0) >= documents ? true : undefined),
        `${documents} accepted`,
        stuckAfterMs,
        50,
      );
    } catch {
      const states = await pgs.admin(
        'SELECT state, count(*)::int AS n FROM documents GROUP BY state',
        [],
        db.name,
      );
      const files = await pgs.admin(
        "SELECT company, state FROM files WHERE state <> 'done'",
        [],
        db.name,
      );
      return {
        nodes: nodeCount,
        documents,
        limit,
        stuck: {
          afterMs: stuckAfterMs,
          accepted: emulator.trace.statuses[200] ?? 0,
          states,
          filesNotDone: files,
        },
      };
    }
    const seconds = (emulator.trace.lastAnswer - t0) / 1000;
    const cpu = {
      nodes: round(
        nodes.reduce((a, d, i) => a + cpuSeconds(d.pid) - cpu0.nodes[i], 0),
        1,
      ),
      server: round(serverCpu(pgs.info.pid) - cpu0.server, 1),
      bench: round(ownCpu() - cpu0.bench, 1),
    };
    // pg_stat_database is flushed by each backend at most once a second
    await sleep(1_500);
    const after = await dbCounters(pgs, db);
    const delta = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
    const perDoc = Object.fromEntries(
      Object.entries(delta).map(([k, v]) => [k, round(v / documents, 2)]),
    );
    const snap = emulator.snapshot();
    const busiest = Math.max(...Object.values(snap.busiestSecond));
    const achieved = documents / seconds;
    return {
      nodes: nodeCount,
      documents,
      limit,
      seconds: round(seconds, 2),
      docsPerSecond: round(achieved, 1),
      ratio: round(achieved / limit, 3),
      busiestSecondMax: busiest,
      answered429: emulator.trace.statuses[429] ?? 0,
      cpuSeconds: cpu,
      cpuShareOf2Cores: round((cpu.nodes + cpu.server + cpu.bench) / (2 * seconds), 2),
      statementsPerDocument: perDoc.statements,
      nestedPerDocument: perDoc.nested,
      commitsPerDocument: perDoc.xact_commit,
      dbPerDocument: perDoc,
      cpuMsPerDocument: {
        nodes: round((cpu.nodes * 1000) / documents, 2),
        server: round((cpu.server * 1000) / documents, 2),
        emulator: round((cpu.bench * 1000) / documents, 2),
      },
      topStatements: run === 0 ? await topStatements(pgs, db) : undefined,
    };
  } finally {
    await Promise.all(nodes.map((d) => d.stop()));
    await emulator.close();
    await db.drop().catch(() => {});
    await project.remove();
  }
}

export async function cluster({ runs, quick }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-pg-'));
  const pgs = await startBenchPostgres(dir);
  if (pgs.skipped) {
    log(`cluster: skipped, no PostgreSQL: ${pgs.skipped}`);
    await rm(dir, { recursive: true, force: true });
    return { skipped: pgs.skipped };
  }
  const { companies, latencyMs, concurrency, rps } = CLUSTER;
  const perCompany = (quick ? 5 : 10) * Math.min(rps, (concurrency * 1000) / latencyMs);
  const raw = { 1: [], 3: [] };
  const stuck = [];
  try {
    for (let r = 0; r < runs; r++) {
      // one node and three alternate, so both see the same background load
      for (const nodeCount of [1, 3]) {
        const one = await once(pgs, nodeCount, r, perCompany);
        if (one.stuck) {
          log(
            `cluster ${nodeCount} node(s) run ${r + 1}: STUCK after ${one.stuck.afterMs} ms: ${JSON.stringify(one.stuck)}`,
          );
          stuck.push(one);
          continue;
        }
        raw[nodeCount].push(one);
        log(
          `cluster ${nodeCount} node(s) run ${r + 1}: ${one.docsPerSecond} docs/s of limit ${one.limit} (ratio ${one.ratio}), ` +
            `${one.statementsPerDocument} statements (+${one.nestedPerDocument} nested) and ${one.commitsPerDocument} commits per document, CPU ${JSON.stringify(one.cpuSeconds)} s in ${one.seconds} s`,
        );
      }
    }
  } finally {
    await pgs.server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const mid = (list, f) => round(median(list.map(f)), 3);
  const summary = (list) =>
    list.length === 0
      ? { docsPerSecond: null, ratio: null }
      : {
          docsPerSecond: mid(list, (x) => x.docsPerSecond),
          ratio: mid(list, (x) => x.ratio),
          busiestSecondMax: Math.max(...list.map((x) => x.busiestSecondMax)),
          answered429: list.reduce((a, x) => a + x.answered429, 0),
          statementsPerDocument: mid(list, (x) => x.statementsPerDocument),
          nestedPerDocument: mid(list, (x) => x.nestedPerDocument),
          commitsPerDocument: mid(list, (x) => x.commitsPerDocument),
          cpuMsPerDocument: Object.fromEntries(
            ['nodes', 'server', 'emulator'].map((k) => [
              k,
              mid(list, (x) => x.cpuMsPerDocument[k]),
            ]),
          ),
          cpuShareOf2Cores: mid(list, (x) => x.cpuShareOf2Cores),
        };
  return {
    companies,
    latencyMs,
    concurrency,
    rps,
    limit: companies * Math.min(rps, (concurrency * 1000) / latencyMs),
    documents: companies * perCompany,
    one: summary(raw[1]),
    three: summary(raw[3]),
    runs: raw,
    stuck,
  };
}
