/**
 * A mapping's `kindCheck`: the columns of an export that show what a document
 * is, even where the mapping carries nothing of them into the request. The
 * sales layout's `motivo` goes to ReasonCredit only for credit notes, so a
 * credit note's export dropped in the invoice folder maps to a plain invoice:
 * only the export still shows the reason. Each entry names a column and the
 * kinds its cells show; a document whose rows show a kind that excludes its
 * folder's is invalid (validate/wrong-folder.ts), and no request is built.
 *
 * ```yaml
 * kindCheck:
 *   - column: motivo                     # any value: a note
 *     filled: [credit-note, debit-note]
 *   - column: tipo_documento             # the ERP's document type
 *     values: { FV: invoice, NC: credit-note, ND: debit-note }
 * ```
 */
import { DOCUMENT_KINDS, isDocumentKind, type DocumentKind } from '../kinds/index.js';
import type { KindSignal } from '../validate/wrong-folder.js';
import { mappingError } from './compile-node.js';
import type { RowView } from './eval-context.js';
import type { KindCheckInput } from './mapping-schema.js';
import type { KindCheck } from './mapping-types.js';

function kindsOf(input: string | string[], path: string, file: string): DocumentKind[] {
  const kinds = new Set<DocumentKind>();
  for (const [i, k] of (Array.isArray(input) ? input : [input]).entries()) {
    if (!isDocumentKind(k)) {
      throw mappingError(
        file,
        Array.isArray(input) ? `${path}[${i}]` : path,
        `unknown kind "${k}" (one of ${DOCUMENT_KINDS.join(', ')})`,
      );
    }
    kinds.add(k);
  }
  return [...kinds];
}

export function compileKindCheck(
  input: readonly KindCheckInput[] | undefined,
  file: string,
): KindCheck[] | undefined {
  if (input === undefined) return undefined;
  return input.map((item, i) => {
    const path = `kindCheck[${i}]`;
    if ((item.filled === undefined) === (item.values === undefined)) {
      throw mappingError(
        file,
        path,
        'takes exactly one of filled (any value shows these kinds) or values (value -> kinds)',
      );
    }
    const check: KindCheck = { column: item.column };
    if (item.filled !== undefined) check.filled = kindsOf(item.filled, `${path}.filled`, file);
    if (item.values !== undefined) {
      const values: Record<string, DocumentKind[]> = {};
      for (const [value, kinds] of Object.entries(item.values)) {
        const key = value.trim().toLowerCase();
        if (key === '')
          throw mappingError(
            file,
            `${path}.values`,
            'an empty value shows nothing: use filled for "any value"',
          );
        if (key in values)
          throw mappingError(
            file,
            `${path}.values.${value}`,
            `"${value}" is listed twice (values match case-insensitively)`,
          );
        values[key] = kindsOf(kinds, `${path}.values.${value}`, file);
      }
      check.values = values;
    }
    return Object.freeze(check);
  });
}

/** The signals of one document's rows: per entry and per kinds shown, the rows and the first value. */
export function mappingKindSignals(
  checks: readonly KindCheck[],
  rows: readonly RowView[],
): KindSignal[] {
  const out: KindSignal[] = [];
  for (const check of checks) {
    const byKinds = new Map<string, KindSignal>();
    for (const row of rows) {
      const value = row.get(check.column).trim();
      if (value === '') continue;
      const kinds = check.filled ?? check.values?.[value.toLowerCase()];
      if (kinds === undefined) continue;
      const id = kinds.join(',');
      const seen = byKinds.get(id);
      if (seen === undefined)
        byKinds.set(id, { field: check.column, column: true, value, kinds, rows: [row.row] });
      else seen.rows?.push(row.row);
    }
    out.push(...byKinds.values());
  }
  return out;
}
