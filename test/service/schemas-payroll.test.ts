import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { formatZodIssues, payrollRequestSchema } from '../../src/service/schemas/index.js';
import { loadRequestFixture } from '../fixtures/requests/index.js';

function issuePaths(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : formatZodIssues(result.error).map((i) => i.path);
}

const otPay = [{ Cantidad: '2', Porcentaje: '25.00', Pago: '26041.67' }];

/** Every Devengados and Deducciones block the spec lists, once each. */
const everyEarning = {
  Basico: { DiasTrabajados: '30', SueldoTrabajado: '2500000.00' },
  Transporte: [
    {
      AuxilioTransporte: '200000.00',
      ViaticoManutAlojS: '10000.00',
      ViaticoManutAlojNS: '5000.00',
    },
  ],
  HEDs: otPay,
  HENs: [{ Cantidad: '1', Porcentaje: '75.00', Pago: '18229.17' }],
  HEDDFs: otPay,
  HENDFs: otPay,
  HRNs: [{ Cantidad: '3', Porcentaje: '35.00', Pago: '10937.50' }],
  HRDDFs: otPay,
  HRNDFs: otPay,
  Vacaciones: {
    VacacionesComunes: [{ Cantidad: '15', Pago: '1250000.00' }],
    VacacionesCompensadas: [{ Cantidad: '2', Pago: '166666.67' }],
  },
  Primas: { Cantidad: '30', Pago: '1250000.00', PagoNS: '0.00' },
  Cesantias: { Pago: '2500000.00', Porcentaje: '12.00', PagoIntereses: '300000.00' },
  Incapacidades: [{ Cantidad: '3', Tipo: '1', Pago: '166666.67' }],
  Licencias: {
    LicenciaMP: [{ Cantidad: '5', Pago: '416666.67' }],
    LicenciaR: [{ Cantidad: '1', Pago: '83333.33' }],
    LicenciaNR: [{ Cantidad: '2' }],
  },
  Bonificaciones: [{ BonificacionS: '100000.00', BonificacionNS: '50000.00' }],
  Auxilios: [{ AuxilioS: '30000.00', AuxilioNS: '20000.00' }],
  OtrosConceptos: [
    { DescripcionConcepto: 'Auxilio de conectividad', ConceptoS: '0.00', ConceptoNS: '50000.00' },
  ],
  Compensaciones: [{ CompensacionO: '10000.00', CompensacionE: '5000.00' }],
  BonoEPCTVs: [
    { PagoS: '1.00', PagoNS: '2.00', PagoAlimentacionS: '3.00', PagoAlimentacionNS: '4.00' },
  ],
  Comisiones: [{ Comision: '150000.00' }],
  PagosTerceros: [{ PagoTercero: '12000.00' }],
  Anticipos: [{ Anticipo: '100000.00' }],
  Dotacion: '80000.00',
  ApoyoSost: '0.00',
  Teletrabajo: '0.00',
  BonifRetiro: '0.00',
  Indemnizacion: '0.00',
  Reintegro: '0.00',
};

const everyDeduction = {
  Salud: { Porcentaje: '4.00', Deduccion: '105041.67' },
  FondoPension: { Porcentaje: '4.00', Deduccion: '105041.67' },
  FondoSP: {
    Porcentaje: '1.00',
    Deduccion: '26260.42',
    PorcentajeSub: '0.50',
    DeduccionSub: '13130.21',
  },
  Sindicatos: [{ Porcentaje: '1.00', Deduccion: '25000.00' }],
  Sanciones: [{ SancionPublic: '0.00', SancionPriv: '10000.00' }],
  Libranzas: [{ Descripcion: 'Crédito de libranza', Deduccion: '200000.00' }],
  PagosTerceros: [{ PagoTercero: '12000.00' }],
  Anticipos: [{ Anticipo: '100000.00' }],
  OtrasDeducciones: [{ OtraDeduccion: '5000.00' }],
  PensionVoluntaria: '50000.00',
  RetencionFuente: '0.00',
  AFC: '0.00',
  Cooperativa: '20000.00',
  EmbargoFiscal: '0.00',
  PlanComplementarios: '90000.00',
  Educacion: '0.00',
  Reintegro: '0.00',
  Deuda: '0.00',
};

