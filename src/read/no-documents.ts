/**
 * EDOC_READ_EMPTY for a file read to its end without one document. Where the mapping drops rows
 * (`rows.skip`), "holds no documents" alone is false for an export whose every row the mapping skipped:
 * an Odoo credit-note export in the invoice folder (its `move_type` is `out_refund`), a day of only
 * cancelled receipts. The message then says which rule drops rows, and what the operator may have meant.
 */
import { EdocError } from '../errors.js';
import type { Mapping } from '../map/mapping-types.js';
import { conditionText } from '../map/row-condition.js';

export function noDocumentsError(name: string, mapping: Mapping | undefined): EdocError {
  const skip = mapping?.rows?.skip;
  const message =
    skip === undefined
      ? `${name}: the file holds no documents`
      : `${name}: the file holds no documents for this folder: it has no data rows, or the mapping ` +
        `"${mapping?.name ?? ''}" dropped every one of them (rows.skip: ${conditionText(skip)}). Nothing was sent. ` +
        'If it is an export of another kind (credit notes in the invoice folder, say), drop it in that ' +
        "kind's folder; rows the mapping skips (drafts, cancelled documents) are never issued.";
  return new EdocError('EDOC_READ_EMPTY', message, { file: name });
}
