// `npm run bench`: every scenario of issue 8, a table on stdout and bench/results/latest.json.
//   node --expose-gc bench/run.mjs [--only throughput,overhead,memory,pickup,startup,longRecord,intake,cluster,sheets,companies] [--runs N] [--quick]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { overhead } from './scenarios/overhead.mjs';
import { memory } from './scenarios/memory.mjs';
import { pickup } from './scenarios/pickup.mjs';
import { startup } from './scenarios/startup.mjs';
import { longRecord } from './scenarios/long-record.mjs';
import { throughput } from './scenarios/throughput.mjs';
import { intake } from './scenarios/intake.mjs';
import { cluster } from './scenarios/cluster.mjs';
import { sheets } from './scenarios/sheets.mjs';
import { companies } from './scenarios/companies.mjs';
import { table } from './lib/table.mjs';
import { log, machine, ROOT } from './lib/util.mjs';

const SCENARIOS = {
  throughput,
  overhead,
  memory,
  pickup,
  startup,
  longRecord,
  intake,
  cluster,
  sheets,
  companies,
};

function args(argv) {
  const out = { only: Object.keys(SCENARIOS), runs: 3, quick: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--only') out.only = argv[++i].split(',');
    else if (argv[i] === '--runs') out.runs = Number(argv[++i]);
    else if (argv[i] === '--quick') out.quick = true;
  }
  return out;
}

const opts = args(process.argv.slice(2));
const started = Date.now();
const results = {
  startedAt: new Date(started).toISOString(),
  machine: machine(),
  runs: opts.runs,
  scenarios: {},
};
for (const name of opts.only) {
  log(`scenario ${name}`);
  results.scenarios[name] = await SCENARIOS[name](opts);
}
results.totalSeconds = Math.round((Date.now() - started) / 1000);
results.machineAtEnd = machine();
await mkdir(join(ROOT, 'bench/results'), { recursive: true });
await writeFile(join(ROOT, 'bench/results/latest.json'), `${JSON.stringify(results, null, 2)}\n`);
const m = results.machine;
console.log(
  `edoc-bridge bench — ${m.cpus} × ${m.cpuModel}, ${m.memoryGB} GB, node ${m.node}, load ${m.loadAverage.join(' ')} at start; ${results.totalSeconds} s`,
);
console.log(table(results));
console.log('details: bench/results/latest.json');
