/**
 * What the intake tells an operator about two everyday mistakes: a file deleted from the inbox after it
 * was taken (its report must say nothing of it was sent, not the file system's raw error and the inbox's
 * absolute path), and a document refused at intake (its `document final` error line, the line operators
 * watch, must say which document of the export and where, as its errors.csv row does, not only `#0`).
 * Real files, real SQLite ledger, the shipped sales mapping, intakeFile in-process and on the worker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { intakeFile, type IntakeContext } from '../../src/intake/intake.js';
import type { IntakeReader } from '../../src/intake/intake-reader.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { builtIntakeReader } from '../helpers/built-reader.js';
import { invoiceIntakeConfig, testIntakeContext } from '../helpers/intake-config.js';
import { sale, toCsv } from '../map/helpers.js';

const root = path.join(import.meta.dirname, '../..');
const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp(worker = false) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-intake-operator-'));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { config, inbox } = await invoiceIntakeConfig(dir);
  const ledger = Ledger.open(config.paths.state);
  closers.push(() => ledger.close());
  const logFile = path.join(dir, 'edoc-bridge.log');
  const logger = createLogger({ file: logFile, level: 'info' });
  closers.push(() => logger.close());
  let reader: IntakeReader | undefined;
  if (worker) {
    reader = await builtIntakeReader(logger, { stuckAfterMs: () => 30_000 });
    closers.push(() => reader?.close());
  }
  const mapping: Mapping = await loadMapping(path.join(root, 'config/mappings/sales.csv.yaml'));
  const ctx: IntakeContext = {
    ...testIntakeContext({ ledger, config, logger }),
    ...(reader ? { reader } : {}),
    mapping: async () => mapping,
  };
  return { ctx, ledger, logger, logFile, inbox, company: config.companies[0], mapping };
}

describe('a file deleted from the inbox while it is read', () => {
  for (const where of ['in-process', 'worker'] as const) {
    it(`reports that it disappeared and nothing of it was sent (${where})`, async () => {
      const { ctx, ledger, inbox, company, mapping } = await setUp(where === 'worker');
      const file = path.join(inbox, 'ventas.csv');
      fs.writeFileSync(file, toCsv([sale('990001001', '1'), sale('990001002', '1')]));
      // the worker's errors are the built code's classes: its intakeFile reads them (the daemon's case)
      const take =
        where === 'worker'
          ? (
              (await import(pathToFileURL(path.join(root, 'dist/intake/intake.js')).href)) as {
                intakeFile: typeof intakeFile;
              }
            ).intakeFile
          : intakeFile;
      // hashed and recorded, then deleted before the reader opens it
      const taken = await take(
        {
          ...ctx,
          mapping: async () => {
            fs.rmSync(file);
            return mapping;
          },
        },
        { path: file, kind: 'invoice', company },
      );
      expect(taken.outcome).toBe('failed-read');
      const rec = await ledger.getFile(taken.fileId!);
      expect(rec?.error?.code).toBe('EDOC_READ_CHANGED');
      expect(rec?.error?.message).toBe(
        'ventas.csv disappeared while it was read: nothing of it was sent. Drop it again to send it.',
      );
      expect(await ledger.sql.all('SELECT id FROM documents')).toEqual([]);
    });
  }
});

describe('a file that cannot be read', () => {
  it('is named in its report as it was dropped, not by its inbox path (gone once archived)', async () => {
    const { ctx, ledger, inbox, company } = await setUp();
    const file = path.join(inbox, 'ventas.csv');
    fs.writeFileSync(file, '');
    const taken = await intakeFile(ctx, { path: file, kind: 'invoice', company });
    expect(taken.outcome).toBe('failed-read');
    expect((await ledger.getFile(taken.fileId!))?.error).toMatchObject({
      code: 'EDOC_READ_EMPTY',
      message: 'ventas.csv is empty',
    });
  });
});

describe('the log line of a document refused at intake', () => {
  it('names its key columns, its rows, the column and the problem', async () => {
    const { ctx, logger, logFile, inbox, company } = await setUp();
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
    const taken = await intakeFile(ctx, { path: file, kind: 'invoice', company });
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
