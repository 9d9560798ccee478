/**
 * Everything the bridge checks before sending a document, and everything the
 * emulator rejects. First whether the document belongs in this folder at all
 * (wrong-folder.ts); then the wire schema of the kind's resource, the kind
 * guards, NIT check digits, the issuer's NIT, the supplier of a support document (someone else than
 * the company), totals and the support-document rules.
 */
import type { z } from 'zod';
import { kindOf, type DocumentKind } from './index.js';
import { excerpt } from '../policy/excerpt.js';
import { formatZodIssues } from '../service/schemas/index.js';
import { normaliseIdNumber } from '../policy/nit.js';
import { obj, text } from '../validate/access.js';
import { checkDigits } from '../validate/check-digit.js';
import { kindGuards } from './kind-guards.js';
import { posTipoProblems } from './pos.js';
import { problem, type Problem } from '../validate/problem.js';
import { requestKindSignals } from '../validate/request-kind-signals.js';
import { judgeKindSignals } from '../validate/wrong-folder.js';

export interface ValidateContext {
  /** Colombia's current date, `yyyy-MM-dd` (the 6-day PeriodStartDate rule). */
  today: string;
  /** The company's NIT: when given, the request's issuer (or payroll employer) must be it. */
  issuerNit?: string;
  /** The E3 `tipo` a POS document is sent as (`posTipoFor`); `pos` when not given. */
  posTipo?: string;
}

export function validateDocument(
  kind: DocumentKind,
  request: unknown,
  ctx: ValidateContext,
): Problem[] {
  // A document of another kind is reported as that alone: the rules of this folder's kind do not apply to it.
  const elsewhere = judgeKindSignals(kind, requestKindSignals(request));
  if (elsewhere.length > 0) return elsewhere;
  const descriptor = kindOf(kind);
  const schemaProblems = checkSchema(kind, request);
  const ruleProblems = [
    ...kindGuards(kind, request),
    ...checkDigits(request, { nitDigits: true }),
    ...checkIssuer(kind, request, ctx.issuerNit),
    ...checkSupplier(kind, request, ctx.issuerNit),
    ...(kind === 'pos' ? posTipoProblems(request, ctx.posTipo ?? 'pos') : []),
    ...descriptor.rules(request, ctx),
  ];
  const totalProblems = descriptor.totals(request);
  // One message per field: a later stage stays quiet about a path an earlier one
  // already reported (a malformed amount is not also a sum that fails to add up).
  const out: Problem[] = [];
  const reported = new Set<string>();
  for (const stage of [schemaProblems, ruleProblems, totalProblems]) {
    const here = new Set<string>();
    for (const p of stage) {
      const id = `${p.code}\u0000${p.path}\u0000${p.message}`;
      if (reported.has(p.path) || here.has(id)) continue;
      here.add(id);
      out.push(p);
    }
    for (const p of stage) reported.add(p.path);
  }
  return out;
}

/** The zod schema the kind's request must match (its descriptor's). */
export function schemaFor(kind: DocumentKind, request?: unknown): z.ZodType {
  return kindOf(kind).schema(request);
}

function checkSchema(kind: DocumentKind, request: unknown): Problem[] {
  const result = schemaFor(kind, request).safeParse(request);
  if (result.success) return [];
  return formatZodIssues(result.error).map((i) =>
    problem('EDOC_VALIDATE_SCHEMA', i.path, i.message),
  );
}

function checkIssuer(
  kind: DocumentKind,
  request: unknown,
  issuerNit: string | undefined,
): Problem[] {
  if (issuerNit === undefined || issuerNit.trim() === '') return [];
  const r = obj(request);
  if (r === undefined) return [];
  const expected = normaliseIdNumber(issuerNit);
  const found = issuerOf(kind, r);
  if (
    found === undefined ||
    found.value.trim() === '' ||
    normaliseIdNumber(found.value) === expected
  )
    return [];
  return [
    problem(
      'EDOC_VALIDATE_ISSUER',
      found.path,
      `The issuer NIT ${excerpt(found.value)} is not the company's NIT ${expected}`,
    ),
  ];
}

/**
 * A support document is a purchase from someone else: a supplier named with the company's own NIT (a
 * mapping that reads the issuer's columns for the supplier) would issue the company a document of a
 * purchase from itself. The bridge's own check; the spec shows no such rule, so the emulator has none.
 * A supplier not identified at all is sent: the service completes it from the provider registered
 * for the company (spec, support document rule 1), which the bridge cannot see. The party is
 * `SupplierParty`, else `CustomerParty` (its equivalent); an adjustment note names one only with Lines.
 */
function checkSupplier(
  kind: DocumentKind,
  request: unknown,
  issuerNit: string | undefined,
): Problem[] {
  const r = obj(request);
  if (r === undefined) return [];
  let name: 'SupplierParty' | 'CustomerParty' = 'SupplierParty';
  if (kind === 'support-document') {
    if ((r.SupplierParty === undefined || r.SupplierParty === null) && obj(r.CustomerParty))
      name = 'CustomerParty';
  } else if (kind !== 'support-adjustment' || !Array.isArray(r.Lines)) {
    return [];
  }
  const path = `${name}.Identification.DocumentNumber`;
  const id = text(valueAt(r, path))?.trim() ?? '';
  // not sent: the service completes it from the provider registered for the company (spec rule 1),
  // which the bridge cannot see; only a supplier named as the company itself is refused here
  if (id === '') return [];
  if (issuerNit === undefined || issuerNit.trim() === '') return [];
  const company = normaliseIdNumber(issuerNit);
  if (normaliseIdNumber(id) !== company) return [];
  return [
    problem(
      'EDOC_VALIDATE_SUPPLIER',
      path,
      `The supplier ${excerpt(id)} is the company itself (NIT ${company}); a support document records a purchase from someone else: it is not sent`,
    ),
  ];
}

/** The issuer's NIT a request of `kind` names, as written, and where; undefined when the kind or request has none. */
export function issuerOf(
  kind: DocumentKind,
  request: unknown,
): { path: string; value: string } | undefined {
  const path = kindOf(kind).issuerPath;
  const r = obj(request);
  if (path === undefined || r === undefined) return undefined;
  const value = text(valueAt(r, path));
  return value === undefined ? undefined : { path, value };
}

/** The value at a dotted path of objects (`IssuerParty.Identification.DocumentNumber`). */
function valueAt(r: Record<string, unknown>, path: string): unknown {
  const parts = path.split('.');
  const leaf = parts.pop() ?? '';
  let at: Record<string, unknown> | undefined = r;
  for (const part of parts) at = obj(at?.[part]);
  return at?.[leaf];
}
