/**
 * The PRODUCT kinds table: the inbox folder says what the document must be, and
 * E1 infers its type from ReasonCredit / ReasonDebit, so a stray reason would
 * silently issue a credit note instead of an invoice. These guards stop that.
 * Each kind's guards are in its descriptor (src/kinds/); the shared ones in
 * guard-rules.ts. A document whose own fields show another kind (a ReasonDebit
 * in the credit-note folder) is reported before them, by wrong-folder.ts.
 */
import { kindOf, type DocumentKind } from './index.js';
import { obj } from '../validate/access.js';
import { KIND } from '../validate/guard-rules.js';
import { problem, type Problem } from '../validate/problem.js';

export function kindGuards(kind: DocumentKind, request: unknown): Problem[] {
  const r = obj(request);
  if (r === undefined) return [problem(KIND, '', `A ${kind} request must be a JSON object`)];
  return kindOf(kind).guards(r);
}
