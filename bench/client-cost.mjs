// What the daemon's ServiceClient adds to undici per request: the bare loop (a Pool) and the same
// requests through ServiceClient (bench/lib/client-loop.mjs), each in its own process against a fresh
// emulator, alternating; CPU of the sending process per 1,000 requests, and wall requests/s.
//   node bench/client-cost.mjs [RUNS] [COUNT]        (EDOC_BENCH_CODE selects the client's build)
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIRST_NUMBER } from './lib/documents.mjs';
import { startBenchEmulator } from './lib/emulator.mjs';
import { loadNow, median, ROOT, round } from './lib/util.mjs';

const [runsText, countText] = process.argv.slice(2);
const runs = Number(runsText ?? 5);
const n = Number(countText ?? 5000);

async function one(script) {
  const emulator = await startBenchEmulator({});
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'bench/lib', script), emulator.url, String(n), '8', String(FIRST_NUMBER)],
      { maxBuffer: 1 << 20 },
    );
    const out = JSON.parse(stdout);
    if ((out.statuses[200] ?? 0) !== n)
      throw new Error(`${script}: ${JSON.stringify(out.statuses)}`);
    return {
      cpuPer1000: round((out.cpuMs / n) * 1000, 0),
      perSecond: round(n / (out.ms / 1000), 0),
    };
  } finally {
    await emulator.close();
  }
}

const rows = { bare: [], client: [] };
for (let r = 0; r < runs; r++) {
  const load = loadNow();
  rows.bare.push(await one('bare-loop.mjs'));
  rows.client.push(await one('client-loop.mjs'));
  console.error(
    `run ${r + 1} (load ${load}): bare ${JSON.stringify(rows.bare.at(-1))}, client ${JSON.stringify(rows.client.at(-1))}`,
  );
}
for (const [name, xs] of Object.entries(rows)) {
  console.log(
    `${name.padEnd(6)} CPU ms per 1,000 requests ${median(xs.map((x) => x.cpuPer1000))}, requests/s ${median(xs.map((x) => x.perSecond))} (median of ${runs})`,
  );
}
