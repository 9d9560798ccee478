/**
 * A file deleted from the inbox after it was taken and before it was read (the operator removes a drop
 * they regret, the ERP deletes and rewrites its export): nothing of it was sent, and its report must say so
 * in words, not with the file system's raw error and the inbox's absolute path.
 * Real files, real SQLite ledger, the shipped sales mapping, intakeFile in-process and on the worker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { intakeFile, type IntakeContext } from '../../src/intake/intake.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { builtIntakeReader } from '../helpers/built-reader.js';
import { invoiceIntakeConfig, testIntakeContext } from '../helpers/intake-config.js';
import { sale, toCsv } from '../map/helpers.js';

const root = path.join(import.meta.dirname, '../..');
const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('a file deleted from the inbox while it is read', () => {
  for (const where of ['in-process', 'worker'] as const) {
    it(`reports that it disappeared and nothing of it was sent (${where})`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-intake-gone-'));
      closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      const { config, inbox } = await invoiceIntakeConfig(dir);
      const ledger = Ledger.open(config.paths.state);
      closers.push(() => ledger.close());
      const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'info' });
      closers.push(() => logger.close());
      const reader =
        where === 'worker'
          ? await builtIntakeReader(logger, { stuckAfterMs: () => 30_000 })
          : undefined;
      if (reader) closers.push(() => reader.close());
      const ctx = testIntakeContext({ ledger, config, logger });
      const mapping = await loadMapping(path.join(root, 'config/mappings/sales.csv.yaml'));
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
          ...(reader ? { reader } : {}),
          mapping: async () => {
            fs.rmSync(file);
            return mapping;
          },
        } satisfies IntakeContext,
        { path: file, kind: 'invoice', company: config.companies[0] },
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
