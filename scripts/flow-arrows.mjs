// Import arrows that run against the flow, and import cycles, in a src folder (docs/architecture.md, "Flow").
// Usage: node scripts/flow-arrows.mjs [srcDir]   (default: ./src). test/architecture/flow.test.ts asserts on the same lists.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Layers from the bottom up; an import may point at its own layer or one below it (docs/architecture.md, "Flow").
 * Libraries first (the error catalogue, pure policies, the logger, the wire contract, the kind descriptors, the
 * business rules), then the stages in the order a document goes through them, then the wiring.
 */
export const LAYERS = [
  'errors',
  'policy',
  'log',
  'storage',
  'service',
  'health',
  'rate',
  'validate',
  'kinds',
  'watch',
  'map',
  'read',
  'config',
  'ledger',
  'ledger-copy',
  'cluster',
  'submit',
  'report',
  'received',
  'ranges',
  'company',
  'intake',
  'alerts',
  'emulator',
  'http',
  'daemon',
  'root',
  'cli',
];

/** Layers that own a document's or file's state change and so may use the ledger's operations. */
export const LEDGER_WRITERS = [
  'ledger',
  'ledger-copy',
  'cluster',
  'submit',
  'received',
  'ranges',
  'company',
  'intake',
  'http',
  'daemon',
  'root',
  'cli',
];

/** The ledger's record shapes, which any stage may read; everything else in ledger/ is an operation. */
export const LEDGER_RECORDS = ['ledger/types.ts'];

/**
 * Files whose layer is not their folder's: vocabulary every layer speaks. The names of the document kinds (the one
 * list, `DocumentKind`, `parseKind`, their labels) sit with the pure policies; the descriptors of kinds/ sit above
 * the business rules they name.
 */
export const FILE_LAYERS = { 'kinds/names.ts': 'policy' };

/** `errors.ts` → errors, `map/derive/x.ts` → map; undefined for a folder that has no layer. */
export function layerOf(rel) {
  if (Object.hasOwn(FILE_LAYERS, rel)) return FILE_LAYERS[rel];
  const top = rel.split('/')[0].replace(/\.ts$/, '');
  return LAYERS.includes(top) ? top : undefined;
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function resolve(srcDir, fromFile, spec) {
  if (!spec.startsWith('.')) return undefined;
  let target = path.resolve(path.dirname(fromFile), spec);
  if (target.endsWith('.js')) target = `${target.slice(0, -3)}.ts`;
  else if (path.extname(target) === '') target = path.join(target, 'index.ts'); // a folder: its index
  // any other extension (.ts, .json) names the file itself
  const rel = path.relative(srcDir, target);
  return rel.startsWith('..') ? undefined : rel.split(path.sep).join('/');
}

/** Every relative import between files of `srcDir` (static, type-only, re-exports and dynamic), one per pair. */
export function importsOf(srcDir) {
  const root = path.resolve(srcDir);
  const edges = [];
  for (const file of walk(root)) {
    const from = path.relative(root, file).split(path.sep).join('/');
    const seen = new Set();
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const to = resolve(root, file, ref.fileName);
      if (to === undefined || seen.has(to)) continue;
      seen.add(to);
      edges.push({ from, to });
    }
  }
  return edges;
}

/**
 * Arrows against the flow: `upstream` when the imported file's layer is above the importer's, `unknown-layer`
 * when either file is in a folder with no layer, `ledger-operation` when a layer that owns no state change
 * imports anything of ledger/ but its record shapes.
 */
export function flowArrows(srcDir) {
  const arrows = [];
  for (const { from, to } of importsOf(srcDir)) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a === undefined || b === undefined) arrows.push({ from, to, why: 'unknown-layer' });
    else if (LAYERS.indexOf(b) > LAYERS.indexOf(a)) arrows.push({ from, to, why: 'upstream' });
    else if (b === 'ledger' && !LEDGER_WRITERS.includes(a) && !LEDGER_RECORDS.includes(to)) {
      arrows.push({ from, to, why: 'ledger-operation' });
    }
  }
  return arrows;
}

/** Import cycles between files (type imports included): each strongly connected group of two or more, or a self-import. */
export function importCycles(srcDir) {
  const next = new Map();
  for (const { from, to } of importsOf(srcDir)) {
    if (!next.has(from)) next.set(from, []);
    next.get(from).push(to);
  }
  // Tarjan's strongly connected components
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  let counter = 0;
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(group.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/** `from → to (why)` lines, as the test's allowlist writes them. */
export function arrowKey(arrow) {
  return `${arrow.from} -> ${arrow.to}`;
}

if (
  process.argv[1] !== undefined &&
  path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
) {
  const srcDir = process.argv[2] ?? 'src';
  const arrows = flowArrows(srcDir);
  const folders = new Map();
  for (const a of arrows) {
    const key = `${a.from.split('/')[0].replace(/\.ts$/, '')} -> ${a.to.split('/')[0].replace(/\.ts$/, '')} (${a.why})`;
    folders.set(key, (folders.get(key) ?? 0) + 1);
  }
  const lines = arrows.map((a) => `${arrowKey(a)}  (${a.why})`);
  lines.push(
    '',
    `${arrows.length} import arrows against the flow (file to file), ${folders.size} folder edges:`,
  );
  for (const [key, n] of [...folders].sort()) lines.push(`  ${key}: ${n}`);
  const cycles = importCycles(srcDir);
  lines.push('', `${cycles.length} import cycles`, ...cycles.map((c) => `  ${c.join(' <-> ')}`));
  process.stdout.write(`${lines.join('\n')}\n`);
}
