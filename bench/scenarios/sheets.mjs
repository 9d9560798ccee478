// 9. Spreadsheets: a 200,000-row sales export as .xlsx (lib/sales-xlsx.mjs: typed cells, shared
// strings, as Excel writes them) and its CSV twin (lib/sales-csv.mjs, the same rows), each taken by the
// full intake into a real SQLite ledger (bench/intake-speed.mjs `full`) in a fresh child process,
// alternating within each run: documents/s (wall and CPU seconds) and the child's peak RSS side by side.
// --quick: 20,000 rows.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeSalesCsv } from '../lib/sales-csv.mjs';
import { csvToXlsx } from '../lib/sales-xlsx.mjs';
import { log, median, round } from '../lib/util.mjs';
import { intakeRun } from './intake.mjs';

export async function sheets({ runs, quick, rows: asked }) {
  const rows = asked ?? (quick ? 20_000 : 200_000);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-sheets-'));
  const files = {
    csv: path.join(dir, `sales-${rows}.csv`),
    xlsx: path.join(dir, `sales-${rows}.xlsx`),
  };
  const raw = { csv: [], xlsx: [] };
  try {
    await writeSalesCsv(files.csv, rows);
    const made = await csvToXlsx(files.csv, files.xlsx);
    log(
      `sheets: ${made.rows} rows, ${made.sharedStrings} shared strings; csv ${(await stat(files.csv)).size} B, xlsx ${(await stat(files.xlsx)).size} B`,
    );
    for (let r = 0; r < runs; r++) {
      for (const format of ['csv', 'xlsx']) {
        const result = intakeRun('full', files[format]);
        if (result.invalid !== 0)
          throw new Error(`sheets: ${result.invalid} invalid documents from the ${format} file`);
        log(
          `sheets ${format} run ${r + 1}: ${round(result.ms / 1000, 2)} s, ${result.documents} documents, peak RSS ${result.maxRssMB} MB`,
        );
        raw[format].push(result);
      }
    }
    const sizes = { csv: (await stat(files.csv)).size, xlsx: (await stat(files.xlsx)).size };
    const summary = (format) => {
      const results = raw[format];
      const seconds = median(results.map((x) => x.ms / 1000));
      return {
        bytes: sizes[format],
        seconds: round(seconds, 2),
        cpuSeconds: round(median(results.map((x) => x.cpuMs / 1000)), 2),
        documents: results[0].documents,
        documentsPerSecond: Math.round(results[0].documents / seconds),
        peakRssMB: median(results.map((x) => x.maxRssMB)),
        runs: results.map((x) => round(x.ms / 1000, 2)),
      };
    };
    return { rows, csv: summary('csv'), xlsx: summary('xlsx') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
