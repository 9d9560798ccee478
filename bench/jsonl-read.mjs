// A big JSONL export read as the intake reads it, two builds side by side: the content hash (read/hash.ts),
// then openSource with the hash's size, mtime and (where the build has them) text facts, then every
// document. Figures: hash + open (ms) and the whole read (ms), each build in its own process, 5
// alternating runs, medians. The file: 30,000 invoices of bench/lib/documents.mjs, one per line (≈ 66 MB).
//   sh bench/private-build.sh /tmp/before && sh bench/private-build.sh /tmp/after
//   node bench/jsonl-read.mjs /tmp/before /tmp/after
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { invoice } from './lib/documents.mjs';
import { median } from './lib/util.mjs';

const here = fileURLToPath(import.meta.url);
const [code, file] = process.argv.slice(2);

if (process.argv[4] === '--child') {
  const { hashFile } = await import(`${code}/dist/read/hash.js`);
  const { openSource } = await import(`${code}/dist/read/open-source.js`);
  const started = performance.now();
  const h = await hashFile(file);
  const source = await openSource(file, 'invoice', {
    company: { alias: 'main', nit: '900123456' },
    expect: { size: h.size, mtimeMs: h.mtimeMs },
    ...(h.text && { text: h.text }),
  });
  const opened = performance.now();
  let n = 0;
  for await (const _doc of source.documents) n++;
  if (n !== 30_000) throw new Error(`read ${n} documents`);
  console.log(JSON.stringify({ open: opened - started, read: performance.now() - started }));
} else {
  const [before, after] = process.argv.slice(2);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-jsonl-'));
  try {
    const big = path.join(dir, 'big.jsonl');
    const lines = Array.from({ length: 30_000 }, (_, i) =>
      JSON.stringify(invoice(990_000_000 + i)),
    );
    await writeFile(big, `${lines.join('\n')}\n`);
    const runs = { before: [], after: [] };
    for (let r = 0; r < 5; r++)
      for (const [name, build] of [
        ['before', before],
        ['after', after],
      ])
        runs[name].push(
          JSON.parse(
            execFileSync(process.execPath, [here, build, big, '--child'], { encoding: 'utf8' }),
          ),
        );
    for (const [name, values] of Object.entries(runs))
      console.log(
        `${name}: hash + open ${Math.round(median(values.map((v) => v.open)))} ms, ` +
          `whole read ${Math.round(median(values.map((v) => v.read)))} ms (30,000 invoices, medians of 5)`,
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
