/**
 * E10 (list the company's active ranges, checked against `nit`) and E11 (save
 * a range, with the spec's seven validations accumulated in Errors).
 */
import { createNumberingRequestSchema } from '../../service/schemas/numbering.js';
import { isValidDateTime } from '../../service/schemas/common.js';
import { authenticate } from '../auth.js';
import {
  envelopeReply,
  isRecord,
  issueMessages,
  parseJson,
  type EmulatorRequest,
  type Reply,
} from '../http.js';
import type { RangeDocumentType } from '../seed.js';
import type { EmulatorState, RangeState } from '../state.js';

/** Authority resolution-type codes shown in the list (two or three digits; the mapping is the emulator's own). */
const RESOLUTION_TYPE: Record<RangeDocumentType, string> = {
  Invoice: '18',
  ContingencyInvoice: '03',
  CreditNote: '91',
  DebitNote: '92',
  SupportDocument: '05',
  SupportAdjustmentNote: '95',
  Pos: '20',
};

function listed(r: RangeState): Record<string, unknown> {
  return {
    FromNumber: String(r.FromNumber),
    ToNumber: String(r.ToNumber),
    Prefix: r.Prefix,
    ResolutionNumber: r.ResolutionNumber,
    ResolutionDate: r.ResolutionDate,
    ResolutionType: RESOLUTION_TYPE[r.DocumentType],
    TechnicalKey: r.TechnicalKey,
    ValidDateFrom: r.ValidFrom.slice(0, 10),
    ValidDateTo: r.ValidTo.slice(0, 10),
  };
}

export function handleListRanges(state: EmulatorState, req: EmulatorRequest): Reply {
  const nit = req.url.searchParams.get('nit');
  if (nit === null || nit.trim() === '')
    return envelopeReply(400, 400, false, null, ['El parámetro nit es obligatorio.']);
  const auth = authenticate(state, req.headers);
  if (!auth.ok) {
    if (
      auth.failure === 'unknown-company' ||
      auth.failure === 'missing-company' ||
      auth.failure === 'bad-company-id'
    ) {
      return envelopeReply(404, 404, false, null, [
        `La empresa ${auth.companyText || '(sin x-company-id)'} no existe.`,
      ]);
    }
    return envelopeReply(403, 403, false, null, [
      `La llave de acceso no corresponde a la empresa ${auth.companyText}.`,
    ]);
  }
  if (nit.trim() !== auth.company.nit) {
    return envelopeReply(403, 403, false, null, [
      `El nit ${nit} no corresponde a la empresa ${auth.company.id}.`,
    ]);
  }
  return envelopeReply(200, 200, true, state.activeRanges(auth.company).map(listed));
}

export function handleCreateRange(state: EmulatorState, req: EmulatorRequest): Reply {
  const auth = authenticate(state, req.headers);
  if (
    !auth.ok &&
    (auth.failure === 'bad-key' || (auth.failure === 'missing-key' && auth.company !== undefined))
  ) {
    return envelopeReply(403, 403, false, null, [
      `La llave de acceso no corresponde a la empresa ${auth.companyText}.`,
    ]);
  }
  const company = auth.ok ? auth.company : undefined;
  const json = parseJson(req.text);
  if (!json.ok) return envelopeReply(400, 400, false, null, [json.message]);
  const body = isRecord(json.value) ? json.value : {};
  const errors: string[] = [];
  // 1–2 (required fields, date format) and, when the fields are well formed, 3–4: from the shared schema.
  const parsed = createNumberingRequestSchema.safeParse(json.value);
  if (!parsed.success) errors.push(...issueMessages(parsed.error.issues));
  // 3–4 again on raw values, so they accumulate even when another field is missing.
  const has = (m: string): boolean => errors.some((e) => e.includes(m));
  if (
    typeof body.StartValue === 'number' &&
    typeof body.EndValue === 'number' &&
    body.StartValue > body.EndValue &&
    !has('StartValue must not')
  )
    errors.push('StartValue: StartValue must not be greater than EndValue');
  if (
    typeof body.ValidFrom === 'string' &&
    typeof body.ValidTo === 'string' &&
    isValidDateTime(body.ValidFrom) &&
    isValidDateTime(body.ValidTo) &&
    body.ValidFrom > body.ValidTo &&
    !has('ValidFrom must not')
  ) {
    errors.push('ValidFrom: ValidFrom must not be later than ValidTo');
  }
  // 5. Nit matches; 6. company exists; 7. no duplicate Prefix + AuthorizationNumber.
  if (company === undefined) {
    errors.push(`La empresa ${auth.ok ? '' : auth.companyText || '(sin x-company-id)'} no existe.`);
  } else {
    if (typeof body.Nit === 'string' && body.Nit.trim() !== '' && body.Nit.trim() !== company.nit) {
      errors.push(`Nit: el nit ${body.Nit} no corresponde a la empresa ${company.id}.`);
    }
    if (
      company.ranges.some(
        (r) => r.Prefix === body.Prefix && r.ResolutionNumber === body.AuthorizationNumber,
      )
    ) {
      errors.push(
        `Ya existe un rango con prefijo ${String(body.Prefix)} y resolución ${String(body.AuthorizationNumber)}.`,
      );
    }
  }
  if (errors.length > 0 || !parsed.success || company === undefined)
    return envelopeReply(400, 400, false, null, errors);
  const request = parsed.data;
  const range: RangeState = {
    DocumentType: request.DocumentType,
    Prefix: request.Prefix,
    ResolutionNumber: request.AuthorizationNumber,
    ResolutionDate: null,
    TechnicalKey: null,
    FromNumber: request.StartValue,
    ToNumber: request.EndValue,
    ValidFrom: request.ValidFrom,
    ValidTo: request.ValidTo,
    Next: request.EfectiveValue ?? request.StartValue,
    Active: true,
  };
  company.ranges.push(range);
  state.changed();
  return envelopeReply(200, 200, true, [
    {
      FromNumber: String(range.FromNumber),
      ToNumber: String(range.ToNumber),
      Prefix: range.Prefix,
      ResolutionNumber: range.ResolutionNumber,
      ResolutionDate: null,
      ResolutionType: request.DocumentType,
      TechnicalKey: null,
      ValidDateFrom: range.ValidFrom,
      ValidDateTo: range.ValidTo,
    },
  ]);
}
