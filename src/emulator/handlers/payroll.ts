/**
 * E2: payroll, adjustment note (TipoNota 1) and elimination note (TipoNota 2).
 * Unlike E1 it answers with real HTTP statuses: 401 without x-api-key, 400 for
 * a missing x-company-id / x-user-id / body or an invalid body, 422 (in HTTP
 * 200) for an authority rejection.
 */
import { parseAmountLenient } from '../../policy/amount.js';
import { payrollRequestSchema } from '../../service/schemas/payroll.js';
import { authenticate } from '../auth.js';
import { regla } from '../authority.js';
import {
  envelopeReply,
  header,
  issueMessages,
  parseIntStrict,
  parseJson,
  type EmulatorRequest,
  type Reply,
} from '../http.js';
import { issueDocument } from '../issue.js';
import type { DocKind, EmulatorState } from '../state.js';
import { OK_MESSAGE, REJECTED_MESSAGE } from './invoice.js';

function badRequest(errors: string[]): Reply {
  return envelopeReply(400, 400, false, null, errors);
}

/** Emulator's own rule: ComprobanteTotal = DevengadosTotal − DeduccionesTotal (when all three are sent). */
function payrollTotals(request: Record<string, unknown>): string[] {
  const amount = (v: unknown): number | undefined =>
    typeof v === 'string' || typeof v === 'number' ? parseAmountLenient(v) : undefined;
  const dev = amount(request.DevengadosTotal);
  const ded = amount(request.DeduccionesTotal);
  const total = amount(request.ComprobanteTotal);
  if (dev === undefined || ded === undefined || total === undefined || dev - ded === total)
    return [];
  return [
    regla('NIE024', 'ComprobanteTotal no corresponde a DevengadosTotal menos DeduccionesTotal.'),
  ];
}

export function handlePayroll(state: EmulatorState, req: EmulatorRequest): Reply {
  const auth = authenticate(state, req.headers);
  if (!auth.ok) {
    switch (auth.failure) {
      case 'missing-key':
        return envelopeReply(401, 401, false, null, ['El encabezado x-api-key es obligatorio.']);
      case 'missing-company':
        return badRequest(['El encabezado x-company-id es obligatorio.']);
      case 'bad-company-id':
        return badRequest([
          `El encabezado x-company-id debe ser un entero: '${auth.companyText}'.`,
        ]);
      case 'unknown-company':
        return badRequest([`La empresa ${auth.companyText} no existe.`]);
      case 'bad-key':
        // Spec: "not shown"; the emulator answers like a missing key (documented).
        return envelopeReply(401, 401, false, null, [
          `La llave de acceso no corresponde a la empresa ${auth.companyText}.`,
        ]);
    }
  }
  const company = auth.company;
  const userText = header(req.headers, 'x-user-id');
  const userId = parseIntStrict(userText);
  if (userText === undefined) return badRequest(['El encabezado x-user-id es obligatorio.']);
  if (userId === undefined)
    return badRequest([`El encabezado x-user-id debe ser un entero: '${userText}'.`]);
  if (company.userIds.length > 0 && !company.userIds.includes(userId)) {
    return badRequest([`El usuario ${userId} no pertenece a la empresa ${company.id}.`]);
  }
  const json = parseJson(req.text);
  if (!json.ok) return badRequest([json.message]);
  const parsed = payrollRequestSchema.safeParse(json.value);
  if (!parsed.success) return badRequest(issueMessages(parsed.error.issues));
  const request = parsed.data;

  const kind: DocKind =
    request.TipoNota === '1'
      ? 'payroll-adjustment'
      : request.TipoNota === '2'
        ? 'payroll-elimination'
        : 'payroll';
  const warnings: string[] = [];
  const prefix = (request.NumeroSecuenciaXML?.Prefijo ?? '').trim() || company.payrollPrefix;
  let number = (request.NumeroSecuenciaXML?.Consecutivo ?? '').trim();
  if (number === '') {
    number = String(company.payrollNext);
    warnings.push(
      `Se asignó el consecutivo ${prefix}${number} de la numeración de nómina de la empresa.`,
    );
  }
  const doc = issueDocument(
    state,
    { company, kind, prefix, number, checkRange: false, extra: payrollTotals(request) },
    {
      ...request,
      NumeroSecuenciaXML: { ...request.NumeroSecuenciaXML, Prefijo: prefix, Consecutivo: number },
    },
  );
  if (doc.accepted) {
    if (
      prefix === company.payrollPrefix &&
      /^\d{1,15}$/.test(number) &&
      Number(number) >= company.payrollNext
    ) {
      company.payrollNext = Number(number) + 1;
      state.changed();
    }
    return envelopeReply(200, 200, true, OK_MESSAGE, [], warnings);
  }
  return envelopeReply(200, 422, false, REJECTED_MESSAGE, doc.reasons, warnings);
}
