/**
 * A file whose read was cut (a stop between batches, a crash, a lease lost to another node) is read
 * again from its first row, and the mapping may have changed in between: the operator fixed its format
 * and restarted, a reload, another node's configuration. The documents of the file must all come from
 * one read: what the first attempt stored is removed, never released beside the second read's.
 * Real files, real SQLite ledger, real mappings, intakeFile in-process; figures worked by hand.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INSERT_BATCH } from '../../src/intake/intake-documents.js';
import { intakeFile, type IntakeContext } from '../../src/intake/intake.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { intakeSetUp, testIntakeContext } from '../helpers/intake-config.js';
import { sale, toCsv } from '../map/helpers.js';

const root = path.join(import.meta.dirname, '../..');
const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('a file read again after its read was cut', () => {
  it('under a mapping fixed in between: every document is read by the fixed one', async () => {
    const { dir, config, inbox, ledger, logger } = await intakeSetUp('edoc-intake-again-', closers);
    const ctx = testIntakeContext({ ledger, config, logger });
    const company = config.companies[0];

    // the shipped sales mapping reads a decimal comma; the fixed one a decimal point
    const commaFile = path.join(root, 'config/mappings/sales.csv.yaml');
    const pointFile = path.join(dir, 'sales-point.csv.yaml');
    const yaml = fs.readFileSync(commaFile, 'utf8');
    fs.writeFileSync(
      pointFile,
      yaml.replace('decimal: ","', 'decimal: "."').replace('thousands: "."', 'thousands: ","'),
    );
    const comma = await loadMapping(commaFile);
    const point = await loadMapping(pointFile);

    // an export with a decimal point: INSERT_BATCH + 100 invoices of 1 × 1.250 (meant 1.25; under the
    // decimal comma 1250), then one of 1 × 12.50 (the row that shows the point, row INSERT_BATCH + 102)
    const count = INSERT_BATCH + 100;
    const rows = Array.from({ length: count }, (_, i) =>
      sale(String(990001001 + i), '1', { precio_unitario: '1.250' }),
    );
    rows.push(sale(String(990001001 + count), '1', { precio_unitario: '12.50' }));
    const file = path.join(inbox, 'ventas.csv');
    fs.writeFileSync(file, toCsv(rows));

    // first attempt, under the decimal comma: stopped after its first batch was stored
    const stop = new AbortController();
    const first = await intakeFile(
      {
        ...ctx,
        mapping: async () => comma,
        signal: stop.signal,
        checkNumber: () => {
          stop.abort();
          return undefined;
        },
      } satisfies IntakeContext,
      { path: file, kind: 'invoice', company },
    );
    expect(first.outcome).toBe('interrupted');
    const prices = async (): Promise<number[]> =>
      (
        await ledger.sql.all<{ request: string }>(
          'SELECT b.request FROM documents d JOIN document_bodies b ON b.id = d.id ORDER BY d.idx',
        )
      )
        .map((r) => JSON.parse(r.request) as { Lines: { UnitPrice: string }[] })
        .map((r) => Number(r.Lines[0].UnitPrice));
    // the first batch stored as the comma reads it: 1.250 = 1250
    expect(await prices()).toEqual(Array.from({ length: INSERT_BATCH }, () => 1250));

    // the mapping fixed, the file taken again: read to the end under the decimal point
    const again = await intakeFile(
      { ...ctx, mapping: async () => point },
      { path: file, kind: 'invoice', company },
    );
    expect(again).toEqual({ fileId: first.fileId, outcome: 'read' });
    expect(await ledger.getFile(first.fileId!)).toMatchObject({ state: 'open', total: count + 1 });
    // every document as the point reads it, none of the first attempt's 1250s released
    expect(await prices()).toEqual([...Array.from({ length: count }, () => 1.25), 12.5]);
    const [event] = await ledger.sql.all<{ data: string }>(
      "SELECT data FROM events WHERE type = 'file-read-again'",
    );
    expect(JSON.parse(event.data)).toEqual({ removed: INSERT_BATCH });
  });
});
