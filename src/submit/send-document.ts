/**
 * One document to the operation of its kind (its descriptor's `send`, src/kinds/). The request
 * was validated before it was queued; this only picks the endpoint and its inputs.
 */
import { kindOf, type DocumentKind, type SendContext } from '../kinds/index.js';
import type { ServiceClient } from '../service/client.js';
import type { ServiceCompany, ServiceResponse } from '../service/client-types.js';

export { posTipoFor, type SendContext } from '../kinds/index.js';

export function sendDocument(client: ServiceClient, company: ServiceCompany, kind: DocumentKind, request: unknown,
  ctx: SendContext): Promise<ServiceResponse> {
  return kindOf(kind).send(client, company, request, ctx);
}
