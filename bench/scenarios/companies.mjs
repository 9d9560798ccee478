// 10. Many companies on one node: COMPANIES companies (200, and 1 and 20 for the CPU trend), each R = 10
// requests/s and C = 2, against an independent server (lib/rate-server.mjs, its own process, holding the rate
// rules itself) answering in L = 100 ms, so the limit is companies × min(R, C / L) = companies × 10 documents/s;
// 40 numbered invoices per company (one JSONL file each, renamed into the inboxes at once). On the same server in
// the same run, the bare undici loop on the same rules (lib/bare-companies.mjs); the two sides alternate which
// goes first. Figures: daemon ÷ limit, bare ÷ limit, daemon ÷ bare, the daemon's CPU ms per 1,000 documents
// (all threads, renames → last `file complete`) at each size, and the 429s the server had to give.
// EDOC_BENCH_CPU_PROF=DIR writes the daemon's CPU profiles (--cpu-prof) of the largest size there;
// EDOC_BENCH_COUNT_COMMITS=1 prints the daemon's ledger COMMITs and their time (lib/count-commits.mjs).
import { bareSide, daemonSide, startRateServer } from '../lib/companies-side.mjs';
import { log, median, round } from '../lib/util.mjs';

export const COMPANIES = {
  sizes: [1, 20, 200],
  perCompany: 40,
  rps: 10,
  concurrency: 2,
  latencyMs: 100,
};

async function pair(size, r, cpuProfDir) {
  const cfg = { ...COMPANIES, companies: size };
  const server = await startRateServer(cfg);
  try {
    const bareFirst = r % 2 === 0;
    const bare = bareFirst ? await bareSide(server, cfg) : undefined;
    const daemon = await daemonSide(server, cfg, { cpuProfDir });
    const out = { daemon, bare: bare ?? (await bareSide(server, cfg)) };
    out.ratio = daemon.docsPerSecond / out.bare.docsPerSecond;
    log(
      `companies ${size} run ${r + 1}: daemon ${round(daemon.docsPerSecond, 1)} docs/s (${round(daemon.ofLimit, 3)} of ${daemon.limit}/s; ` +
        `CPU ${daemon.cpuMsPer1000} ms per 1,000 (main thread ${daemon.mainCpuMsPer1000}; by thread ${JSON.stringify(daemon.threadMsPer1000)}); 429s ${daemon.refused429}; busiest second ${daemon.busiestSecond}; company start ms ${JSON.stringify(daemon.startMs)}, span ms ${JSON.stringify(daemon.spanMs)}; accepted ${daemon.accepted}), ` +
        `bare ${round(out.bare.docsPerSecond, 1)} docs/s (${round(out.bare.ofLimit, 3)}; start ms ${JSON.stringify(out.bare.startMs)}, span ms ${JSON.stringify(out.bare.spanMs)}; 429s ${out.bare.refused429}), ratio ${round(out.ratio, 3)}`,
    );
    return out;
  } finally {
    await server.close();
  }
}

export async function companies({ runs, quick }) {
  // EDOC_BENCH_COMPANIES=200 (or 1,200 …): only those sizes
  const only = process.env.EDOC_BENCH_COMPANIES?.split(',').map(Number);
  const sizes = only ?? (quick ? [1, 200] : COMPANIES.sizes);
  const largest = Math.max(...sizes);
  const bySize = [];
  for (const size of sizes) {
    const pairs = [];
    for (let r = 0; r < runs; r++)
      pairs.push(
        await pair(size, r, size === largest ? process.env.EDOC_BENCH_CPU_PROF : undefined),
      );
    const m = (f) => median(pairs.map(f));
    bySize.push({
      companies: size,
      documents: size * COMPANIES.perCompany,
      limit: pairs[0].daemon.limit,
      daemonOfLimit: round(
        m((p) => p.daemon.ofLimit),
        3,
      ),
      bareOfLimit: round(
        m((p) => p.bare.ofLimit),
        3,
      ),
      ratio: round(
        m((p) => p.ratio),
        3,
      ),
      daemonDocsPerSecond: round(
        m((p) => p.daemon.docsPerSecond),
        1,
      ),
      bareDocsPerSecond: round(
        m((p) => p.bare.docsPerSecond),
        1,
      ),
      daemonCpuMsPer1000: m((p) => p.daemon.cpuMsPer1000),
      daemonMainCpuMsPer1000: m((p) => p.daemon.mainCpuMsPer1000),
      bareCpuMsPer1000: m((p) => p.bare.cpuMsPer1000),
      refused429: Math.max(...pairs.map((p) => p.daemon.refused429)),
      busiestSecond: Math.max(...pairs.map((p) => p.daemon.busiestSecond)),
      logLinesPerDocument: round(
        m((p) => p.daemon.logLinesPerDocument),
        2,
      ),
      // when each company's first submission arrived after the run's first (the daemon's: when its file was
      // taken in), and how long a company took from its first arrival to its last answer
      daemonStartMaxMs: m((p) => p.daemon.startMs?.max ?? 0),
      daemonSpanMedianMs: m((p) => p.daemon.spanMs?.median ?? 0),
      bareStartMaxMs: m((p) => p.bare.startMs?.max ?? 0),
      bareSpanMedianMs: m((p) => p.bare.spanMs?.median ?? 0),
      runs: pairs,
    });
  }
  const one = bySize.find((s) => s.companies === 1);
  const big = bySize.find((s) => s.companies === largest);
  return {
    ...COMPANIES,
    sizes: bySize,
    cpuGrowth: one && big ? round(big.daemonCpuMsPer1000 / one.daemonCpuMsPer1000, 2) : null,
  };
}
