import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NewDocument, RecordFileInput } from '../../src/ledger/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES = path.join(here, '..', 'fixtures', 'ledger');

export function tempDir(prefix = 'edoc-ledger-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function fileInput(over: Partial<RecordFileInput> = {}): RecordFileInput {
  return {
    path: '/inbox/invoice/a.json',
    name: 'a.json',
    size: 10,
    sha256: 'aaa',
    kind: 'invoice',
    company: 'main',
    now: 1_000,
    ...over,
  };
}

export function docs(
  n: number,
  over: (i: number) => Partial<NewDocument> = () => ({}),
): NewDocument[] {
  return Array.from({ length: n }, (_, i) => ({
    index: i,
    source: { lines: [i + 1] },
    number: `SETP${990000000 + i}`,
    ownNumber: true,
    request: { Number: i },
    raw: `{"Number":${i}}`,
    ...over(i),
  }));
}

/** Credit note NC/`index + 1`, stored at `index` of its file, naming `written`. */
export function noteAt(index: number, written: string): NewDocument {
  return {
    index,
    source: { rows: [index + 2] },
    number: `NC/${index + 1}`,
    ownNumber: true,
    raw: '',
    kind: 'credit-note',
    references: [written],
  };
}

/** Runs test/fixtures/ledger/hold-ledger.ts in a child and resolves once it printed "ready". */
export function holdLedger(stateDir: string, sending = 0): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      path.join(FIXTURES, 'register.mjs'),
      path.join(FIXTURES, 'hold-ledger.ts'),
      stateDir,
      String(sending),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`hold-ledger exited ${code}: ${err}`)));
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Every item of an async stream (the ledger's document iterators), for assertions on small files. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
