/**
 * What one document kind needs, in one place: the operation that issues it, the wire schema its
 * request must match, where its own number (key) and issuer are, which totals rule and which guards
 * of PRODUCT's kinds table apply. Shared rules stay pure functions in validate/; a descriptor names
 * the ones its kind uses. The registry (registry.ts) holds one descriptor per kind.
 */
import type { z } from 'zod';
import type { ServiceClient } from '../service/client.js';
import type { CallOptions, ServiceCompany, ServiceResponse } from '../service/client-types.js';
import type { OperationId, PosTipoInput } from '../service/endpoints.js';
import type { Problem } from '../validate/problem.js';
import type { SupportRulesContext } from '../validate/support-rules.js';
import type { DocumentKey, PosNumbering } from './keys.js';
import type { DocumentKind } from './names.js';

/** How POS documents are sent (the `kinds.pos` settings; config/schema.ts's `PosKindConfig` fits it). */
export interface PosSending {
  /** E3 path parameter; when absent it comes from the file's name. */
  readonly tipo?: PosTipoInput | undefined;
  /** E3 (file upload) or E4 (JSON). */
  readonly endpoint: 'E3' | 'E4';
}

/** What a send needs besides the request. */
export interface SendContext {
  pos: PosSending;
  /** The input file's name (POS `tipo` may come from it). */
  fileName: string;
  options?: CallOptions;
}

/**
 * Numbers are unique per company + family + prefix (the authority's rule 90): invoices, credit and
 * debit notes all go through E1 and share the `invoice` family; every other kind is its own.
 */
export type NumberingFamily =
  'invoice' | 'payroll' | 'support-document' | 'support-adjustment' | 'pos';

export interface KindDescriptor {
  readonly name: DocumentKind;
  /** How messages name one: `a credit note`. */
  readonly label: string;
  /** The operation that issues it (PRODUCT's kinds table). POS: E3, or E4 where `kinds.pos.endpoint` says so. */
  readonly endpoint: OperationId;
  readonly numbering: NumberingFamily;
  /**
   * The request is its operation's JSON body as it is: a stored text that is exactly `JSON.stringify(request)`
   * may be sent in its place (a `JsonText` given to `send`). POS builds its body from the request: not so.
   */
  readonly bodyIsRequest?: true;
  /** Issues one validated request at its operation (`request` a `JsonText` only where `bodyIsRequest`). */
  send(
    client: ServiceClient,
    company: ServiceCompany,
    request: unknown,
    ctx: SendContext,
  ): Promise<ServiceResponse>;
  /** The zod schema the request must match (POS: the E4 body or the E3 content, by the request's shape). */
  schema(request: unknown): z.ZodType;
  /** The document's own prefix + number, when it carries one (kinds/document-key.ts explains why it matters). */
  key(request: unknown, form?: PosNumbering): DocumentKey | undefined;
  /**
   * Dotted path of the document's own number in the request: what a problem with the number (a number
   * outside every range) names, as the export's column where a mapping read it.
   */
  readonly numberPath: string;
  /** The prefix the request names, with or without its number. */
  prefix(request: unknown): string | undefined;
  /** Dotted path of the issuer's tax id in the request (checked against the company's NIT); none: not checked. */
  readonly issuerPath?: string;
  /**
   * The other party's identification (the customer, the supplier of a support document, the worker of a
   * payroll), as the operator searches for it in the console; undefined when the request names none.
   */
  customer(request: unknown): string | undefined;
  /** The guards of PRODUCT's kinds table, on a request that is a JSON object. */
  guards(request: Record<string, unknown>): Problem[];
  /** The totals rule: amounts that must add up. */
  totals(request: unknown): Problem[];
  /** Further rules of the kind (the support-document rules, which need the date; the payroll period). */
  rules(request: unknown, ctx: SupportRulesContext): Problem[];
}

/** For descriptors without a rule of that stage. */
export function none(): Problem[] {
  return [];
}
