/**
 * Rows into fields: a payroll export with one row per employee and concept, below title lines, becomes
 * one payroll document per employee through the mapping's concept table; an unknown concept code is
 * never dropped silently.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { compileMapping, loadMapping } from '../../src/map/load-mapping.js';
import { readAll, tempFile } from './helpers.js';

const ERP = join(import.meta.dirname, '../fixtures/erp');
const EXPORT = join(ERP, 'nomina-por-concepto.csv');

async function withRows(replace: (lines: string[]) => string[]): Promise<string> {
  const lines = iconv.decode(await readFile(EXPORT), 'windows-1252').split('\r\n');
  return tempFile('nomina.csv', replace(lines).join('\r\n'), 'windows-1252');
}

describe('a payroll export with one row per concept, below title lines', () => {
  it("turns each employee's concept rows into the fields of one payroll document", async () => {
    const m = await loadMapping(join(ERP, 'nomina-por-concepto.yaml'));
    const { source, docs } = await readAll(EXPORT, m, 'payroll');
    // header on row 4 (rows 1-3: title lines); Ana rows 5-10, Carlos rows 11-15
    expect(docs.map((d) => [d.key, d.source.rows, d.problems])).toEqual([
      ['NOM201', [5, 6, 7, 8, 9, 10], []],
      ['NOM202', [11, 12, 13, 14, 15], []],
    ]);
    expect(source.header.split('\r\n')[0]).toBe('NÓMINA DETALLADA POR CONCEPTO;;;;;;;;;;;;;;;;;');
    const ana = docs[0].request as Record<string, Record<string, unknown>>;
    expect(ana.Devengados).toEqual({
      Basico: { DiasTrabajados: '30', SueldoTrabajado: '2000000.00' }, //   concept 001, row 5
      Transporte: [{ AuxilioTransporte: '200000.00' }], //                  concept 002, row 6
      HEDs: [{ Cantidad: '4', Porcentaje: '25.00', Pago: '41666.67' }], //  concept 005, row 7
    });
    expect(ana.Deducciones).toEqual({
      Salud: { Porcentaje: '4', Deduccion: '80000.00' }, //                 concept 101, row 8
      FondoPension: { Porcentaje: '4', Deduccion: '80000.00' }, //          concept 102, row 9
    });
    // devengados 2,000,000.00 + 200,000.00 + 41,666.67 = 2,241,666.67; deducciones 80,000 + 80,000 = 160,000.00;
    // comprobante 2,241,666.67 − 160,000.00 = 2,081,666.67 (row 10, provision 990, is ignored by the mapping)
    expect([ana.DevengadosTotal, ana.DeduccionesTotal, ana.ComprobanteTotal]).toEqual([
      '2241666.67',
      '160000.00',
      '2081666.67',
    ]);
    const carlos = docs[1].request as Record<string, Record<string, unknown>>;
    expect(carlos.Deducciones).toEqual({
      Salud: { Porcentaje: '4', Deduccion: '274000.00' },
      FondoPension: { Porcentaje: '4', Deduccion: '274000.00' },
      RetencionFuente: '412350.00',
    });
    // 6,500,000.00 − (274,000 + 274,000 + 412,350 = 960,350.00) = 5,539,650.00
    expect([carlos.DevengadosTotal, carlos.DeduccionesTotal, carlos.ComprobanteTotal]).toEqual([
      '6500000.00',
      '960350.00',
      '5539650.00',
    ]);
    expect(carlos.Trabajador).toEqual(
      expect.objectContaining({
        PrimerApellido: 'Muñoz',
        PrimerNombre: 'Carlos Andrés',
        NumeroDocumento: '80123456',
        TipoDocumento: '13',
      }),
    );
  });

  it('refuses a document with a concept code the table neither maps nor ignores, naming the code and row', async () => {
    const m = await loadMapping(join(ERP, 'nomina-por-concepto.yaml'));
    // Carlos's row 14 says concept 777 (a loan repayment the mapping was never told about) instead of 120
    const file = await withRows((lines) =>
      lines.map((l, i) =>
        i === 13 ? l.replace(';120;Retención en la fuente;', ';777;Libranza;') : l,
      ),
    );
    const { docs } = await readAll(file, m, 'payroll');
    expect(docs[0].problems).toEqual([]);
    expect(docs[1].request).toBeUndefined();
    expect(docs[1].problems).toEqual([
      expect.objectContaining({
        code: 'EDOC_MAP_UNKNOWN_CONCEPT',
        rows: [14],
        column: 'Concepto',
        value: '777',
      }),
    ]);
    expect(docs[1].problems[0].message).toBe(
      'Row 14: concept "777" in column "Concepto" is not in the mapping\'s concept table; the document is not sent without it: add the code under concepts.codes, or under concepts.ignore if it belongs in no field',
    );
  });

  it('refuses a concept given twice for one employee, naming both rows', async () => {
    const m = await loadMapping(join(ERP, 'nomina-por-concepto.yaml'));
    const file = await withRows((lines) => [
      ...lines.slice(0, 9),
      lines[4].replace(';30;2.000.000,00;0', ';30;150.000,00;0'),
      ...lines.slice(9),
    ]);
    const { docs } = await readAll(file, m, 'payroll');
    expect(docs[0].problems.map((p) => [p.code, p.rows, p.message])).toEqual([
      [
        'EDOC_MAP_INCONSISTENT',
        [5, 10],
        'Row 10: concept "001" in column "Concepto" sets Devengados.Basico.DiasTrabajados, which row 5 already set; one document carries each concept once',
      ],
      [
        'EDOC_MAP_INCONSISTENT',
        [5, 10],
        'Row 10: concept "001" in column "Concepto" sets Devengados.Basico.SueldoTrabajado, which row 5 already set; one document carries each concept once',
      ],
    ]);
  });

  it('refuses a concept table that is malformed when the mapping loads', () => {
    const base = { name: 'c', kinds: ['payroll'], key: ['id'], document: { Id: 'id' } };
    expect(() =>
      compileMapping(
        { ...base, concepts: { column: 'c', codes: { '1': { 'Devengados..X': 'v' } } } },
        'c.yaml',
      ),
    ).toThrow('Mapping c.yaml: concepts.codes.1.Devengados..X: expected a request field path');
    expect(() =>
      compileMapping(
        { ...base, concepts: { column: 'c', codes: { '1': { A: 'v' } }, ignore: ['1'] } },
        'c.yaml',
      ),
    ).toThrow('concepts.ignore: code "1" is both mapped and ignored');
  });
});
