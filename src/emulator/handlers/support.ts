/**
 * E5 support document and E6 adjustment note. Data that do not allow issuing
 * (structure, the support rules, totals, numbering, for E6 the reference)
 * answer ResultCode 400 in HTTP 200 with ResultData repeating the message; an
 * authority rejection answers `Procesado con errores.`.
 */
import { colombiaDateTime } from '../../policy/dates.js';
import { adjustmentNoteRequestSchema } from '../../service/schemas/adjustment-note.js';
import { supportDocumentRequestSchema } from '../../service/schemas/support-document.js';
import { checkDigits } from '../../validate/check-digit.js';
import type { Problem } from '../../validate/problem.js';
import { supportRules } from '../../validate/support-rules.js';
import { supportTotals } from '../../validate/totals.js';
import { authenticate, unauthorizedReply } from '../auth.js';
import {
  envelopeReply,
  isRecord,
  issueMessages,
  parseJson,
  type EmulatorRequest,
  type Reply,
} from '../http.js';
import { issueDocument } from '../issue.js';
import { assignNumber, rangeContaining, rangeTypesFor } from '../numbering.js';
import type { CompanyState, DocKind, EmulatorState, IssuedDocument, RangeState } from '../state.js';
import { OK_MESSAGE } from './invoice.js';

export const SUPPORT_REJECTED_MESSAGE = 'Procesado con errores.';

function invalid(errors: string[], warnings: string[] = []): Reply {
  return envelopeReply(200, 400, false, errors.join(' '), errors, warnings);
}

function problemMessages(problems: Problem[]): string[] {
  return problems.map((p) => (p.path === '' ? p.message : `${p.path}: ${p.message}`));
}

type Start = { ok: true; company: CompanyState; body: unknown } | { ok: false; reply: Reply };

function start(state: EmulatorState, req: EmulatorRequest): Start {
  const auth = authenticate(state, req.headers);
  if (!auth.ok) return { ok: false, reply: unauthorizedReply(auth.companyText) };
  const json = parseJson(req.text);
  if (!json.ok) return { ok: false, reply: invalid([json.message]) };
  return { ok: true, company: auth.company, body: json.value };
}

interface Numbered {
  prefix: string;
  number: string;
  /** The current range the number lies in: the authority then does not check it again. */
  range: RangeState;
}

/**
 * The body's prefix + number, or the next consecutive of the current range (with its Warning).
 * Numbering is data that do not allow issuing (the spec's E5/E6 400 row): a number outside every
 * current range of its prefix, or a prefix without a current range of the document's type, is a
 * message for a 400, never a document that reaches the authority.
 */
function numberFor(
  state: EmulatorState,
  company: CompanyState,
  kind: DocKind,
  request: { SeriePrefix?: string; SerieNumber?: string },
  warnings: string[],
): Numbered | string {
  const prefix = request.SeriePrefix?.trim() ?? '';
  const number = request.SerieNumber?.trim() ?? '';
  const what = kind === 'support-document' ? 'documento soporte' : 'notas de ajuste';
  const noRange = `No hay una resolución de ${what} vigente${prefix === '' ? '' : ` con prefijo ${prefix}`} para la empresa ${company.id}.`;
  if (number !== '') {
    const range = rangeContaining(state, company, kind, prefix, number);
    if (range !== undefined) return { prefix, number, range };
    if (state.currentRanges(company, rangeTypesFor(kind), prefix).length === 0) return noRange;
    return `El número ${prefix}${number} no está dentro de un rango de numeración vigente de ${what} con prefijo ${prefix} para la empresa ${company.id}.`;
  }
  const assigned = assignNumber(state, company, kind, prefix === '' ? undefined : prefix);
  if (assigned === undefined) return noRange;
  warnings.push(assigned.warning);
  return { prefix: assigned.prefix, number: assigned.number, range: assigned.range };
}

/** A value the client did not send: absent, null or a blank string. */
function notSent(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

/** `sent` with every datum it lacks taken from `source`, field by field (nested objects too). */
function fillMissing(
  sent: Record<string, unknown>,
  source: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...sent };
  for (const [key, value] of Object.entries(source)) {
    const own = out[key];
    if (notSent(own)) out[key] = value;
    else if (isRecord(own) && isRecord(value)) out[key] = fillMissing(own, value);
  }
  return out;
}

/**
 * Rule 1: data not sent are completed from the provider registered under the
 * party's identification number, and otherwise from the issuing company, field
 * by field. The company only lends what it has (Name, Identification); an
 * Identification that was sent names another party, so it is never completed
 * with pieces of the company's.
 */
function completeSupplier(company: CompanyState, party: unknown): Record<string, unknown> {
  const sent = isRecord(party) ? party : {};
  const id = isRecord(sent.Identification) ? sent.Identification.DocumentNumber : undefined;
  const registered = typeof id === 'string' ? company.providers[id] : undefined;
  const known = registered === undefined ? sent : fillMissing(sent, registered);
  const fromCompany: Record<string, unknown> = { Name: company.name };
  if (!isRecord(known.Identification)) {
    fromCompany.Identification = {
      DocumentNumber: company.nit,
      DocumentType: '31',
      CountryCode: 'CO',
      CheckDigit: company.checkDigit,
    };
  }
  return fillMissing(known, fromCompany);
}

function reply(doc: IssuedDocument, warnings: string[]): Reply {
  if (doc.accepted) return envelopeReply(200, 200, true, OK_MESSAGE, [], warnings);
  return envelopeReply(200, 200, false, SUPPORT_REJECTED_MESSAGE, doc.reasons, warnings);
}

