/**
 * The `document final` error line of a document refused at intake (a cell the mapping cannot read) is
 * the line operators watch (docs/operations.md): it must say which document of the export and where,
 * as its errors.csv row does, not only `#0`. Real files, real SQLite ledger, the shipped sales mapping.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { intakeFile, type IntakeContext } from '../../src/intake/intake.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { invoiceIntakeConfig, testIntakeContext } from '../helpers/intake-config.js';
import { sale, toCsv } from '../map/helpers.js';

const root = path.join(import.meta.dirname, '../..');
const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('the log line of a document refused at intake', () => {
  it('names its key columns, its rows, the column and the problem', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-intake-final-'));
    closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { config, inbox } = await invoiceIntakeConfig(dir);
    const ledger = Ledger.open(config.paths.state);
    closers.push(() => ledger.close());
    const logFile = path.join(dir, 'edoc-bridge.log');
    const logger = createLogger({ file: logFile, level: 'info' });
    const ctx = testIntakeContext({ ledger, config, logger });
    const mapping = await loadMapping(path.join(root, 'config/mappings/sales.csv.yaml'));
    const file = path.join(inbox, 'ventas.csv');
    // rows 2-3: SETP990001001, good; rows 4-5: SETP990001002, its second line's price unreadable
    fs.writeFileSync(
      file,
      toCsv([
        sale('990001001', '1'),
        sale('990001001', '2'),
        sale('990001002', '1'),
        sale('990001002', '2', { precio_unitario: '1.000,0x' }),
      ]),
    );
    const taken = await intakeFile(
      { ...ctx, mapping: async () => mapping } satisfies IntakeContext,
      { path: file, kind: 'invoice', company: config.companies[0] },
    );
    expect(taken.outcome).toBe('read');
    await logger.close();
    const finals = fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('document final'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(finals).toHaveLength(1);
    expect(finals[0]).toMatchObject({
      level: 'error',
      status: 'invalid',
      code: 'EDOC_MAP_BAD_NUMBER',
      erpKey: 'SETP990001002',
      rows: '5',
      field: 'precio_unitario',
    });
    expect(finals[0].note).toContain('"1.000,0x" in column "precio_unitario" is not an amount');
  });
});
