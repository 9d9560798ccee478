/**
 * Stages flow one way (docs/architecture.md, "Flow"): an import may point at its own layer or one below,
 * and only the layers that own a state change use the ledger's operations. The list of arrows against
 * the flow must equal the allowlist below; `node scripts/flow-arrows.mjs` prints it for any src folder.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  arrowKey,
  flowArrows,
  importCycles,
  importsOf,
  LAYERS,
} from '../../scripts/flow-arrows.mjs';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Arrows against the flow that stay for now, each with its reason. Keep it empty or near empty. */
const ALLOWED: Record<string, string> = {};

describe('import arrows against the flow', () => {
  it('every folder and top-level file of src/ has a layer', () => {
    const tops = readdirSync(SRC).map((name) => name.replace(/\.ts$/, ''));
    expect(tops.filter((top) => !LAYERS.includes(top))).toEqual([]);
  });

  it('src/ has none but the allowlisted ones (type imports included)', () => {
    const found = flowArrows(SRC).map((a) => `${arrowKey(a)} (${a.why})`);
    const allowed = Object.keys(ALLOWED);
    expect(found.filter((a) => !allowed.some((key) => a.startsWith(`${key} (`)))).toEqual([]);
    // an entry whose arrow is gone is dropped from the list, so the list only shrinks
    expect(allowed.filter((key) => !found.some((a) => a.startsWith(`${key} (`)))).toEqual([]);
  });

  it('src/ has no import cycle between files (type imports included)', () => {
    expect(importCycles(SRC)).toEqual([]);
  });
});

describe('the flow measure itself', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'edoc-flow-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  write('errors.ts', 'export class EdocError extends Error {}\n');
  write('ledger/types.ts', 'export interface FileRow { id: number }\n');
  write(
    'ledger/ledger.ts',
    "import { EdocError } from '../errors.js';\nexport class Ledger { e = EdocError; }\n",
  );
  write('ledger/index.ts', "export * from './types.js';\nexport { Ledger } from './ledger.js';\n");
  write(
    'report/rows.ts',
    "import type { FileRow } from '../ledger/types.js';\nexport type R = FileRow;\n",
  );
  write(
    'report/writer.ts',
    "import type { Ledger } from '../ledger/ledger.js';\nexport type W = Ledger;\n",
  );
  write(
    'report/barrel.ts',
    "import type {\n  FileRow,\n} from '../ledger/index.js';\nexport type B = FileRow;\n",
  );
  write(
    'submit/sender.ts',
    "import { Ledger } from '../ledger/ledger.js';\nexport const s = Ledger;\n",
  );
  write('ledger/names.ts', "export { x } from '../report/x.js';\n");
  write('report/x.ts', 'export const x = 1;\n');
  write('watch/later.ts', "export async function f() { return import('../read/r.js'); }\n");
  write('read/r.ts', "import './side-effect.js';\n");
  write('read/side-effect.ts', "import { r } from './r.js';\nexport const y = r;\n");
  write('gadgets/g.ts', "import { EdocError } from '../errors.js';\nexport const g = EdocError;\n");

  it('finds type-only, multi-line, re-export, dynamic and side-effect imports', () => {
    const edges = importsOf(root).map(arrowKey);
    expect(edges).toEqual(
      expect.arrayContaining([
        'report/writer.ts -> ledger/ledger.ts',
        'report/barrel.ts -> ledger/index.ts',
        'ledger/names.ts -> report/x.ts',
        'watch/later.ts -> read/r.ts',
        'read/r.ts -> read/side-effect.ts',
      ]),
    );
  });

  it('counts an arrow up the layers and a ledger operation outside the state owners, not a record type', () => {
    const arrows = flowArrows(root)
      .map((a) => `${arrowKey(a)} (${a.why})`)
      .sort();
    expect(arrows).toEqual([
      'gadgets/g.ts -> errors.ts (unknown-layer)',
      'ledger/names.ts -> report/x.ts (upstream)',
      'report/barrel.ts -> ledger/index.ts (ledger-operation)',
      'report/writer.ts -> ledger/ledger.ts (ledger-operation)',
      'watch/later.ts -> read/r.ts (upstream)',
    ]);
  });

  it('finds a cycle between files', () => {
    expect(importCycles(root)).toEqual([['read/r.ts', 'read/side-effect.ts']]);
  });
});
