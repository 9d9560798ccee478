import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DocumentRow } from '../../src/ledger/types.js';

export function tempDir(prefix = 'edoc-report-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Everything in `dir` that looks like a temp file of an atomic write. */
export function tempFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'));
}

export function docRow(over: Partial<DocumentRow> = {}): DocumentRow {
  return {
    id: 1,
    fileId: 1,
    index: 0,
    source: { rows: [2] },
    key: 'main/invoice/SETP1',
    ownNumber: true,
    state: 'rejected',
    attempts: 1,
    nextAttemptAt: null,
    resultCode: '99',
    httpStatus: 200,
    errors: [],
    warnings: [],
    problems: [],
    response: null,
    raw: '',
    updatedAt: 0,
    doubt: null,
    maybeDelivered: false,
    ...over,
  };
}
