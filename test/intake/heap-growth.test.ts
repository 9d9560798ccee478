/**
 * The old generation grows slowly (V8's `--heap-growing-percent=20`) only while a file of LARGE_READ bytes
 * or more is being read, once the send path asked for it (intake/heap-growth.ts); V8's own growth
 * between such reads. The bookkeeping alone, then intakeFile in-process over real files and a real
 * SQLite ledger: slow while a large export is read, whether its read ends well or is refused, and not
 * while a small one is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  betweenLargeReads,
  growsSlowly,
  LARGE_READ,
  readingFile,
} from '../../src/intake/heap-growth.js';
import { intakeFile } from '../../src/intake/intake.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { intakeSetUp, testIntakeContext } from '../helpers/intake-config.js';
import { sale, toCsv } from '../map/helpers.js';

const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('the old generation grows slowly only while a large export is read', () => {
  it('counts the large files being read, each until its read ends, once', () => {
    // this test file's process: before betweenLargeReads nothing changes whatever is read
    const early = readingFile(LARGE_READ);
    expect(growsSlowly()).toBe(true);
    early();
    betweenLargeReads();
    expect(growsSlowly()).toBe(false);

    // small files do not count, however many
    const smalls = Array.from({ length: 40 }, () => readingFile(LARGE_READ - 1));
    expect(growsSlowly()).toBe(false);
    const one = readingFile(LARGE_READ);
    expect(growsSlowly()).toBe(true);
    const two = readingFile(LARGE_READ * 100);
    one();
    expect(growsSlowly()).toBe(true);
    one(); // a second call changes nothing (it would count the file off twice)
    expect(growsSlowly()).toBe(true);
    two();
    expect(growsSlowly()).toBe(false);
    for (const done of smalls) done();
    expect(growsSlowly()).toBe(false);
  });

  it('intake: slow while a large file is read, whether it is read or refused; not for a small one', async () => {
    betweenLargeReads();
    const { config, inbox, ledger, logger } = await intakeSetUp('edoc-heap-growth-', closers);
    const company = config.companies[0];
    // checkNumber runs on every batch the intake stores: it sees the setting in the middle of the read
    const seen: boolean[] = [];
    // the shipped sales mapping: a decimal comma, thousands by points
    const sales = await loadMapping(
      path.join(import.meta.dirname, '../../config/mappings/sales.csv.yaml'),
    );
    const ctx = {
      ...testIntakeContext({ ledger, config, logger }),
      mapping: async () => sales,
      checkNumber: () => {
        seen.push(growsSlowly());
        return undefined;
      },
    };

    // 42 invoices of 20 lines, each row carrying a 2,000-character column the mapping does not read:
    // 840 rows of more than 2,000 bytes, so the file is larger than LARGE_READ (1 MiB)
    const filler = 'x'.repeat(2_000);
    const rows = Array.from({ length: 42 * 20 }, (_, i) => ({
      ...sale(String(990001001 + Math.floor(i / 20)), String((i % 20) + 1)),
      relleno: filler,
    }));
    const large = path.join(inbox, 'grande.csv');
    fs.writeFileSync(large, toCsv(rows));
    expect(fs.statSync(large).size).toBeGreaterThan(LARGE_READ);
    const read = await intakeFile(ctx, { path: large, kind: 'invoice', company });
    expect(read.outcome).toBe('read');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s)).toBe(true);
    expect(growsSlowly()).toBe(false);

    // the same size refused whole at its last row, before its one batch is stored: a price with a
    // decimal point (the mapping reads a decimal comma), EDOC_MAP_FORMAT_MISMATCH
    const again: Record<string, string>[] = rows.map((r, i) => ({
      ...r,
      numero: String(990002001 + Math.floor(i / 20)),
    }));
    again[again.length - 1].precio_unitario = '12.50';
    const refused = path.join(inbox, 'grande-2.csv');
    fs.writeFileSync(refused, toCsv(again));
    const failed = await intakeFile(ctx, { path: refused, kind: 'invoice', company });
    expect(failed.outcome).toBe('failed-read');
    expect(growsSlowly()).toBe(false);

    // a small file: V8's own growth all along
    seen.length = 0;
    const small = path.join(inbox, 'pequeno.csv');
    fs.writeFileSync(small, toCsv([sale('990003001', '1')]));
    expect((await intakeFile(ctx, { path: small, kind: 'invoice', company })).outcome).toBe('read');
    expect(seen).toEqual([false]);
  });
});
