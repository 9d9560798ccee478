// Time and peak memory of the CSV reader over one very long record (issue 12, item 9): a sales
// export whose single data row carries a description cell of 10, 20 and 40 MB (one quoted field,
// as a runaway export or a pasted blob would). Each size runs in its own child process: seconds
// from open to the last document, and process.resourceUsage().maxRSS.
//
//   npm run build && node bench/csv-long-record.mjs [MB ...]
//   EDOC_BENCH_CODE=/tmp/other-build node bench/csv-long-record.mjs   # the same against another build
//
// The reader gets `maxRecordBytes` above the largest size, so the record is read, not refused.
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const HEADER =
  'prefijo;numero;fecha;hora;vence;cliente_tipo_doc;cliente_doc;cliente_nombre;cliente_correo;linea;codigo;descripcion;cantidad;precio_unitario;iva';

/** Header, one data row with a `mb` MB description, and one ordinary row after it. */
export async function writeLongRecordCsv(file, mb) {
  const out = createWriteStream(file);
  const write = (text) =>
    new Promise((resolve) => {
      if (out.write(text)) resolve();
      else out.once('drain', resolve);
    });
  await write(
    `${HEADER}\r\nSETP;990000001;01/11/2026;09:15:00;01/11/2026;31;800197268;Cliente;c@example.com;1;7702;"`,
  );
  const block = 'x'.repeat(1 << 20);
  for (let i = 0; i < mb; i += 1) await write(block);
  await write(
    '";1;1.000,00;19\r\nSETP;990000002;01/11/2026;09:15:00;01/11/2026;31;800197268;Cliente;c@example.com;1;7702;corto;1;1.000,00;19\r\n',
  );
  await new Promise((resolve) => out.end(resolve));
}

/** Seconds and peak RSS of reading `file` to the end, in a fresh child process. */
export function longRecordRead(file) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out);
}

async function child(file) {
  const code = process.env.EDOC_BENCH_CODE ?? root;
  const { loadMapping } = await import(join(code, 'dist/map/load-mapping.js'));
  const { openCsvSource } = await import(join(code, 'dist/read/csv-source.js'));
  const mapping = await loadMapping(join(root, 'config/mappings/sales.csv.yaml'));
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  const source = await openCsvSource(file, mapping, {
    kind: 'invoice',
    company: { alias: 'main', nit: '900123456' },
    maxRecordBytes: 1 << 30,
  });
  let documents = 0;
  let error;
  try {
    for await (const _d of source.documents) documents += 1;
  } catch (err) {
    error = err.code ?? String(err);
  }
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(
    JSON.stringify({
      documents,
      error,
      ms: Number(process.hrtime.bigint() - started) / 1e6,
      cpuMs: (cpu.user + cpu.system) / 1000,
      maxRssKb: process.resourceUsage().maxRSS,
    }),
  );
}

export async function measureLongRecords(sizesMb = [10, 20, 40]) {
  const dir = await mkdtemp(join(tmpdir(), 'edoc-long-record-'));
  const results = [];
  try {
    for (const mb of sizesMb) {
      const file = join(dir, `long-${mb}.csv`);
      await writeLongRecordCsv(file, mb);
      const bytes = (await stat(file)).size;
      results.push({ mb, fileMb: bytes / 1e6, ...longRecordRead(file) });
      await rm(file);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}

async function main() {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const results = await measureLongRecords(sizes.length > 0 ? sizes : undefined);
  console.log(`code: ${process.env.EDOC_BENCH_CODE ?? root}`);
  console.log('record MB   documents   seconds   CPU s   peak RSS MB');
  for (const r of results) {
    console.log(
      `${String(r.mb).padStart(9)} ${String(r.documents).padStart(11)} ${(r.ms / 1000).toFixed(2).padStart(9)} ${(r.cpuMs / 1000).toFixed(2).padStart(7)} ${(r.maxRssKb / 1024).toFixed(1).padStart(13)}${r.error ? `  (${r.error})` : ''}`,
    );
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
