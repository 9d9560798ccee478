/**
 * One document to the operation of its kind (its descriptor's `send`, src/kinds/). The request
 * was validated before it was queued; this only picks the endpoint and its inputs. Where the kind's
 * body is the request itself and the ledger holds its exact JSON text, that text is sent as is.
 */
import { kindOf, type DocumentKind, type SendContext } from '../kinds/index.js';
import type { DueDocument } from '../ledger/types.js';
import { RequestNotStarted, type CompanyRate } from '../rate/company-rate.js';
import type { ServiceClient } from '../service/client.js';
import type { ServiceCompany, ServiceResponse } from '../service/client-types.js';
import { JsonText } from '../service/json-text.js';

export { posTipoFor, type SendContext } from '../kinds/index.js';

/** `doc.requestText`: exactly `JSON.stringify(doc.request)` when given (`DueDocument.requestText`). */
export function sendDocument(
  client: ServiceClient,
  company: ServiceCompany,
  doc: { kind: DocumentKind; request: unknown; requestText?: string },
  ctx: SendContext,
): Promise<ServiceResponse> {
  const kind = kindOf(doc.kind);
  const request =
    kind.bodyIsRequest === true && doc.requestText !== undefined
      ? new JsonText(doc.requestText)
      : doc.request;
  return kind.send(client, company, request, ctx);
}

/** What the service is told of the company: its id, key and user (no other setting). */
export function serviceCompany(c: { id: number; apiKey: string; userId?: number }): {
  id: number;
  apiKey: string;
  userId?: number;
} {
  return c.userId === undefined
    ? { id: c.id, apiKey: c.apiKey }
    : { id: c.id, apiKey: c.apiKey, userId: c.userId };
}

/**
 * One due document within a slot of its company's rate, dated when its answer comes (`CompanyRate.send`),
 * if `mayStart` still says so once the slot came; undefined if not (the request never left).
 */
export async function sendInSlot(
  rate: CompanyRate,
  client: ServiceClient,
  company: { id: number; apiKey: string; userId?: number },
  doc: DueDocument,
  how: { pos: SendContext['pos']; signal: AbortSignal; mayStart: () => boolean },
): Promise<ServiceResponse | undefined> {
  const ctx = { pos: how.pos, fileName: doc.fileName, options: { signal: how.signal } };
  try {
    return await rate.send(
      () => sendDocument(client, serviceCompany(company), doc, ctx),
      how.signal,
      how.mayStart,
    );
  } catch (err) {
    if (err instanceof RequestNotStarted) return undefined;
    throw err;
  }
}