describe('E2 payroll request', () => {
  test.each(['payroll', 'payroll-adjustment'] as const)(
    'the %s fixture matches the E2 schema',
    (name) => {
      const request = loadRequestFixture(name);
      expect(payrollRequestSchema.parse(request)).toEqual(request);
    },
  );

  test('every Devengados and Deducciones block the spec lists is accepted', () => {
    const request = {
      ...loadRequestFixture('payroll'),
      Devengados: everyEarning,
      Deducciones: everyDeduction,
    };
    expect(issuePaths(payrollRequestSchema, request)).toEqual([]);
  });

  test.each([undefined, '', '1', '2'])('TipoNota %j is accepted', (tipoNota) => {
    const request = loadRequestFixture('payroll');
    if (tipoNota === undefined) delete request.TipoNota;
    else request.TipoNota = tipoNota;
    expect(issuePaths(payrollRequestSchema, request)).toEqual([]);
  });

  test.each(['3', '0', 'A', 1, null])('TipoNota %j is rejected', (tipoNota) => {
    const request = loadRequestFixture('payroll');
    request.TipoNota = tipoNota;
    expect(issuePaths(payrollRequestSchema, request)).toEqual(['TipoNota']);
  });

  test('Reemplazar and Eliminar take any object, their structure is not shown', () => {
    const elimination = {
      TipoNota: '2',
      Eliminar: {
        CUNEPred: 'abc',
        NumeroPred: 'NOM1001',
        FechaGenPred: '2026-11-30',
        Anything: { x: 1 },
      },
    };
    expect(issuePaths(payrollRequestSchema, elimination)).toEqual([]);
    expect(issuePaths(payrollRequestSchema, { TipoNota: '1', Reemplazar: 'NOM1001' })).toEqual([
      'Reemplazar',
    ]);
    expect(issuePaths(payrollRequestSchema, { TipoNota: '2', Eliminar: [] })).toEqual(['Eliminar']);
  });

  test('money values are two-decimal strings, not numbers', () => {
    const request = loadRequestFixture('payroll');
    request.DevengadosTotal = 2876041.67;
    (request.Devengados as { Basico: Record<string, unknown> }).Basico.SueldoTrabajado = '2500000';
    (request.Deducciones as { Salud: Record<string, unknown> }).Salud.Deduccion = '-1.00';
    expect(issuePaths(payrollRequestSchema, request)).toEqual([
      'Devengados.Basico.SueldoTrabajado',
      'Deducciones.Salud.Deduccion',
      'DevengadosTotal',
    ]);
  });

  test('counts and percentages are number strings', () => {
    const request = loadRequestFixture('payroll');
    const dev = request.Devengados as {
      Basico: Record<string, unknown>;
      HEDs: Record<string, unknown>[];
    };
    dev.Basico.DiasTrabajados = 30;
    dev.HEDs[0].Porcentaje = '25%';
    expect(issuePaths(payrollRequestSchema, request)).toEqual([
      'Devengados.Basico.DiasTrabajados',
      'Devengados.HEDs[0].Porcentaje',
    ]);
  });

  test('payroll dates are yyyy-MM-dd and FechaHoraGen is yyyy-MM-ddTHH:mm:ss', () => {
    const request = loadRequestFixture('payroll');
    (request.FechasPagos as Record<string, unknown>[])[0].FechaPago = '30/11/2026';
    (request.Periodo as Record<string, unknown>).FechaLiquidacionFin = '2026-11-31';
    (request.InformacionGeneral as Record<string, unknown>).FechaHoraGen = '2026-11-30';
    expect(issuePaths(payrollRequestSchema, request)).toEqual([
      'FechasPagos[0].FechaPago',
      'Periodo.FechaLiquidacionFin',
      'InformacionGeneral.FechaHoraGen',
    ]);
  });

  test('unknown keys are reported at their path, inside every block', () => {
    const request = loadRequestFixture('payroll');
    request.Empleado = {};
    (request.Trabajador as Record<string, unknown>).Salario = '1.00';
    (request.Devengados as Record<string, unknown>).HorasExtra = [];
    (request.Deducciones as { Salud: Record<string, unknown> }).Salud.Porcentage = '4.00';
    (request.Devengados as { HEDs: Record<string, unknown>[] }).HEDs[0].Valor = '1.00';
    expect(issuePaths(payrollRequestSchema, request).sort()).toEqual(
      [
        'Deducciones.Salud.Porcentage',
        'Devengados.HEDs[0].Valor',
        'Devengados.HorasExtra',
        'Empleado',
        'Trabajador.Salario',
      ].sort(),
    );
  });

  test('list blocks are arrays and object blocks are objects', () => {
    expect(
      issuePaths(payrollRequestSchema, { Devengados: { HEDs: { Cantidad: '1' }, Primas: [] } }),
    ).toEqual(['Devengados.HEDs', 'Devengados.Primas']);
    expect(issuePaths(payrollRequestSchema, { Notas: 'texto' })).toEqual(['Notas']);
  });
});
