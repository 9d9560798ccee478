import { z } from 'zod';
import { amountSchema, dateSchema, dateTimeSchema, decimalStringSchema } from './common.js';

/*
 * E2 request. All values are strings in the reference sample: money is a
 * two-decimal amount string, counts/percentages/days are decimal strings, dates
 * are yyyy-MM-dd (FechaHoraGen yyyy-MM-ddTHH:mm:ss). Which fields are required is
 * not shown, so all are optional; the structure of `Reemplazar` and `Eliminar` is
 * not shown either, so any object is accepted there.
 */

const money = amountSchema.optional();
const decimal = decimalStringSchema.optional();
const text = z.string().optional();
const list = <T extends z.ZodType>(entry: T) => z.array(entry).optional();

const quantityPayment = z.strictObject({ Cantidad: decimal, Pago: money });
const overtime = list(z.strictObject({ Cantidad: decimal, Porcentaje: decimal, Pago: money }));
const thirdPartyPayments = list(z.strictObject({ PagoTercero: money }));
const advances = list(z.strictObject({ Anticipo: money }));
const percentDeduction = z.strictObject({ Porcentaje: decimal, Deduccion: money });

export const payrollEarningsSchema = z.strictObject({
  Basico: z.strictObject({ DiasTrabajados: decimal, SueldoTrabajado: money }).optional(),
  Transporte: list(
    z.strictObject({
      AuxilioTransporte: money,
      ViaticoManutAlojS: money,
      ViaticoManutAlojNS: money,
    }),
  ),
  HEDs: overtime,
  HENs: overtime,
  HEDDFs: overtime,
  HENDFs: overtime,
  HRNs: overtime,
  HRDDFs: overtime,
  HRNDFs: overtime,
  Vacaciones: z
    .strictObject({
      VacacionesComunes: list(quantityPayment),
      VacacionesCompensadas: list(quantityPayment),
    })
    .optional(),
  Primas: z.strictObject({ Cantidad: decimal, Pago: money, PagoNS: money }).optional(),
  Cesantias: z.strictObject({ Pago: money, Porcentaje: decimal, PagoIntereses: money }).optional(),
  Incapacidades: list(z.strictObject({ Cantidad: decimal, Tipo: text, Pago: money })),
  Licencias: z
    .strictObject({
      LicenciaMP: list(quantityPayment),
      LicenciaR: list(quantityPayment),
      LicenciaNR: list(z.strictObject({ Cantidad: decimal })),
    })
    .optional(),
  Bonificaciones: list(z.strictObject({ BonificacionS: money, BonificacionNS: money })),
  Auxilios: list(z.strictObject({ AuxilioS: money, AuxilioNS: money })),
  OtrosConceptos: list(
    z.strictObject({ DescripcionConcepto: text, ConceptoS: money, ConceptoNS: money }),
  ),
  Compensaciones: list(z.strictObject({ CompensacionO: money, CompensacionE: money })),
  BonoEPCTVs: list(
    z.strictObject({
      PagoS: money,
      PagoNS: money,
      PagoAlimentacionS: money,
      PagoAlimentacionNS: money,
    }),
  ),
  Comisiones: list(z.strictObject({ Comision: money })),
  PagosTerceros: thirdPartyPayments,
  Anticipos: advances,
  Dotacion: money,
  ApoyoSost: money,
  Teletrabajo: money,
  BonifRetiro: money,
  Indemnizacion: money,
  Reintegro: money,
});
export type PayrollEarnings = z.infer<typeof payrollEarningsSchema>;

export const payrollDeductionsSchema = z.strictObject({
  Salud: percentDeduction.optional(),
  FondoPension: percentDeduction.optional(),
  FondoSP: z
    .strictObject({
      Porcentaje: decimal,
      Deduccion: money,
      PorcentajeSub: decimal,
      DeduccionSub: money,
    })
    .optional(),
  Sindicatos: list(percentDeduction),
  Sanciones: list(z.strictObject({ SancionPublic: money, SancionPriv: money })),
  Libranzas: list(z.strictObject({ Descripcion: text, Deduccion: money })),
  PagosTerceros: thirdPartyPayments,
  Anticipos: advances,
  OtrasDeducciones: list(z.strictObject({ OtraDeduccion: money })),
  PensionVoluntaria: money,
  RetencionFuente: money,
  AFC: money,
  Cooperativa: money,
  EmbargoFiscal: money,
  PlanComplementarios: money,
  Educacion: money,
  Reintegro: money,
  Deuda: money,
});
export type PayrollDeductions = z.infer<typeof payrollDeductionsSchema>;

export const payrollWorkerSchema = z.strictObject({
  TipoTrabajador: text,
  SubTipoTrabajador: text,
  AltoRiesgoPension: text,
  TipoDocumento: text,
  NumeroDocumento: text,
  PrimerApellido: text,
  SegundoApellido: text,
  PrimerNombre: text,
  OtrosNombres: text,
  LugarTrabajoPais: text,
  LugarTrabajoDepartamentoEstado: text,
  LugarTrabajoMunicipioCiudad: text,
  LugarTrabajoDireccion: text,
  SalarioIntegral: text,
  TipoContrato: text,
  Sueldo: money,
  CodigoTrabajador: text,
  CorreoElectronico: text,
});

/** `TipoNota`: absent or "" normal payroll, "1" adjustment (Reemplazar), "2" elimination (Eliminar). */
export const payrollNoteTypeSchema = z.enum(['', '1', '2']);

export const payrollRequestSchema = z.strictObject({
  TipoNota: payrollNoteTypeSchema.optional(),
  Reemplazar: z.record(z.string(), z.unknown()).optional(),
  Eliminar: z.record(z.string(), z.unknown()).optional(),
  FechasPagos: list(z.strictObject({ FechaPago: dateSchema.optional() })),
  Periodo: z
    .strictObject({
      FechaIngreso: dateSchema.optional(),
      FechaLiquidacionInicio: dateSchema.optional(),
      FechaLiquidacionFin: dateSchema.optional(),
      TiempoLaborado: decimal,
      FechaGen: dateSchema.optional(),
    })
    .optional(),
  NumeroSecuenciaXML: z.strictObject({ Prefijo: text, Consecutivo: text }).optional(),
  LugarGeneracionXML: z
    .strictObject({ Pais: text, DepartamentoEstado: text, MunicipioCiudad: text, Idioma: text })
    .optional(),
  InformacionGeneral: z
    .strictObject({
      FechaHoraGen: dateTimeSchema.optional(),
      PeriodoNomina: text,
      TipoMoneda: text,
      TRM: decimal,
    })
    .optional(),
  Notas: list(z.string()),
  Empleador: z.strictObject({ NIT: text }).optional(),
  Trabajador: payrollWorkerSchema.optional(),
  Pago: z.strictObject({ Forma: text, Metodo: text }).optional(),
  Devengados: payrollEarningsSchema.optional(),
  Deducciones: payrollDeductionsSchema.optional(),
  DevengadosTotal: money,
  DeduccionesTotal: money,
  ComprobanteTotal: money,
  Redondeo: money,
  CorrelationDocumentId: text,
});
export type PayrollRequest = z.infer<typeof payrollRequestSchema>;
