/**
 * What a request in the service's shape says about its own kind (the signals
 * of wrong-folder.ts), from the spec and PRODUCT's kinds table only:
 *
 * - E1 infers the type from the reasons: `ReasonCredit` with a value gives a
 *   credit note; otherwise `ReasonDebit` with a value a debit note. A reason of
 *   the other note is also a sign (a credit note with a ReasonDebit), but a
 *   blank ReasonDebit beside a ReasonCredit is none: the service ignores it.
 * - A `DocumentReferences` entry naming a document is no sign within E1: the
 *   spec lists `DocumentReferences` (with a `Type`) among the invoice's own
 *   fields and tells a note by its reasons only, so an invoice may name an
 *   order or another document. The support document (E5) has no such field:
 *   there a reference is the corrected document of an adjustment note (E6).
 * - Fields that only one resource of the spec has place a request in its
 *   family: payroll (`Trabajador`, `Devengados`, …), POS (`documento`,
 *   `detalles`, `jsonOriginal`, …), support (`SupplierParty`,
 *   `WithholdingTaxTotals`), the adjustment note (`CorrectionConceptCode`,
 *   `CorrectionConcept`) and E1 (`IssuerParty`). Together with the above they
 *   narrow the kind: a reference plus `SupplierParty` is an adjustment note.
 *   Payroll's `TipoNota` 1 and 2 are still payroll (E2 serves all three).
 */
import { arr, filled, isObj, obj, text } from './access.js';
import type { DocumentKind } from '../kinds/names.js';
import type { KindSignal } from './wrong-folder.js';

const SALES: readonly DocumentKind[] = ['invoice', 'credit-note', 'debit-note'];
const SUPPORT: readonly DocumentKind[] = ['support-document', 'support-adjustment'];

/** Fields of one resource only, that place a request in that family. */
const FAMILY_FIELDS: readonly { kinds: readonly DocumentKind[]; fields: readonly string[] }[] = [
  {
    kinds: ['payroll'],
    fields: [
      'TipoNota',
      'Trabajador',
      'Empleador',
      'Devengados',
      'Deducciones',
      'NumeroSecuenciaXML',
      'ComprobanteTotal',
    ],
  },
  {
    kinds: ['pos'],
    fields: ['documento', 'detalles', 'adquiriente', 'totales', 'jsonOriginal', 'tipoFactura'],
  },
  { kinds: SUPPORT, fields: ['SupplierParty', 'WithholdingTaxTotals'] },
  { kinds: ['support-adjustment'], fields: ['CorrectionConceptCode', 'CorrectionConcept'] },
  { kinds: SALES, fields: ['IssuerParty'] },
];

/** Any character counts: the service may read a blank reason as "has a value" (kind-guards.ts). */
function present(value: unknown): boolean {
  return typeof value === 'string' ? value.length > 0 : value !== undefined && value !== null;
}

function valueText(value: unknown): string {
  return text(value) ?? JSON.stringify(value) ?? '';
}

/** The entries of DocumentReferences that name a document (by number or code). */
function references(r: Record<string, unknown>): { index: number; named: string }[] {
  const out: { index: number; named: string }[] = [];
  (arr(r.DocumentReferences) ?? []).forEach((ref, index) => {
    if (!isObj(ref)) return;
    const named = [ref.DocumentReferred, ref.DocumentReferredCUFE].find(filled);
    if (typeof named === 'string') out.push({ index, named });
  });
  return out;
}

export function requestKindSignals(request: unknown): KindSignal[] {
  const r = obj(request);
  if (r === undefined) return [];
  const signals: KindSignal[] = [];
  for (const family of FAMILY_FIELDS) {
    const found = family.fields.filter((f) => r[f] !== undefined && r[f] !== null);
    if (found.length > 0)
      signals.push({ field: found[0], value: '', kinds: family.kinds, fields: found });
  }
  if (present(r.ReasonCredit))
    signals.push({
      field: 'ReasonCredit',
      value: valueText(r.ReasonCredit),
      kinds: ['credit-note'],
    });
  // E1 reads ReasonDebit only when ReasonCredit is empty: beside a ReasonCredit, a blank one shows nothing.
  const debitShows = present(r.ReasonCredit) ? filled(r.ReasonDebit) : present(r.ReasonDebit);
  if (debitShows)
    signals.push({ field: 'ReasonDebit', value: valueText(r.ReasonDebit), kinds: ['debit-note'] });
  const refs = references(r);
  if (refs.length > 0) {
    signals.push({
      field: `DocumentReferences[${refs[0].index}]`,
      value: refs[0].named,
      kinds: ['invoice', 'credit-note', 'debit-note', 'support-adjustment'],
    });
  }
  return signals;
}
