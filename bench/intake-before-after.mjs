// Intake of one sales export by two builds, alternating in one run: this tree's build and an older one
// (a folder with dist/ and node_modules), each run a fresh child process (bench/intake-speed.mjs --child),
// on the same file. Prints one JSON line per run, then the medians per build and mode: documents/s (wall),
// CPU s and peak RSS of the child.
//
//   npm run build && node bench/intake-before-after.mjs BEFORE_DIR [rows] [runs] [modes]
//   e.g. git worktree add /tmp/before d143910 && ln -s "$PWD/node_modules" /tmp/before/node_modules \
//        && (cd /tmp/before && npx tsc -p tsconfig.build.json) \
//        && node bench/intake-before-after.mjs /tmp/before 1000000 3 full,read
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeSalesCsv } from './lib/sales-csv.mjs';
import { CODE, median, round } from './lib/util.mjs';
import { intakeRun } from './scenarios/intake.mjs';

const [before, rowsArg = '1000000', runsArg = '3', modesArg = 'full'] = process.argv.slice(2);
if (!before)
  throw new Error('usage: node bench/intake-before-after.mjs BEFORE_DIR [rows] [runs] [modes]');
const rows = Number(rowsArg);
const runs = Number(runsArg);
const modes = modesArg.split(',');
const builds = [
  ['before', path.resolve(before)],
  ['this', CODE],
];
const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-before-after-'));
const results = [];
try {
  const file = path.join(dir, `sales-${rows}.csv`);
  await writeSalesCsv(file, rows);
  for (const mode of modes) {
    for (let r = 0; r < runs; r++) {
      // the order inside a pair alternates too, so neither build always runs second
      const order = r % 2 === 0 ? builds : [...builds].reverse();
      for (const [name, code] of order) {
        const x = intakeRun(mode, file, code);
        const line = {
          build: name,
          mode,
          run: r + 1,
          rows: x.rows,
          documents: x.documents,
          invalid: x.invalid,
          wallS: round(x.ms / 1000, 2),
          cpuS: round(x.cpuMs / 1000, 2),
          maxRssMB: x.maxRssMB,
          load: os.loadavg()[0],
        };
        console.log(JSON.stringify(line));
        results.push(line);
      }
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
for (const mode of modes) {
  for (const [name] of builds) {
    const rs = results.filter((x) => x.build === name && x.mode === mode);
    const wall = median(rs.map((x) => x.wallS));
    console.log(
      JSON.stringify({
        summary: name,
        mode,
        runs: rs.length,
        documentsPerSecond: Math.round(rs[0].documents / wall),
        wallS: wall,
        cpuS: median(rs.map((x) => x.cpuS)),
        maxRssMB: median(rs.map((x) => x.maxRssMB)),
        cpuRuns: rs.map((x) => x.cpuS),
        wallRuns: rs.map((x) => x.wallS),
      }),
    );
  }
}
