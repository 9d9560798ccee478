/**
 * How a repeated-number answer (Regla 90) and a lost answer (in doubt) are worded for an operator: one
 * place for the ledger (resolve --not-ours, recovery) and the submit stage, so errors.csv, result.json and
 * status say the same.
 */
import { correctionAdvice, type DocumentKind } from '../kinds/index.js';

/** `SETP990000001` from the key `main/invoice/SETP/990000001` (prefix + number as the authority shows it). */
export function documentNumber(key: string | null): string | undefined {
  if (key === null) return undefined;
  const parts = key.split('/');
  return parts.length >= 4 ? parts.slice(2).join('') : undefined;
}

/** The service holds another document under this number, and nothing of ours with it can have reached it. */
export function numberClashMessage(key: string | null): string {
  const number = documentNumber(key);
  return (
    `The number ${number ?? 'of this document'} is already used at the service by another document ` +
    '(Regla 90, Documento procesado anteriormente); this document was not issued. Give it a new number and send it again.'
  );
}

/**
 * The service holds a document under this number, and an earlier attempt of ours may have delivered it.
 * `kind` and `note` (a POS adjustment note) choose the correction an earlier export issued needs.
 */
export function repeatedNumberMessage(
  key: string | null,
  place: string,
  kind: DocumentKind = 'invoice',
  note = false,
): string {
  const number = documentNumber(key) ?? 'of this document';
  const ref = key ?? place;
  const correct =
    kind === 'invoice'
      ? 'annul or correct it with a credit or debit note first, or a new number issues the sale twice'
      : `correct it first (${correctionAdvice(kind, number, note)}), or a new number issues it twice`;
  return (
    `The service already holds a document under the number ${number} (Regla 90), and an earlier attempt of ours ` +
    'with that number may have delivered it, so this is not a confirmed acceptance. Check at the authority which ' +
    `document it holds under ${number}: if it is this one, run edoc-bridge resolve --document ${ref} --issued; ` +
    `if it is not, run edoc-bridge resolve --document ${ref} --not-ours (and give the document a new number; ` +
    'if what it holds is an earlier export of this same document with other content, that export is the one ' +
    `issued: ${correct}).`
  );
}

/**
 * What an operator does with a document in doubt for a lost answer (`no-answer`): it may be issued, so it
 * is looked up at the service before anything else. `ref`: how resolve and retry name it (its key, or
 * FILE#INDEX), or undefined where one text serves several documents.
 */
export function inDoubtAdvice(ref?: string): string {
  const key = ref ?? 'KEY';
  return (
    'It may be issued: check on the service (its issued documents, or the DIAN portal) whether it holds this ' +
    `document, then run edoc-bridge resolve --document ${key} --issued if it does, or edoc-bridge retry --document ` +
    `${key} --in-doubt if it does not${ref === undefined ? ' (KEY as edoc-bridge status shows it)' : ''}.`
  );
}
