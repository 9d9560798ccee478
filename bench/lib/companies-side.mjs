// The many-companies scenario's two sides against one independent server (lib/rate-server.mjs): the daemon
// (SQLite, one node, every company R and C) given one JSONL file of PER_COMPANY invoices per company, all
// renamed into the inboxes at once; and the bare loop (lib/bare-companies.mjs) sending the same invoices.
import { execFile, fork } from 'node:child_process';

import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { benchCompanies } from './cluster.mjs';
import { companyInvoiceLines, FIRST_NUMBER } from './documents.mjs';
import { DaemonProcess } from './project.mjs';
import { lineTime, procCpuMs, ROOT, threadCpuMs, until } from './util.mjs';

/** The server in its own process: { url, stats(), reset(), close(), pid }. */
export async function startRateServer({ rps, concurrency, latencyMs }) {
  const child = fork(
    path.join(ROOT, 'bench/lib/rate-server.mjs'),
    [String(rps), String(concurrency), String(latencyMs)],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const ask = (what, key) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m && m[key] !== undefined) {
          child.off('message', on);
          resolve(m[key]);
        }
      };
      child.on('message', on);
      if (what !== undefined) child.send(what);
    });
  const url = await ask(undefined, 'url');
  return {
    url,
    pid: child.pid,
    stats: () => ask('stats', 'stats'),
    latency: (ms) => ask({ latency: ms }, 'latency'),
    reset: () => ask('reset', 'reset'),
    close: async () => {
      child.send('close');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

async function companiesProject(baseUrl, companies, rate) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-companies-'));
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
        rate: { ...rate },
      })),
      paths: {
        inbox: path.join(dir, 'inbox'),
        outbox: path.join(dir, 'outbox'),
        state: path.join(dir, 'state'),
        logs: path.join(dir, 'logs'),
      },
      retry: { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000 },
      watch: { stableMs: 1000, usePolling: false },
      received: { enabled: false },
      log: { level: 'info' },
    }),
  );
  return { dir, configFile, logFile: path.join(dir, 'logs', 'edoc-bridge.log') };
}

/** Writes each company's file as `.part` in its inbox; resolves with a function that renames them all in. */
async function stage(
  project,
  companies,
  perCompany,
  { first = FIRST_NUMBER, name = 'carga', single = companies.length === 1 } = {},
) {
  const names = [];
  for (const company of companies) {
    const lines = companyInvoiceLines(company, perCompany, first);
    // with one company the inbox has no company level (inbox/<kind>/)
    const inbox = single
      ? path.join(project.dir, 'inbox', 'invoice')
      : path.join(project.dir, 'inbox', company.alias, 'invoice');
    await mkdir(inbox, { recursive: true });
    const target = path.join(inbox, `${name}-${company.alias}.jsonl`);
    await writeFile(`${target}.part`, `${lines.join('\n')}\n`);
    names.push(target);
  }
  return async () => {
    for (const target of names) await rename(`${target}.part`, target);
  };
}

/** Waits until the server saw no request for `quietMs` (the daemon's start-up reads done). */
async function quiet(server, quietMs, timeoutMs) {
  let last = -1;
  let since = Date.now();
  await until(
    async () => {
      const s = await server.stats();
      const seen = s.accepted + s.other + s.refusedRate + s.refusedConcurrency + s.notFound;
      if (seen !== last) [last, since] = [seen, Date.now()];
      return Date.now() - since >= quietMs ? true : undefined;
    },
    'a quiet server',
    timeoutMs,
    100,
  );
}

/** First `file taken` → last `file read` of this run's files (s): how long the burst took to be taken in. */
function takenIn(lines) {
  const mine = lines.filter((l) => typeof l.file === 'string' && l.file.startsWith('carga-'));
  const taken = mine.filter((l) => l.msg === 'file taken').map(lineTime);
  const read = mine.filter((l) => l.msg === 'file read').map(lineTime);
  return (Math.max(...read) - Math.min(...taken)) / 1000;
}

/**
 * The daemon's side: started, left to finish its start-up requests, then every company's file renamed in at
 * once (after one warm-up file through the first company). Rate is the server's submissions over first arrival → last answer; CPU is the daemon's (all threads)
 * from the renames to the last `file complete`. `cpuProfDir` runs it under --cpu-prof (written at its stop).
 */
