import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { EdocError, type ErrorCode } from '../../src/errors.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import type { SourceDocument } from '../../src/read/source-document.js';

export const FIXTURES = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'read',
);
export const COMPANY = { alias: 'main', nit: '900123456' };

export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'edoc-read-'));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export async function all(documents: AsyncIterable<SourceDocument>): Promise<SourceDocument[]> {
  const out: SourceDocument[] = [];
  for await (const doc of documents) out.push(doc);
  return out;
}

/** The EdocError a promise rejects with (fails when it resolves or throws something else). */
export async function edocError(promise: Promise<unknown>, code: ErrorCode): Promise<EdocError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof EdocError && err.code === code) return err;
    throw err;
  }
  throw new Error(`expected ${code}, but it succeeded`);
}

/**
 * The shipped sales mapping and a temp folder for a test file's spreadsheets, ready before its tests
 * and removed after; `read` maps one file as the daemon reads it (openSource, kind invoice).
 */
export function salesSheets(): {
  file: (name: string) => string;
  read: (file: string) => Promise<SourceDocument[]>;
} {
  let mapping: Mapping;
  let dir: string;
  beforeAll(async () => {
    mapping = await loadMapping(
      path.join(import.meta.dirname, '..', '..', 'config', 'mappings', 'sales.csv.yaml'),
    );
    dir = await tempDir();
  });
  afterAll(async () => {
    await removeDir(dir);
  });
  return {
    file: (name) => path.join(dir, name),
    read: async (file) =>
      all((await openSource(file, 'invoice', { company: COMPANY, mapping })).documents),
  };
}
