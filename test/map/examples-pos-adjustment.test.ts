import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  adjustmentNoteRequestSchema,
  posDocumentContentSchema,
} from '../../src/service/schemas/index.js';
import { validateDocument } from '../../src/kinds/validate-document.js';
import { COMPANY, EXAMPLES, mapping, readAll, tempFile, toCsv } from './helpers.js';

describe('the POS and support-adjustment layouts map the shipped examples to exact requests', () => {
  it('pos.csv: two tickets, VAT per line and per rate, totals as numbers, a ticket without buyer', async () => {
    const { source, docs } = await readAll(join(EXAMPLES, 'pos.csv'), await mapping('pos'), 'pos');
    expect(source.encoding).toBe('windows-1252');
    expect(docs.map((d) => [d.key, d.source.rows, d.problems])).toEqual([
      ['POS101', [2, 3], []],
      ['POS103', [4], []],
    ]);
    for (const d of docs) {
      expect(posDocumentContentSchema.safeParse(d.request).success).toBe(true);
      expect(
        validateDocument('pos', d.request, { today: '2026-11-22', issuerNit: COMPANY.nit }),
      ).toEqual([]);
    }
    const first = docs[0].request as Record<string, unknown>;
    expect(first.documento).toMatchObject({
      prefijo: 'POS',
      numeroDocumento: '101',
      fechaEmision: '2026-11-21',
      horaEmision: '14:32:10',
    });
    expect(first.adquiriente).toEqual({
      identificacion: '1020304050',
      tipoIdentificacion: '13',
      razonSocial: 'José Muñoz Peña',
      correo: 'jose.munoz@correo.example',
      telefono: '300 123 4567',
      tipoPersona: '2',
    });
    expect(
      (first.detalles as Record<string, unknown>[]).map((l) => [
        l.unidades,
        l.valorUnitarioBruto,
        l.valorBruto,
        l.tributos,
      ]),
    ).toEqual([
      [
        '2',
        '10000.00',
        20000,
        [
          {
            id: '01',
            nombre: 'IVA',
            esImpuesto: true,
            valorImporte: 3800,
            valorBase: 20000,
            porcentaje: 19,
          },
        ],
      ],
      [
        '3',
        '4200.00',
        12600,
        [
          {
            id: '01',
            nombre: 'IVA',
            esImpuesto: true,
            valorImporte: 630,
            valorBase: 12600,
            porcentaje: 5,
          },
        ],
      ],
    ]);
    expect(first.tributos).toEqual([
      {
        id: '01',
        nombre: 'IVA',
        esImpuesto: true,
        valorImporteTotal: 4430,
        detalles: [
          { valorImporte: 3800, valorBase: 20000, porcentaje: 19 },
          { valorImporte: 630, valorBase: 12600, porcentaje: 5 },
        ],
      },
    ]);
    expect(first.totales).toEqual({
      valorBruto: 32600,
      valorCargos: 0,
      valorDescuentos: 0,
      valorTotalSinImpuestos: 32600,
      valorTotalConImpuestos: 37030,
      valorNeto: 37030,
    });
    const second = docs[1].request as Record<string, unknown>;
    expect(second.adquiriente).toBeUndefined();
    expect(second.tributos).toBeUndefined();
    expect(second.totales).toMatchObject({ valorBruto: 18500, valorNeto: 18500 });
  });

  it('support-adjustments.csv: a note with a line (supplier, totals) and an annulment without Lines', async () => {
    const { docs } = await readAll(
      join(EXAMPLES, 'support-adjustments.csv'),
      await mapping('support-adjustment'),
      'support-adjustment',
    );
    expect(docs.map((d) => [d.key, d.source.rows, d.problems])).toEqual([
      ['NAS101', [2], []],
      ['NAS103', [3], []],
    ]);
    for (const d of docs) {
      expect(adjustmentNoteRequestSchema.safeParse(d.request).success).toBe(true);
      expect(
        validateDocument('support-adjustment', d.request, {
          today: '2026-11-22',
          issuerNit: COMPANY.nit,
        }),
      ).toEqual([]);
    }
    const note = docs[0].request as Record<string, unknown>;
    expect(note.DocumentReferences).toEqual([
      { DocumentReferred: 'DS101', IssueDate: '2026-11-20' },
    ]);
    expect(note.Total).toEqual({
      TaxableAmount: '0.00',
      TaxAmount: '0.00',
      PayableAmount: '100000.00',
      WithholdingTaxAmount: '1500.00',
    });
    expect((note.Lines as unknown[]).length).toBe(1);
    expect(docs[1].request).toEqual({
      DocumentReferences: [{ DocumentReferred: 'DS101', IssueDate: '2026-11-20' }],
      CorrectionConceptCode: '2',
      CorrectionConcept: 'Anulación',
      Currency: 'COP',
      SeriePrefix: 'NAS',
      SerieNumber: '103',
      IssueDate: '2026-11-22T11:05:00',
      Notes: ['Compra registrada dos veces'],
    });
  });

  it('a note row with line data but no description is a problem naming the column, not a silent annulment', async () => {
    const file = await tempFile(
      'notas.csv',
      toCsv([
        {
          prefijo: 'NAS',
          numero: '7',
          ref_documento: 'DS1',
          cantidad: '1',
          precio_unitario: '1.000,00',
          descripcion: '',
          iva: '',
          retefuente: '',
          reteiva: '',
        },
      ]),
    ); // the tax columns are in the header: a missing one would be a file error
    const { docs } = await readAll(file, await mapping('support-adjustment'), 'support-adjustment');
    expect(docs[0].request).toBeUndefined();
    expect(docs[0].problems.map((p) => [p.code, p.column])).toEqual([
      ['EDOC_MAP_REQUIRED', 'descripcion'],
    ]);
  });
});