export async function daemonSide(
  server,
  { companies: n, perCompany, rps, concurrency, latencyMs },
  { cpuProfDir, intakeOnly = false } = {},
) {
  const companies = benchCompanies(n);
  const project = await companiesProject(server.url, companies, {
    requestsPerSecond: rps,
    concurrency,
  });
  const nodeArgs = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
  // EDOC_BENCH_NODE_ARGS: V8 or Node flags for the daemon's process (e.g. "--max-semi-space-size=32")
  nodeArgs.push(...(process.env.EDOC_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []));
  const counting = process.env.EDOC_BENCH_COUNT_COMMITS === '1';
  if (counting) nodeArgs.push('--import', new URL('./count-commits.mjs', import.meta.url).href);
  let daemon;
  try {
    // the server's window forgets the other side's last second first: a 429 to a start-up request (the
    // numbering ranges) or the warm-up halves that company's rate for 30 s (CompanyRate's slow-down),
    // and the measured run with it
    await quiet(server, 1500, 120_000);
    daemon = await DaemonProcess.start(project, { nodeArgs });
    // warm: one file of other invoices through the first company (the code compiled, as in a daemon that ran a while)
    await (
      await stage(project, companies.slice(0, 1), perCompany, {
        first: FIRST_NUMBER + 1_000_000,
        name: 'warm',
        single: n === 1,
      })
    )();
    await daemon.waitForLog(
      (l) => l.msg === 'file complete' && l.file === 'warm-e01.jsonl',
      120_000,
      50,
    );
    await quiet(server, 1500, 120_000);
    const release = await stage(project, companies, perCompany);
    await server.reset();
    // intake only: every answer held back a minute, so what the daemon does is take the files in
    if (intakeOnly) await server.latency(60_000);
    const logBefore = daemon.lines().length;
    const cpuBefore = procCpuMs(daemon.pid);
    const threadsBefore = threadCpuMs(daemon.pid);
    // the main thread alone (its task id is the process id): the ledger, the senders, the watcher
    const mainBefore = procCpuMs(daemon.pid, daemon.pid);
    const t0 = Date.now();
    await release();
    const documents = n * perCompany;
    if (intakeOnly) {
      let read = 0;
      const last = await daemon.waitForLog(
        (l) => l.msg === 'file read' && l.file.startsWith('carga-') && ++read === n,
        180_000,
        20,
      );
      const cpuMs = procCpuMs(daemon.pid) - cpuBefore;
      const threadsAfter = threadCpuMs(daemon.pid);
      await server.latency(latencyMs);
      const threadMsPer1000 = perThousand(threadsBefore, threadsAfter, documents);
      return {
        documents,
        threadMsPer1000,
        renamesToReadS: (lineTime(last) - t0) / 1000,
        takenInS: takenIn(daemon.lines().slice(logBefore)),
        cpuMsPer1000: Math.round((cpuMs / documents) * 1000),
      };
    }
    let complete = 0;
    await daemon.waitForLog(
      (l) => l.msg === 'file complete' && l.file.startsWith('carga-') && ++complete === n,
      180_000,
      50,
    );
    const cpuMs = procCpuMs(daemon.pid) - cpuBefore;
    const mainCpuMs = procCpuMs(daemon.pid, daemon.pid) - mainBefore;
    const threadsDone = threadCpuMs(daemon.pid);
    const s = await server.stats();
    const logLines = daemon.lines().length - logBefore;
    return {
      ...figures(s, documents, n, rps, concurrency, latencyMs),
      cpuMsPer1000: Math.round((cpuMs / documents) * 1000),
      mainCpuMsPer1000: Math.round((mainCpuMs / documents) * 1000),
      threadMsPer1000: perThousand(threadsBefore, threadsDone, documents),
      releasedToDoneS: (Date.now() - t0) / 1000,
      takenInS: takenIn(daemon.lines().slice(logBefore)),
      logLinesPerDocument: logLines / documents,
    };
  } finally {
    // intake only: the sends wait on the held answers; nothing is left to finish
    await daemon?.stop(intakeOnly && cpuProfDir === undefined && !counting ? 'SIGKILL' : 'SIGTERM');
    if (counting) await printCommitCounts(project.dir);
    if (!process.env.EDOC_BENCH_KEEP) await rm(project.dir, { recursive: true, force: true });
  }
}

/** CPU ms per 1,000 documents of each thread (by name) between two `threadCpuMs` readings. */
function perThousand(before, after, documents) {
  const out = {};
  for (const [name, ms] of Object.entries(after))
    out[name] = Math.round(((ms - (before[name] ?? 0)) / documents) * 1000);
  return out;
}

export async function bareSide(server, { companies: n, perCompany, rps, concurrency, latencyMs }) {
  await server.reset();
  const args = [
    path.join(ROOT, 'bench/lib/bare-companies.mjs'),
    server.url,
    String(n),
    String(perCompany),
    String(rps),
    String(concurrency),
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
  const out = JSON.parse(stdout);
  const s = await server.stats();
  return {
    ...figures(s, n * perCompany, n, rps, concurrency, latencyMs),
    cpuMsPer1000: Math.round((out.cpuMs / (n * perCompany)) * 1000),
  };
}

function figures(s, documents, n, rps, concurrency, latencyMs) {
  const limit = n * Math.min(rps, (concurrency * 1000) / latencyMs);
  const seconds = (s.lastAnswer - s.firstArrival) / 1000;
  return {
    documents,
    accepted: s.accepted,
    seconds,
    docsPerSecond: documents / seconds,
    limit,
    ofLimit: documents / seconds / limit,
    refused429: s.refusedRate + s.refusedConcurrency,
    busiestSecond: s.busiestSecond,
    serverCpuMs: s.cpuMs,
    startMs: s.startMs,
    spanMs: s.spanMs,
  };
}

/** The daemon's COMMITs, their time and its autocommit writes (bench/lib/count-commits.mjs), on stderr. */
async function printCommitCounts(dir) {
  try {
    const counts = await readFile(path.join(dir, 'commit-counts.json'), 'utf8');
    process.stderr.write(`[bench] daemon ledger commits (whole life): ${counts}\n`);
  } catch (err) {
    process.stderr.write(`[bench] no commit counts: ${err.message}\n`);
  }
}
