/**
 * Issue 12 item 5, the CSV side: a mapping's `kindCheck` names the columns of
 * an export that show what a document is; a document whose rows show another
 * kind than its folder's is invalid, names its rows, the column and the folder
 * it belongs in, and gets no request.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isEdocError } from '../../src/errors.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { EXAMPLES, mapping, readAll, sale, tempFile, toCsv } from './helpers.js';

const base = {
  name: 'erp-with-type',
  kinds: ['invoice', 'credit-note', 'debit-note'],
  key: ['numero'],
  document: {
    SerieNumber: { column: 'numero', required: true },
    ReasonCredit: { column: 'motivo', kinds: ['credit-note'] },
  },
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

describe('kindCheck when the mapping loads', () => {
  it('refuses an unknown kind, naming the key path', async () => {
    expect(
      await loadError({ ...base, kindCheck: [{ column: 'tipo', values: { NC: 'credit' } }] }),
    ).toMatch(/kindCheck\[0\]\.values\.NC: unknown kind "credit" \(one of invoice, credit-note/);
    expect(
      await loadError({ ...base, kindCheck: [{ column: 'motivo', filled: ['invoice', 'notes'] }] }),
    ).toMatch(/kindCheck\[0\]\.filled\[1\]: unknown kind "notes"/);
  });

  it('takes exactly one of filled or values', async () => {
    expect(await loadError({ ...base, kindCheck: [{ column: 'motivo' }] })).toMatch(
      /kindCheck\[0\]: takes exactly one of filled/,
    );
    expect(
      await loadError({
        ...base,
        kindCheck: [{ column: 'm', filled: ['invoice'], values: { X: 'invoice' } }],
      }),
    ).toMatch(/kindCheck\[0\]: takes exactly one/);
  });

  it('refuses a value listed twice (values match case-insensitively), an empty value, an unknown key', async () => {
    expect(
      await loadError({
        ...base,
        kindCheck: [{ column: 't', values: { NC: 'credit-note', nc: 'debit-note' } }],
      }),
    ).toMatch(/listed twice/);
    expect(
      await loadError({ ...base, kindCheck: [{ column: 't', values: { ' ': 'credit-note' } }] }),
    ).toMatch(/use filled/);
    expect(
      await loadError({ ...base, kindCheck: [{ column: 't', filled: ['invoice'], when: 'x' }] }),
    ).toMatch(/kindCheck/);
  });

  it("the shipped sales mapping checks the reason, the reference and the notes' prefixes", async () => {
    expect((await mapping('sales')).kindCheck?.map((c) => c.column)).toEqual([
      'motivo',
      'ref_documento',
      'ref_cufe',
      'prefijo',
    ]);
  });
});

describe('kindCheck on the documents of an export', () => {
  it('the credit-note example dropped in the invoice folder is invalid, names its rows and the credit-note folder, and has no request', async () => {
    const { docs } = await readAll(
      join(EXAMPLES, 'credit-notes.csv'),
      await mapping('sales'),
      'invoice',
    );
    expect(docs).toHaveLength(1);
    expect(docs[0].request).toBeUndefined();
    expect(docs[0].problems.map((p) => [p.code, p.column, p.value, p.rows])).toEqual([
      ['EDOC_VALIDATE_WRONG_FOLDER', 'motivo', 'Devolución parcial de mercancía', [2, 3]],
      ['EDOC_VALIDATE_WRONG_FOLDER', 'ref_documento', 'SETP990000101', [2, 3]],
      ['EDOC_VALIDATE_WRONG_FOLDER', 'prefijo', 'NC', [2, 3]],
    ]);
    expect(docs[0].problems[0].message).toBe(
      'rows 2-3: "Devolución parcial de mercancía" in column "motivo" makes this a credit note or a debit note, not an invoice; it is not sent: drop it in the credit-note folder instead of the invoice folder',
    );
  });

  it('the debit-note example dropped in the credit-note folder is named a debit note by its prefix', async () => {
    const { docs } = await readAll(
      join(EXAMPLES, 'debit-notes.csv'),
      await mapping('sales'),
      'credit-note',
    );
    expect(docs[0].request).toBeUndefined();
    expect(docs[0].problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_VALIDATE_WRONG_FOLDER',
        column: 'prefijo',
        value: 'ND',
        rows: [2, 3],
      }),
    ]);
    expect(docs[0].problems[0].message).toBe(
      'rows 2-3: "ND" in column "prefijo" makes this a debit note, not a credit note; it is not sent: drop it in the debit-note folder instead of the credit-note folder',
    );
  });

  it('every example is at home in its own folder', async () => {
    for (const [file, kind] of [
      ['invoices.csv', 'invoice'],
      ['credit-notes.csv', 'credit-note'],
      ['debit-notes.csv', 'debit-note'],
    ] as const) {
      const { docs } = await readAll(join(EXAMPLES, file), await mapping('sales'), kind);
      expect(
        docs.flatMap((d) => d.problems),
        file,
      ).toEqual([]);
    }
  });

  it('only the documents that show another kind are invalid; the others in the file are built', async () => {
    const csv = toCsv([sale('1', '1'), sale('2', '1', { motivo: 'Devolución' }), sale('3', '1')], {
      columns: [
        'prefijo',
        'numero',
        'fecha',
        'hora',
        'cliente_tipo_doc',
        'cliente_doc',
        'cliente_nombre',
        'linea',
        'descripcion',
        'cantidad',
        'precio_unitario',
        'iva',
        'motivo',
      ],
    });
    const { docs } = await readAll(
      await tempFile('mixed.csv', csv),
      await mapping('sales'),
      'invoice',
    );
    expect(docs.map((d) => d.problems.map((p) => p.code))).toEqual([
      [],
      ['EDOC_VALIDATE_WRONG_FOLDER'],
      [],
    ]);
    expect(docs[1].problems[0].message).toMatch(
      /^row 3: "Devolución" in column "motivo" makes this a credit note or a debit note, not an invoice; it is not sent: drop it in the credit-note or the debit-note folder instead of the invoice folder$/,
    );
    expect(docs[0].request).toBeDefined();
    expect(docs[2].request).toBeDefined();
  });

  it('an ERP document-type column names the kind (case-insensitive); other values and a missing column show nothing', async () => {
    const m = await load({
      ...base,
      kindCheck: [
        {
          column: 'tipo_documento',
          values: { FV: 'invoice', NC: 'credit-note', ND: ['debit-note'] },
        },
      ],
    });
    const csv =
      'numero;tipo_documento;motivo\r\n1;fv;\r\n2;nc;Anulación\r\n3;Nd;Intereses\r\n4;XX;\r\n';
    const { docs } = await readAll(await tempFile('t.csv', csv), m, 'credit-note');
    expect(docs.map((d) => d.problems.map((p) => p.value))).toEqual([['fv'], [], ['Nd'], []]);
    expect(docs[0].problems[0].message).toContain(
      'makes this an invoice, not a credit note; it is not sent: drop it in the invoice folder',
    );
    const without = await readAll(
      await tempFile('u.csv', 'numero;motivo\r\n1;x\r\n'),
      m,
      'credit-note',
    );
    expect(without.docs[0].problems).toEqual([]);
  });

  it('signals that contradict each other name no folder: the export must be corrected', async () => {
    const m = await load({
      ...base,
      kindCheck: [
        { column: 'tipo', values: { NC: 'credit-note' } },
        { column: 'prefijo', values: { ND: 'debit-note' } },
      ],
    });
    const { docs } = await readAll(
      await tempFile('c.csv', 'numero;tipo;prefijo\r\n1;NC;ND\r\n'),
      m,
      'invoice',
    );
    expect(docs[0].problems.map((p) => p.code)).toEqual([
      'EDOC_VALIDATE_KIND',
      'EDOC_VALIDATE_KIND',
    ]);
    expect(docs[0].problems[0].message).toBe(
      'row 2: "NC" in column "tipo" makes this a credit note, not an invoice, but "ND" in column "prefijo" says a debit note; it is not sent: correct the document',
    );
  });
});