export function handleSupportDocument(state: EmulatorState, req: EmulatorRequest): Reply {
  const begun = start(state, req);
  if (!begun.ok) return begun.reply;
  const { company, body } = begun;
  const parsed = supportDocumentRequestSchema.safeParse(body);
  if (!parsed.success) return invalid(issueMessages(parsed.error.issues));
  const request = parsed.data;
  const problems = [...supportRules(request, { today: state.today() }), ...supportTotals(request)];
  if (problems.length > 0) return invalid(problemMessages(problems));
  const warnings: string[] = [];
  const numbered = numberFor(state, company, 'support-document', request, warnings);
  if (typeof numbered === 'string') return invalid([numbered]);

  const supplier = completeSupplier(company, request.SupplierParty ?? request.CustomerParty);
  const doc = issueDocument(
    state,
    {
      company,
      kind: 'support-document',
      prefix: numbered.prefix,
      number: numbered.number,
      range: numbered.range,
      checkDigits: checkDigits(request),
    },
    {
      ...request,
      SupplierParty: supplier,
      SeriePrefix: numbered.prefix,
      SerieNumber: numbered.number,
    },
  );
  const id = isRecord(supplier.Identification) ? supplier.Identification.DocumentNumber : undefined;
  if (doc.accepted && typeof id === 'string') {
    company.providers[id] = supplier;
    state.changed();
  }
  return reply(doc, warnings);
}

/** The accepted support document a reference points to, or the 400 message saying why not. */
function findReference(
  state: EmulatorState,
  company: CompanyState,
  ref: { DocumentReferred?: string; DocumentReferredCUFE?: string },
): IssuedDocument | string {
  const byNumber = (ref.DocumentReferred ?? '').trim();
  const byCufe = (ref.DocumentReferredCUFE ?? '').trim();
  const docs = state.documentsOf(company.id, 'support-document');
  const matches = docs.filter((d) =>
    byCufe !== '' ? d.cufe === byCufe : `${d.prefix}${d.number}` === byNumber,
  );
  const label = byCufe !== '' ? `con CUFE ${byCufe}` : byNumber;
  if (matches.length === 0)
    return `El documento referenciado ${label} no existe para la empresa ${company.id}.`;
  const accepted = matches.find((d) => d.accepted);
  if (accepted === undefined)
    return `El documento referenciado ${label} no fue aceptado por la autoridad.`;
  if (byCufe !== '' && byNumber !== '' && `${accepted.prefix}${accepted.number}` !== byNumber) {
    return `El CUFE ${byCufe} no corresponde al documento ${byNumber}.`;
  }
  return accepted;
}

/**
 * The note is issued with the current date: the rules' clock (Colombia's date,
 * or the seed's pinned `today`) with Colombia's wall-clock time, not UTC's.
 */
function issueDateNow(state: EmulatorState): string {
  const time = colombiaDateTime().slice(10);
  return `${state.today()}${time}`;
}

export function handleAdjustmentNote(state: EmulatorState, req: EmulatorRequest): Reply {
  const begun = start(state, req);
  if (!begun.ok) return begun.reply;
  const { company, body } = begun;
  if (isRecord(body) && body.Currency !== undefined && body.Currency !== 'COP') {
    return invalid([
      `Currency: solo se admite COP en las notas de ajuste (recibido '${String(body.Currency)}').`,
    ]);
  }
  const parsed = adjustmentNoteRequestSchema.safeParse(body);
  if (!parsed.success) return invalid(issueMessages(parsed.error.issues));
  const request = parsed.data;

  const referenced: IssuedDocument[] = [];
  const referenceErrors: string[] = [];
  for (const ref of request.DocumentReferences) {
    const found = findReference(state, company, ref);
    if (typeof found === 'string') referenceErrors.push(found);
    else referenced.push(found);
  }
  if (referenceErrors.length > 0) return invalid(referenceErrors);
  const original = referenced[0];

  const warnings: string[] = [];
  let effective: Record<string, unknown>;
  if (request.Lines !== undefined && request.Lines.length > 0) {
    const problems = [
      ...supportRules(request, { today: state.today() }),
      ...supportTotals(request),
    ];
    if (problems.length > 0) return invalid(problemMessages(problems));
    // The note's SupplierParty follows the support document rules, rule 1 included.
    effective = { ...request, SupplierParty: completeSupplier(company, request.SupplierParty) };
  } else {
    const source = isRecord(original.request) ? original.request : {};
    effective = {
      ...request,
      SupplierParty: source.SupplierParty,
      Lines: source.Lines,
      TaxSubTotals: source.TaxSubTotals,
      TaxTotals: source.TaxTotals,
      WithholdingTaxTotals: source.WithholdingTaxTotals,
      Total: source.Total,
    };
    warnings.push(
      `No se informaron líneas; se anula el documento ${original.prefix}${original.number} con su mismo detalle, impuestos y retenciones.`,
    );
  }
  const numbered = numberFor(state, company, 'support-adjustment', request, warnings);
  if (typeof numbered === 'string') return invalid([numbered], warnings);

  const doc = issueDocument(
    state,
    {
      company,
      kind: 'support-adjustment',
      prefix: numbered.prefix,
      number: numbered.number,
      range: numbered.range,
      checkDigits: checkDigits(request),
    },
    {
      ...effective,
      CorrectionConceptCode: request.CorrectionConceptCode ?? '2',
      CorrectionConcept: request.CorrectionConcept ?? 'Se anula documento',
      Currency: 'COP',
      IssueDate: issueDateNow(state),
      SeriePrefix: numbered.prefix,
      SerieNumber: numbered.number,
    },
  );
  return reply(doc, warnings);
}
