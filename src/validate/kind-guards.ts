/**
 * The PRODUCT kinds table: the inbox folder says what the document must be, and
 * E1 infers its type from ReasonCredit / ReasonDebit, so a stray reason would
 * silently issue a credit note instead of an invoice. These guards stop that.
 * A document whose own fields show another kind (a ReasonDebit in the
 * credit-note folder) is reported before them, by wrong-folder.ts.
 */
import type { DocumentKind } from './kinds.js';
import { arr, filled, isObj, obj, str, text } from './access.js';
import { joinPath, problem, type Problem } from './problem.js';

const KIND = 'EDOC_VALIDATE_KIND' as const;

export function kindGuards(kind: DocumentKind, request: unknown): Problem[] {
  const r = obj(request);
  if (r === undefined) return [problem(KIND, '', `A ${kind} request must be a JSON object`)];
  switch (kind) {
    case 'invoice':
      return [...invoiceGuard(r), ...linesGuard(kind, r)];
    case 'credit-note':
      return [...creditNoteGuard(r), ...linesGuard(kind, r)];
    case 'debit-note':
      return [...debitNoteGuard(r), ...linesGuard(kind, r)];
    case 'payroll':
      return payrollGuard(r);
    case 'support-adjustment':
      return supportAdjustmentGuard(r);
    case 'support-document':
      return linesGuard(kind, r);
    case 'pos':
      return [];
  }
}

/**
 * The spec does not say which E1/E5 fields are required, so the schemas require none; but a document
 * without a single line is no business document — an empty `{}` would otherwise be issued under the
 * company's next number. (Our own rule, documented in README "Decisions".)
 */
function linesGuard(kind: DocumentKind, r: Record<string, unknown>): Problem[] {
  const lines = arr(r.Lines);
  return lines === undefined || lines.length === 0
    ? [problem(KIND, 'Lines', `A ${kind} needs at least one entry in Lines; an empty document is not sent`)]
    : [];
}

/** Any character at all counts: the service may read a blank reason as "has a value". */
function present(value: unknown): boolean {
  return typeof value === 'string' ? value.length > 0 : value !== undefined && value !== null;
}

function invoiceGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  if (present(r.ReasonCredit)) out.push(problem(KIND, 'ReasonCredit', 'An invoice must not carry ReasonCredit (the service would issue a credit note)'));
  if (present(r.ReasonDebit)) out.push(problem(KIND, 'ReasonDebit', 'An invoice must not carry ReasonDebit (the service would issue a debit note)'));
  return out;
}

function creditNoteGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  if (!filled(r.ReasonCredit)) out.push(problem(KIND, 'ReasonCredit', 'A credit note requires ReasonCredit (without it the service issues an invoice)'));
  const refs = arr(r.DocumentReferences);
  if (refs === undefined || refs.length === 0) out.push(problem(KIND, 'DocumentReferences', 'A credit note requires a DocumentReferences entry naming the corrected invoice'));
  return out;
}

function debitNoteGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  if (!filled(r.ReasonDebit)) out.push(problem(KIND, 'ReasonDebit', 'A debit note requires ReasonDebit (without it the service issues an invoice)'));
  if (present(r.ReasonCredit)) out.push(problem(KIND, 'ReasonCredit', 'A debit note must have an empty ReasonCredit (the service would issue a credit note)'));
  return out;
}

/** TipoNota: absent or '' = normal payroll, '1' = adjustment (Reemplazar), '2' = elimination (Eliminar). */
function payrollGuard(r: Record<string, unknown>): Problem[] {
  const raw = r.TipoNota;
  const tipo = raw === undefined || raw === null ? '' : text(raw)?.trim();
  if (tipo === undefined || !['', '1', '2'].includes(tipo)) {
    return [problem(KIND, 'TipoNota', `TipoNota must be empty (payroll), 1 (adjustment note) or 2 (elimination note), not ${JSON.stringify(raw)}`)];
  }
  const out: Problem[] = [];
  const hasReplace = r.Reemplazar !== undefined && r.Reemplazar !== null;
  const hasDelete = r.Eliminar !== undefined && r.Eliminar !== null;
  if (hasReplace && tipo !== '1') {
    out.push(problem(KIND, 'Reemplazar', `The Reemplazar block belongs to an adjustment note (TipoNota 1), but TipoNota is ${tipo === '' ? 'empty' : tipo}`));
  }
  if (hasDelete && tipo !== '2') {
    out.push(problem(KIND, 'Eliminar', `The Eliminar block belongs to an elimination note (TipoNota 2), but TipoNota is ${tipo === '' ? 'empty' : tipo}`));
  }
  return out;
}

function supportAdjustmentGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  const refs = arr(r.DocumentReferences);
  if (refs === undefined || refs.length === 0) {
    out.push(problem(KIND, 'DocumentReferences', 'A support adjustment note requires DocumentReferences naming the corrected support document'));
  } else {
    refs.forEach((ref, i) => {
      if (!isObj(ref) || (!filled(ref.DocumentReferred) && !filled(ref.DocumentReferredCUFE))) {
        out.push(problem(KIND, joinPath('DocumentReferences', i, 'DocumentReferred'), 'A document reference needs DocumentReferred or DocumentReferredCUFE'));
      }
    });
  }
  const currency = str(r.Currency);
  if (r.Currency !== undefined && r.Currency !== null && currency !== 'COP') {
    out.push(problem(KIND, 'Currency', `An adjustment note admits only currency COP, not ${JSON.stringify(r.Currency)}`));
  }
  // Sending Lines at all (even an empty list) means "adjust with this detail", not "annul".
  if (arr(r.Lines) !== undefined) {
    if (!isObj(r.SupplierParty)) out.push(problem(KIND, 'SupplierParty', 'SupplierParty is required when Lines are sent'));
    if (!isObj(r.Total)) out.push(problem(KIND, 'Total', 'Total is required when Lines are sent'));
  }
  return out;
}
