// 6. One long CSV record (issue 12, item 9): the reader alone over a sales export whose single data
// row carries a 10, 20 and 40 MB description, each size in a fresh process (bench/csv-long-record.mjs).
// Linear reading means the time per MB stays flat as the record grows.
import { measureLongRecords } from '../csv-long-record.mjs';
import { log, round } from '../lib/util.mjs';

export async function longRecord(opts) {
  const sizes = opts.quick ? [10, 20] : [10, 20, 40];
  const results = await measureLongRecords(sizes);
  for (const r of results)
    log(
      `long record ${r.mb} MB: ${round(r.ms / 1000)} s, CPU ${round(r.cpuMs / 1000)} s, peak RSS ${round(r.maxRssKb / 1024, 1)} MB`,
    );
  const perMb = results.map((r) => r.cpuMs / r.mb);
  return {
    sizes: results.map((r) => ({
      mb: r.mb,
      seconds: round(r.ms / 1000),
      cpuSeconds: round(r.cpuMs / 1000),
      peakRssMb: round(r.maxRssKb / 1024, 1),
      documents: r.documents,
    })),
    // CPU per MB of the largest record over that of the smallest: about 1 when reading is linear
    growth: round(perMb[perMb.length - 1] / perMb[0]),
  };
}
