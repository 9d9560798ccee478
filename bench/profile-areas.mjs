// Splits a `.cpuprofile` of the daemon (bench/profile-overhead.mjs) into the areas issue 16 item 6 asks
// about, as ms of CPU per 1,000 documents: every sample goes to exactly one area, so the rows add up.
//   node bench/profile-areas.mjs FILE.cpuprofile [DOCUMENTS]
// A sample's area is that of the innermost frame of a script of ours or of a package (dist/…,
// node_modules/…): a native call (a statement's step, a COMMIT's fsync, a write(2)) counts where it was
// made from. JSON.parse / JSON.stringify count as JSON wherever they are called, with the caller's
// area beside them. A stack of node internals alone goes to timers (the timer lists), the HTTP
// client (sockets, streams) or node internals.
import { readFileSync } from 'node:fs';

const [file, documentsText] = process.argv.slice(2);
const documents = Number(documentsText ?? 5000);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Areas of a script, by its path; first match wins. */
const SCRIPT_AREAS = [
  [/node_modules\/better-sqlite3\/lib\/methods\/transaction/, 'ledger: BEGIN/COMMIT (fsync)'],
  [/node_modules\/better-sqlite3/, 'ledger: statements'],
  [/dist\/ledger\/commit-batcher/, 'commit batching'],
  [/dist\/submit\/submission-commits/, 'commit batching'],
  [/dist\/ledger\//, 'ledger: statements'],
  [
    /node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format|on-exit-leak-free|atomic-sleep)/,
    'logging',
  ],
  [/dist\/log\//, 'logging'],
  [/node_modules\/(p-queue|eventemitter3|p-timeout)/, 'p-queue'],
  [/node_modules\/undici/, 'HTTP client'],
  [/dist\/service\//, 'HTTP client'],
  [/dist\/rate\//, 'rate window'],
  [/dist\/(report|daemon\/(file-reports|report-scheduler))/, 'report writing'],
  [/dist\/(alerts|ranges|health|http)\/|dist\/daemon\/(alerting|operator)/, 'events/metrics hooks'],
  [/node_modules\/prom-client/, 'events/metrics hooks'],
  [/dist\/submit\//, 'sender (claim, decide, settle)'],
  [/dist\/daemon\/intake|dist\/(read|map|validate|kinds)\//, 'intake'],
  [/node_modules\/zod/, 'intake'],
  [/node_modules\/(chokidar|readdirp)|dist\/watch\//, 'watcher'],
  [/dist\//, 'other code of ours'],
  [/node_modules\//, 'other packages'],
];

function scriptArea(url) {
  for (const [re, area] of SCRIPT_AREAS) if (re.test(url)) return area;
  return undefined;
}

function internalArea(url) {
  if (/timers/.test(url)) return 'timers';
  if (/(net|stream|_http|http_parser|tls|dns|socket)/.test(url)) return 'HTTP client';
  return 'node internals';
}

function areaOfSample(id) {
  const leaf = nodes.get(id).callFrame;
  if (leaf.functionName === '(garbage collector)') return ['GC'];
  if (leaf.functionName === '(idle)') return ['idle'];
  if (leaf.functionName === '(program)') return ['(program: V8 outside JS)'];
  const json =
    leaf.url === '' && /^(parse|stringify)$/.test(leaf.functionName)
      ? `JSON.${leaf.functionName}`
      : undefined;
  let innermostInternal;
  for (let p = id; p !== undefined; p = parent.get(p)) {
    const { url } = nodes.get(p).callFrame;
    if (url === '') continue;
    const area = url.startsWith('node:') ? undefined : scriptArea(url);
    if (area !== undefined) return json ? ['JSON', `${json} from ${area}`] : [area];
    innermostInternal ??= url;
  }
  const area = innermostInternal === undefined ? 'node internals' : internalArea(innermostInternal);
  return json ? ['JSON', `${json} from ${area}`] : [area];
}

const byArea = new Map();
const detail = new Map();
let busy = 0;
const dts = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const us = dts[i] ?? 0;
  const [area, sub] = areaOfSample(profile.samples[i]);
  byArea.set(area, (byArea.get(area) ?? 0) + us);
  if (sub) detail.set(sub, (detail.get(sub) ?? 0) + us);
  if (area !== 'idle') busy += us;
}
const per1000 = (us) => ((us / 1000 / documents) * 1000).toFixed(0).padStart(6);
console.log(
  `${file}: busy ${(busy / 1000).toFixed(0)} ms for ${documents} documents = ${per1000(busy).trim()} ms per 1,000`,
);
console.log('ms of CPU per 1,000 documents, by area (share of busy):');
for (const [a, us] of [...byArea].sort((x, y) => y[1] - x[1])) {
  console.log(
    `${per1000(us)}  ${a === 'idle' ? '       ' : `${((100 * us) / busy).toFixed(1).padStart(5)} %`}  ${a}`,
  );
}
if (detail.size > 0) {
  console.log('JSON by caller:');
  for (const [k, us] of [...detail].sort((x, y) => y[1] - x[1]))
    console.log(`${per1000(us)}          ${k}`);
}
