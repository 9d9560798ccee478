/**
 * The validators judge the request a mapping built and name a request path; on a mapped document their
 * problems name the export's column and row instead (map/request-place.ts), through the intake's read
 * (what result.json and errors.csv show) and `validate`. Real files in temporary folders.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDocumentBatches } from '../../src/intake/intake-documents.js';
import type { NewDocument } from '../../src/ledger/types.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { SecretScrubber } from '../../src/log/secrets.js';
import { csvReadJob } from '../helpers/intake-config.js';
import { EXAMPLES, mapping, readAll, sale, tempFile, toCsv } from './helpers.js';

const MAPPINGS = join(import.meta.dirname, '../../config/mappings');

async function intakeDocuments(file: string, kind: 'invoice' | 'payroll', mappingFile?: string) {
  const m = mappingFile === undefined ? await mapping('sales') : await loadMapping(mappingFile);
  const job = { ...csvReadJob(file, m), kind };
  const read = await readDocumentBatches(job, new SecretScrubber([]));
  const out: NewDocument[] = [];
  for await (const batch of read.batches) out.push(...batch);
  return out;
}

describe("a mapped document's validation problems name the export's column and row", () => {
  it('a document field: the customer NIT written with a label names column cliente_doc, row 3', async () => {
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1'),
        sale('990000102', '1', { cliente_doc: 'NIT800197268' }),
        sale('990000102', '2', { cliente_doc: 'NIT800197268' }),
      ]),
    );
    const docs = await intakeDocuments(file, 'invoice');
    expect(docs.map((d) => d.problems ?? [])).toEqual([
      [],
      [
        expect.objectContaining({
          code: 'EDOC_VALIDATE_NIT',
          field: 'cliente_doc',
          rows: [3],
        }),
      ],
    ]);
  });

  it('a line field: a quantity the mapping passes as text names column cantidad and the line row', async () => {
    // the reference mapping with Quantity read as text, so the wire schema (not the mapping) judges it
    const yaml = (await readFile(join(MAPPINGS, 'sales.csv.yaml'), 'utf8')).replace(
      'Quantity: { column: cantidad, as: number, required: true }',
      'Quantity: { column: cantidad, required: true }',
    );
    expect(yaml).toContain('Quantity: { column: cantidad, required: true }');
    const mappingFile = await tempFile('sales-text-quantity.yaml', yaml);
    const file = await tempFile(
      'ventas.csv',
      toCsv([
        sale('990000101', '1'),
        sale('990000101', '2', { cantidad: 'dos' }),
        sale('990000101', '3'),
      ]),
    );
    const [doc] = await intakeDocuments(file, 'invoice', mappingFile);
    expect(doc.problems).toEqual([
      expect.objectContaining({ code: 'EDOC_VALIDATE_SCHEMA', field: 'cantidad', rows: [3] }),
    ]);
  });

  it('a field set by a concept row: a negative health deduction names column Deducido and its row', async () => {
    // the payroll sample with Ana Lucía's health deduction (concept 101, file row 10) written negative
    const sample = await readFile(join(EXAMPLES, 'erp/payroll/nomina-por-concepto.csv'), 'latin1');
    const changed = sample.replace(/(;101;[^\n]*;0;)81\.666,67/, '$1-81.666,67');
    expect(changed).not.toBe(sample);
    const file = await tempFile('nomina.csv', Buffer.from(changed, 'latin1'));
    const docs = await intakeDocuments(file, 'payroll', join(MAPPINGS, 'erp/generic-payroll.yaml'));
    expect(docs[0].problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_VALIDATE_SCHEMA',
        field: 'Deducido',
        rows: [10],
      }),
    ]);
    expect(docs.slice(1).map((d) => d.problems ?? [])).toEqual([[], []]);
  });

  it('what the engine computes, or several columns make, keeps its request path', async () => {
    const file = await tempFile(
      'ventas.csv',
      toCsv([sale('990000101', '1'), sale('990000101', '2')]),
    );
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    const place = docs[0].place!;
    expect(place('SerieNumber')).toEqual({ column: 'numero', rows: [2] });
    expect(place('Lines[1].UnitPrice')).toEqual({ column: 'precio_unitario', rows: [3] });
    expect(place('Lines[1].Item.Description')).toEqual({ column: 'descripcion', rows: [3] });
    // a date and its time of day: both columns
    expect(place('IssueDate')).toEqual({ column: 'fecha, hora', rows: [2] });
    // computed by the engine: no column gave them
    expect(place('Total.PayableAmount')).toBeUndefined();
    expect(place('Lines[0].TaxSubTotals[0].TaxAmount')).toBeUndefined();
    // a line the document does not have, and the whole document
    expect(place('Lines[2].Quantity')).toBeUndefined();
    expect(place('')).toBeUndefined();
  });

  it('a list item after one the mapping left out is not named (the items no longer line up)', async () => {
    const yaml = `
name: two-means
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [numero]
document:
  SeriePrefix: { const: SETP }
  SerieNumber: { column: numero, required: true }
  PaymentMeans:
    - { $when: [medio1], Code: medio1 }
    - { $when: [medio2], Code: medio2 }
`;
    const mappingFile = await tempFile('two-means.yaml', yaml);
    const m = await loadMapping(mappingFile);
    const file = await tempFile(
      'pagos.csv',
      'numero;medio1;medio2\r\n990000101;10;42\r\n990000102;;42\r\n',
    );
    const { docs } = await readAll(file, m, 'invoice');
    expect(docs[0].place!('PaymentMeans[1].Code')).toEqual({ column: 'medio2', rows: [2] });
    // the second document's only means came from medio2, at index 0: not named medio1
    expect((docs[1].request as { PaymentMeans: unknown[] }).PaymentMeans).toEqual([{ Code: '42' }]);
    expect(docs[1].place!('PaymentMeans[0].Code')).toBeUndefined();
  });
});
