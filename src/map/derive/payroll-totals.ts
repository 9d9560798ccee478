/**
 * `derive: payroll-totals`: DevengadosTotal = every money amount under
 * Devengados, DeduccionesTotal = every money amount under Deducciones,
 * ComprobanteTotal = devengados − deducciones. Counts, days and percentages
 * are not money and are not summed.
 */
import { formatAmount, tryParseAmount } from '../../policy/amount.js';
import type { DeriveInput } from './derive-types.js';

const EARNING_AMOUNTS = new Set([
  'SueldoTrabajado',
  'AuxilioTransporte',
  'ViaticoManutAlojS',
  'ViaticoManutAlojNS',
  'Pago',
  'PagoNS',
  'PagoIntereses',
  'BonificacionS',
  'BonificacionNS',
  'AuxilioS',
  'AuxilioNS',
  'ConceptoS',
  'ConceptoNS',
  'CompensacionO',
  'CompensacionE',
  'PagoS',
  'PagoAlimentacionS',
  'PagoAlimentacionNS',
  'Comision',
  'PagoTercero',
  'Anticipo',
  'Dotacion',
  'ApoyoSost',
  'Teletrabajo',
  'BonifRetiro',
  'Indemnizacion',
  'Reintegro',
]);

const DEDUCTION_AMOUNTS = new Set([
  'Deduccion',
  'DeduccionSub',
  'SancionPublic',
  'SancionPriv',
  'PagoTercero',
  'Anticipo',
  'OtraDeduccion',
  'PensionVoluntaria',
  'RetencionFuente',
  'AFC',
  'Cooperativa',
  'EmbargoFiscal',
  'PlanComplementarios',
  'Educacion',
  'Reintegro',
  'Deuda',
]);

function sumAmounts(value: unknown, keys: Set<string>): number {
  if (Array.isArray(value)) return value.reduce((s: number, v) => s + sumAmounts(v, keys), 0);
  if (typeof value !== 'object' || value === null) return 0;
  let total = 0;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && keys.has(k)) total += tryParseAmount(v) ?? 0;
    else total += sumAmounts(v, keys);
  }
  return total;
}

export function payrollTotals({ request }: DeriveInput): void {
  const earnings = sumAmounts(request.Devengados, EARNING_AMOUNTS);
  const deductions = sumAmounts(request.Deducciones, DEDUCTION_AMOUNTS);
  request.DevengadosTotal = formatAmount(earnings);
  request.DeduccionesTotal = formatAmount(deductions);
  request.ComprobanteTotal = formatAmount(earnings - deductions);
}
