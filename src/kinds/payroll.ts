/**
 * `payroll` (PRODUCT: E2): normal payroll, adjustment (`TipoNota` 1, with `Reemplazar`) and
 * elimination (`TipoNota` 2, with `Eliminar`). Numbered by `NumeroSecuenciaXML`; the employer's NIT
 * must be the company's; its period must not end before it starts (the bridge's own rule).
 */
import { payrollRequestSchema, type PayrollRequest } from '../service/schemas/payroll.js';
import { obj, text } from '../validate/access.js';
import { KIND } from '../validate/guard-rules.js';
import { problem, type Problem } from '../validate/problem.js';
import { none, type KindDescriptor } from './descriptor.js';
import { customerId } from './customer.js';
import { firstFilled, makeKey } from './keys.js';
import { KIND_LABELS } from './names.js';

/** TipoNota: absent or '' = normal payroll, '1' = adjustment (Reemplazar), '2' = elimination (Eliminar). */
function payrollGuard(r: Record<string, unknown>): Problem[] {
  const raw = r.TipoNota;
  const tipo = raw === undefined || raw === null ? '' : text(raw)?.trim();
  if (tipo === undefined || !['', '1', '2'].includes(tipo)) {
    return [
      problem(
        KIND,
        'TipoNota',
        `TipoNota must be empty (payroll), 1 (adjustment note) or 2 (elimination note), not ${JSON.stringify(raw)}`,
      ),
    ];
  }
  const out: Problem[] = [];
  const hasReplace = r.Reemplazar !== undefined && r.Reemplazar !== null;
  const hasDelete = r.Eliminar !== undefined && r.Eliminar !== null;
  if (hasReplace && tipo !== '1') {
    out.push(
      problem(
        KIND,
        'Reemplazar',
        `The Reemplazar block belongs to an adjustment note (TipoNota 1), but TipoNota is ${tipo === '' ? 'empty' : tipo}`,
      ),
    );
  }
  if (hasDelete && tipo !== '2') {
    out.push(
      problem(
        KIND,
        'Eliminar',
        `The Eliminar block belongs to an elimination note (TipoNota 2), but TipoNota is ${tipo === '' ? 'empty' : tipo}`,
      ),
    );
  }
  return out;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A period that ends before it starts (`FechaLiquidacionFin` 2026-10-01, `FechaLiquidacionInicio`
 * 2026-11-01) is almost always two swapped columns, or a month-first date read day-first: issued, it
 * would be a false payroll document. The bridge's own check: the spec shows no rule on the period, so
 * the emulator has none. A one-day period (both equal) is fine; a date that is not yyyy-MM-dd is the
 * schema's to report.
 */
function payrollPeriod(request: unknown): Problem[] {
  const periodo = obj(obj(request)?.Periodo);
  const start = text(periodo?.FechaLiquidacionInicio) ?? '';
  const end = text(periodo?.FechaLiquidacionFin) ?? '';
  if (!ISO_DATE.test(start) || !ISO_DATE.test(end) || end >= start) return [];
  return [
    problem(
      'EDOC_VALIDATE_PAYROLL_PERIOD',
      'Periodo.FechaLiquidacionFin',
      `The payroll period ends (FechaLiquidacionFin ${end}) before it starts (FechaLiquidacionInicio ${start}): two columns swapped, or a month-first date read day-first (the mapping's format.date)? It is not sent`,
    ),
  ];
}

export const PAYROLL: KindDescriptor = {
  name: 'payroll',
  label: KIND_LABELS['payroll'],
  endpoint: 'E2',
  numbering: 'payroll',
  bodyIsRequest: true,
  send: (client, company, request, ctx) =>
    client.issuePayroll(company, request as PayrollRequest, ctx.options),
  schema: () => payrollRequestSchema,
  key: (request) => {
    const seq = obj(obj(request)?.NumeroSecuenciaXML);
    return seq === undefined ? undefined : makeKey(seq.Prefijo, seq.Consecutivo);
  },
  numberPath: 'NumeroSecuenciaXML.Consecutivo',
  prefix: (request) => firstFilled(obj(obj(request)?.NumeroSecuenciaXML)?.Prefijo),
  issuerPath: 'Empleador.NIT',
  customer: (request) => customerId(obj(obj(request)?.Trabajador)?.NumeroDocumento),
  guards: payrollGuard,
  totals: none,
  rules: payrollPeriod,
};
