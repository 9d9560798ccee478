// The table `npm run bench` prints (and docs/benchmarks.md quotes).
function pass(ok) {
  return ok === null || ok === undefined ? '' : ok ? 'met' : 'MISSED';
}

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}

export function table(results) {
  const s = results.scenarios;
  const rows = [];
  for (const t of s.throughput ?? []) {
    rows.push([
      `1. throughput, ${t.name}`,
      `${t.docsPerSecond} docs/s of limit ${t.limit}/s (${t.documents} docs)`,
      `${t.ratio}${t.bareRatio === null ? '' : ` (bare undici loop: ${t.bareRatio})`}${
        t.answerDatedCeiling === undefined || t.answerDatedCeiling >= 1
          ? ''
          : ` (ceiling with slots dated by the answer: ${t.answerDatedCeiling})`
      }`,
      '>= 0.95',
      pass(t.ratio >= 0.95),
    ]);
    rows.push([
      `1. busiest 1-s window, ${t.name}`,
      `${t.busiestSecondMax} requests (429s: ${t.answered429})`,
      '',
      `<= ${t.rps}`,
      pass(t.busiestSecondMax <= t.rps),
    ]);
  }
  const o = s.overhead;
  if (o) {
    rows.push([
      `2. own overhead (${o.documents} JSONL invoices, C=${o.concurrency}, no latency)`,
      `daemon ${o.daemonDocsPerSecond} docs/s, bare undici ${o.bareDocsPerSecond} docs/s`,
      `${o.ratio}`,
      '>= 0.6',
      pass(o.ratio >= 0.6),
    ]);
    if (o.daemonCpuMsPer1000 !== undefined) {
      rows.push([
        '2. CPU ms per 1,000 documents: daemon (all threads / main thread), bare loop',
        `${o.daemonCpuMsPer1000} / ${o.daemonMainCpuMsPer1000}, bare ${o.bareCpuMsPer1000}`,
        '',
        '(reference)',
        '',
      ]);
    }
    if (o.daemonCoresBusy !== undefined) {
      rows.push([
        `2. the emulator's CPU ms per 1,000 documents; cores kept busy by all processes (of ${o.cores})`,
        `daemon side ${o.daemonEmulatorCpuMsPer1000}, ${o.daemonCoresBusy} cores; bare side ${o.bareEmulatorCpuMsPer1000}, ${o.bareCoresBusy} cores`,
        '',
        '(reference)',
        '',
      ]);
      rows.push([
        "2. the CPU ratio: (bare loop + its emulator) ÷ (daemon + its emulator), CPU per document; the daemon's CPU per 1,000 that would make 0.6",
        `${o.daemonCpuBudgetMsPer1000} ms (it used ${o.daemonCpuMsPer1000})`,
        `${o.cpuRatio}`,
        '(reference)',
        '',
      ]);
    }
    const w = o.warm;
    if (w) {
      rows.push([
        '2. own overhead, warm (each side did the same work once first)',
        `daemon ${w.daemonDocsPerSecond} docs/s, ` +
          `bare undici ${w.bareDocsPerSecond} docs/s; CPU per 1,000: ${w.daemonCpuMsPer1000} / ${w.daemonMainCpuMsPer1000}, bare ${w.bareCpuMsPer1000}; ` +
          `cores busy ${w.daemonCoresBusy} / ${w.bareCoresBusy}; CPU ratio ${w.cpuRatio}`,
        `${w.ratio}`,
        '(reference)',
        '',
      ]);
    }
  }
  const m = s.memory;
  if (m) {
    const [small, big] = m.sizes;
    rows.push([
      `3. daemon peak RSS, ${small.rows} vs ${big.rows} CSV rows`,
      `${small.daemonPeakMb} MB vs ${big.daemonPeakMb} MB`,
      `${m.daemonRatio}`,
      '<= 1.5 and < 200 MB',
      pass(m.daemonRatio <= 1.5 && big.daemonPeakMb < 200),
    ]);
    if (m.cappedRatio !== undefined) {
      rows.push([
        `3. daemon peak RSS with ${m.heapCap} (1 run each)`,
        `${small.cappedPeakMb} MB vs ${big.cappedPeakMb} MB`,
        `${m.cappedRatio}`,
        '<= 1.5 and < 200 MB',
        pass(m.cappedRatio <= 1.5 && big.cappedPeakMb < 200),
      ]);
    }
    rows.push([
      `3. reader + mapping alone, ${small.rows} vs ${big.rows} rows`,
      `${small.readerPeakMb} MB vs ${big.readerPeakMb} MB`,
      `${m.readerRatio}`,
      '(reference)',
      '',
    ]);
  }
  const p = s.pickup;
  if (p) {
    rows.push([
      `4. pickup, renamed in (median of ${p.trials})`,
      `${p.renamedMedianMs} ms to the first request (${p.renamedTakenAfterStableMs} of ${p.trials} only after stableMs)`,
      '',
      '',
      '',
    ]);
    rows.push([
      `4. pickup, written in place (median of ${p.trials})`,
      `${p.inPlaceMedianMs} ms (stableMs ${p.stableMs}; +${p.inPlaceOverStableMs} ms)`,
      '',
      '~stableMs + 0-300 ms',
      pass(p.inPlaceOverStableMs >= 0 && p.inPlaceOverStableMs <= 300),
    ]);
  }
  const u = s.startup;
  if (u) {
    rows.push([
      `5. start-up to 'watching the inbox', ${u.documents} documents in the ledger`,
      `${u.fullMs} ms (empty ledger: ${u.emptyMs} ms)`,
      `${(u.fullMs / u.emptyMs).toFixed(2)}`,
      '< 2000 ms',
      pass(u.fullMs < 2000),
    ]);
  }
  const g = s.longRecord;
  if (g) {
    rows.push([
      `6. one long CSV record, ${g.sizes.map((x) => `${x.mb}`).join(' / ')} MB`,
      `${g.sizes.map((x) => `${x.seconds} s`).join(' / ')} (CPU ${g.sizes.map((x) => `${x.cpuSeconds}`).join(' / ')} s; peak ${g.sizes.map((x) => `${x.peakRssMb}`).join(' / ')} MB)`,
      `${g.growth}`,
      'CPU per MB flat (ratio ~1)',
      pass(g.growth < 2),
    ]);
  }
  const k = s.intake;
  if (k) {
    for (const [name, b] of Object.entries(k.builds)) {
      const tag = name === 'this' ? '' : ` (${name})`;
      rows.push([
        `7. intake speed${tag}, ${k.rows} CSV rows: csv-parse + iconv / no ledger / full`,
        `${b.floor.rowsPerSecond} / ${b.read.rowsPerSecond} / ${b.full.rowsPerSecond} rows/s (${b.floor.seconds} / ${b.read.seconds} / ${b.full.seconds} s; CPU ${b.floor.cpuSeconds} / ${b.read.cpuSeconds} / ${b.full.cpuSeconds} s)`,
        `full/floor ${b.fullOverFloor}, no-ledger/floor ${b.readOverFloor}, full/no-ledger ${b.fullOverRead} (CPU: ${b.cpu.fullOverFloor}, ${b.cpu.readOverFloor}, ${b.cpu.fullOverRead})`,
        '(reference)',
        '',
      ]);
      const pg = b['full-pg'];
      if (pg) {
        rows.push([
          `7. intake${tag}, ${k.rows} CSV rows: full into SQLite / into PostgreSQL`,
          `${b.full.rowsPerSecond} / ${pg.rowsPerSecond} rows/s (${b.full.seconds} / ${pg.seconds} s; CPU ${b.full.cpuSeconds} / ${pg.cpuSeconds} s, ` +
            `PostgreSQL server ${pg.serverCpuSeconds} s)`,
          `per document: ${b.full.statementsPerDocument} / ${pg.statementsPerDocument} statements, ${b.full.callsPerDocument} / ${pg.callsPerDocument} calls ` +
            `(round trips on PostgreSQL); PostgreSQL/SQLite ${b.pgOverSqlite} (CPU ${b.cpu.pgOverSqlite})`,
          '(reference)',
          '',
        ]);
      }
    }
    if (k.postgres) rows.push(['7. intake into PostgreSQL', k.postgres, '', '', '']);
  }
  const x = s.sheets;
  if (x) {
    rows.push([
      `9. spreadsheet intake, ${x.rows} rows: .xlsx vs its CSV twin (full, SQLite)`,
      `${x.xlsx.documentsPerSecond} vs ${x.csv.documentsPerSecond} documents/s (${x.xlsx.seconds} / ${x.csv.seconds} s, CPU ${x.xlsx.cpuSeconds} / ${x.csv.cpuSeconds} s, ${x.xlsx.documents} documents)`,
      `peak RSS ${x.xlsx.peakRssMB} vs ${x.csv.peakRssMB} MB`,
      '(reference)',
      '',
    ]);
  }
  const c = s.cluster;
  if (c?.skipped)
    rows.push(['8. cluster (PostgreSQL ledger)', `skipped: ${c.skipped}`, '', '', '']);
  else if (c && (c.one.docsPerSecond === null || c.three.docsPerSecond === null)) {
    rows.push([
      '8. cluster (PostgreSQL ledger)',
      `no complete run of ${c.one.docsPerSecond === null ? '1 node' : '3 nodes'}: ${c.stuck.length} stuck (bench/results/latest.json)`,
      '',
      '',
      'MISSED',
    ]);
  } else if (c) {
    const name = `${c.companies} companies (L=${c.latencyMs} ms, C=${c.concurrency}, R=${c.rps}/s each)`;
    rows.push([
      `8. cluster, ${name}: 1 node vs 3 nodes`,
      `${c.one.docsPerSecond} vs ${c.three.docsPerSecond} docs/s of limit ${c.limit}/s (${c.documents} docs)`,
      `${c.one.ratio} vs ${c.three.ratio} (CPU used: ${c.one.cpuShareOf2Cores} vs ${c.three.cpuShareOf2Cores} of 2 cores)`,
      '(reference)',
      '',
    ]);
    rows.push([
      `8. busiest 1-s window per company, ${name}`,
      `${Math.max(c.one.busiestSecondMax, c.three.busiestSecondMax)} requests (429s: ${c.one.answered429 + c.three.answered429})`,
      '',
      `<= ${c.rps}`,
      pass(Math.max(c.one.busiestSecondMax, c.three.busiestSecondMax) <= c.rps),
    ]);
    rows.push([
      '8. database per document (pg_stat_statements, pg_stat_database; 1 node / 3 nodes)',
      `${c.one.statementsPerDocument} / ${c.three.statementsPerDocument} statements sent (= round trips; + ${c.one.nestedPerDocument} / ${c.three.nestedPerDocument} in triggers and key checks), ` +
        `${c.one.commitsPerDocument} / ${c.three.commitsPerDocument} commits`,
      '',
      '(reference)',
      '',
    ]);
    if (c.stuck.length > 0)
      rows.push([
        '8. cluster runs that stalled (not counted above)',
        `${c.stuck.length}: see bench/results/latest.json`,
        '',
        '0',
        'MISSED',
      ]);
    rows.push([
      '8. CPU per document (1 node / 3 nodes): nodes, PostgreSQL, emulator',
      `${['nodes', 'server', 'emulator'].map((k) => `${c.one.cpuMsPerDocument[k]} / ${c.three.cpuMsPerDocument[k]} ms`).join(', ')}`,
      '',
      '(reference)',
      '',
    ]);
  }
  const many = s.companies;
  if (many) {
    const name = `(R=${many.rps}/s, C=${many.concurrency}, L=${many.latencyMs} ms, ${many.perCompany} invoices each, independent server)`;
    for (const z of many.sizes) {
      rows.push([
        `10. ${z.companies} companies ${name}: daemon, bare undici loop`,
        `${z.daemonDocsPerSecond} vs ${z.bareDocsPerSecond} docs/s of limit ${z.limit}/s; ${z.daemonOfLimit} vs ${z.bareOfLimit} of the limit; ` +
          `daemon CPU ${z.daemonCpuMsPer1000} ms per 1,000 (bare ${z.bareCpuMsPer1000}); 429s ${z.refused429}; ` +
          `last company's first send ${z.daemonStartMaxMs} vs ${z.bareStartMaxMs} ms after the first, a company's span ${z.daemonSpanMedianMs} vs ${z.bareSpanMedianMs} ms`,
        `${z.ratio}`,
        z.companies === 1 ? '(reference)' : '>= 0.85 of limit, >= 0.9 of bare',
        z.companies === 1 ? '' : pass(z.daemonOfLimit >= 0.85 && z.ratio >= 0.9),
      ]);
    }
    if (many.cpuGrowth !== null) {
      rows.push([
        '10. daemon CPU per document, most companies ÷ one company',
        `${many.cpuGrowth}`,
        '',
        '<= 1.25',
        pass(many.cpuGrowth <= 1.25),
      ]);
    }
  }
  return [
    row(['figure', 'measured (median)', 'ratio', 'target', '']),
    row(['---', '---', '---', '---', '---']),
    ...rows.map(row),
  ].join('\n');
}
