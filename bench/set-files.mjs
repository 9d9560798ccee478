// An export in two files against the same rows as one file: writes a SAP Business One DTW set
// (Documents.csv + Document_Lines.csv, N documents of two lines) and its one-file twin (each line
// row carrying its header's cells, joined.csv) with the preset minus `parts` (joined.yaml), then
// runs `validate` on each (built CLI: npm run build first), printing wall, CPU and peak RSS.
//   node bench/set-files.mjs [N=100000] [DIR=/tmp/edoc-set-bench]
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';

const N = Number(process.argv[2] ?? 100_000);
const DIR = process.argv[3] ?? '/tmp/edoc-set-bench';
const ROOT = path.join(import.meta.dirname, '..');
mkdirSync(DIR, { recursive: true });

async function write(file, lines) {
  const out = createWriteStream(path.join(DIR, file));
  for (const line of lines) if (!out.write(`${line}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}
function* range(make) {
  for (let k = 1; k <= N; k++) yield* make(k);
}
const head = (k) => `${k},20261118,Cliente ${k},800197268-4,COP,0,SETP,${990_000_000 + k}`;
const lines = (k) => [
  `${k},0,A1,Producto A,1,10000,0,IVA19`,
  `${k},1,B2,Producto B,2,5000,10,IVAEX`,
];
await write('Documents.csv', [
  'RecordKey,DocDate,CardName,FederalTaxID,DocCurrency,DiscountPercent,FolioPrefixString,FolioNumber',
  'RecordKey,DocDate,CardName,LicTradNum,DocCur,DiscPrcnt,FolioPref,FolioNum',
  ...range((k) => [head(k)]),
]);
await write('Document_Lines.csv', [
  'ParentKey,LineNum,ItemCode,ItemDescription,Quantity,UnitPrice,DiscountPercent,TaxCode',
  'DocNum,LineNum,ItemCode,Dscription,Quantity,PriceBefDi,DiscPrcnt,TaxCode',
  ...range(lines),
]);
await write('joined.csv', [
  'RecordKey,DocDate,CardName,FederalTaxID,DocCurrency,header.DiscountPercent,FolioPrefixString,FolioNumber,' +
    'ParentKey,LineNum,ItemCode,ItemDescription,Quantity,UnitPrice,lines.DiscountPercent,TaxCode',
  ...range((k) => lines(k).map((l) => `${head(k)},${l}`)),
]);
const preset = readFileSync(path.join(ROOT, 'config/mappings/erp/sap-b1-invoice.yaml'), 'utf8');
writeFileSync(path.join(DIR, 'joined.yaml'), preset.replace(/parts:\n(?: {2}.*\n)+/, ''));

function run(label, args) {
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%e %U %S %M',
      process.execPath,
      path.join(ROOT, 'bin/edoc-bridge.js'),
      'validate',
      ...args,
      '--kind',
      'invoice',
      '--config',
      path.join(ROOT, 'config/edoc-bridge.yaml'),
    ],
    // stdout to a file: through a pipe, output the reader has not taken yet would count in the RSS
    {
      encoding: 'utf8',
      stdio: ['ignore', openSync(path.join(DIR, 'out.ndjson'), 'w'), 'pipe'],
      env: { ...process.env, EDOC_API_KEY: 'x' },
    },
  );
  const [wall, user, sys, rss] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  const docs = readFileSync(path.join(DIR, 'out.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '').length;
  console.log(
    `${label}: ${docs} documents, ${wall} s wall, ${(user + sys).toFixed(2)} s CPU, ${Math.round(rss / 1024)} MB peak RSS`,
  );
}
run('set of two files', [
  path.join(DIR, 'Documents.csv'),
  path.join(DIR, 'Document_Lines.csv'),
  '--mapping',
  path.join(ROOT, 'config/mappings/erp/sap-b1-invoice.yaml'),
]);
run('one joined file', [path.join(DIR, 'joined.csv'), '--mapping', path.join(DIR, 'joined.yaml')]);
