/**
 * The ledger key of a document the service numbered, once it is accepted: the number the service
 * says it assigned (src/service/issued.ts), in the same form as a request's own number. Stored as
 * the document's key, it lets `status`, `retry`/`resolve` and the duplicate check know the document by
 * its number: a later file carrying that number is reported `duplicate` without a request.
 */
import type { DueDocument } from '../ledger/types.js';
import { makeKey } from '../ledger/rows.js';
import type { ServiceResponse } from '../service/client-types.js';
import { issuedNumberIn } from '../service/issued.js';
import { keyFrom, requestPrefix } from '../kinds/document-key.js';

export function assignedKey(doc: DueDocument, response: ServiceResponse): string | undefined {
  if (doc.key !== null) return undefined;
  const found = issuedNumberIn(
    response.body,
    response.outcome.warnings,
    requestPrefix(doc.kind, doc.request),
  );
  const key = found === undefined ? undefined : keyFrom(found.prefix, found.number);
  return key === undefined
    ? undefined
    : makeKey(doc.company, doc.kind, `${key.prefix}/${key.number}`);
}
