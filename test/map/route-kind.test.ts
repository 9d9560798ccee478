/**
 * A mapping's `route` (one export, several kinds) as the mapping loads and as the reader maps an
 * export: the kinds it routes to are checked at load; each document is built as its routed kind; the
 * route column is required in the header.
 */
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isEdocError } from '../../src/errors.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { readAll, tempFile, toCsv } from './helpers.js';

const base = {
  name: 'mixed',
  kinds: ['invoice', 'credit-note'],
  key: ['numero'],
  document: {
    SerieNumber: { column: 'numero', required: true },
    ReasonCredit: { column: 'motivo', required: true, kinds: ['credit-note'] },
  },
  route: { column: 'tipo', values: { FV: 'invoice', NC: 'credit-note' } },
};

async function load(data: unknown) {
  const file = await tempFile('m.yaml', '');
  await writeFile(file, stringify(data));
  return loadMapping(file);
}

async function loadError(data: unknown): Promise<string> {
  const err = await load(data).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isEdocError(err, 'EDOC_MAPPING_INVALID')).toBe(true);
  return (err as Error).message;
}

describe('route when the mapping loads', () => {
  it("refuses an unknown kind, a kind outside the mapping's kinds, a value listed twice, no value", async () => {
    expect(
      await loadError({ ...base, route: { column: 'tipo', values: { NC: 'credit' } } }),
    ).toMatch(/route\.values\.NC: unknown kind "credit"/);
    expect(
      await loadError({ ...base, route: { column: 'tipo', values: { ND: 'debit-note' } } }),
    ).toMatch(
      /route\.values\.ND: routes to debit-note, which is not among the mapping's kinds \(invoice, credit-note\)/,
    );
    expect(
      await loadError({
        ...base,
        route: { column: 'tipo', values: { NC: 'credit-note', nc: 'invoice' } },
      }),
    ).toMatch(/listed twice/);
    expect(await loadError({ ...base, route: { column: 'tipo', values: {} } })).toMatch(
      /route\.values: lists no value/,
    );
  });
});

describe('route on the documents of an export', () => {
  it('builds each document as its routed kind: the credit note carries its reason, the invoice none; values match case-insensitively', async () => {
    const m = await load(base);
    const file = await tempFile(
      'mixed.csv',
      toCsv([
        { tipo: 'FV', numero: '1', motivo: '' },
        { tipo: ' nc ', numero: '2', motivo: 'Devolución' },
      ]),
    );
    const { docs } = await readAll(file, m, 'invoice');
    expect(docs.map((d) => [d.kind, d.request, d.problems])).toEqual([
      ['invoice', { SerieNumber: '1' }, []],
      ['credit-note', { SerieNumber: '2', ReasonCredit: 'Devolución' }, []],
    ]);
  });

  it('a blank route cell is refused naming the column and row; the route column is required in the header', async () => {
    const m = await load(base);
    const { docs } = await readAll(
      await tempFile('blank.csv', toCsv([{ tipo: '', numero: '3', motivo: '' }])),
      m,
      'invoice',
    );
    expect(docs[0].request).toBeUndefined();
    expect(docs[0].problems).toEqual([
      expect.objectContaining({ code: 'EDOC_MAP_ROUTE', column: 'tipo', value: '', rows: [2] }),
    ]);
    expect(docs[0].problems[0].message).toBe(
      'Column "tipo" is empty on row 2: it must name the document\'s kind (FV, NC)',
    );
    const err = await readAll(
      await tempFile('no-route.csv', toCsv([{ numero: '4', motivo: '' }])),
      m,
      'invoice',
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isEdocError(err, 'EDOC_MAP_MISSING_COLUMN')).toBe(true);
    expect((err as Error).message).toMatch(
      /Column "tipo" missing from the header of no-route\.csv/,
    );
  });

  it('kindCheck applies against the routed kind: an FV row with a reason is refused, its route column named as the contradicting sign', async () => {
    const m = await load({ ...base, kindCheck: [{ column: 'motivo', filled: ['credit-note'] }] });
    const { docs } = await readAll(
      await tempFile(
        'fv-reason.csv',
        toCsv([
          { tipo: 'FV', numero: '5', motivo: 'Devolución' },
          { tipo: 'NC', numero: '6', motivo: 'Devolución' },
        ]),
      ),
      m,
      'invoice',
    );
    expect(docs[0].request).toBeUndefined();
    // the route column says invoice, the reason says credit note: no folder to name, the document is to be corrected
    expect(docs[0].problems).toEqual([
      expect.objectContaining({ code: 'EDOC_VALIDATE_KIND', column: 'motivo', rows: [2] }),
    ]);
    expect(docs[0].problems[0].message).toBe(
      'row 2: "Devolución" in column "motivo" makes this a credit note, not an invoice, ' +
        'but "FV" in column "tipo" says an invoice; it is not sent: correct the document',
    );
    expect([docs[1].kind, docs[1].problems]).toEqual(['credit-note', []]);
  });

  it('only the filled route cells of a document name its kind: a continuation row may leave the column blank', async () => {
    const m = await load(base);
    const { docs } = await readAll(
      await tempFile(
        'continued.csv',
        toCsv([
          { tipo: 'NC', numero: '7', motivo: 'Devolución' },
          { tipo: '', numero: '7', motivo: 'Devolución' },
        ]),
      ),
      m,
      'invoice',
    );
    expect(docs.map((d) => [d.kind, d.source.rows, d.problems])).toEqual([
      ['credit-note', [2, 3], []],
    ]);
  });
});
