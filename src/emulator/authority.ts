/**
 * The emulator plays the tax authority too. A document reaching it is
 * rejected (IsValid false, HTTP 200) with reasons `Regla: CODE, Rechazo: text`:
 *   90     the number was already accepted for the company + family + prefix (spec)
 *   FAD05  the number lies outside every current range of its prefix (emulator's own code; E1 and
 *          POS only: for E5/E6 the spec lists numbering among the 400 data errors, support.ts)
 *   FAU04  amounts do not add up: lines vs Total, tax = base × rate (emulator's own code)
 *   DRF01  a credit or debit note without a reference to the corrected document (emulator's own code)
 *   FAJ24  a check digit does not match its NIT (emulator's own code)
 *   NIE024 payroll: ComprobanteTotal is not DevengadosTotal − DeduccionesTotal (emulator's own code)
 */
import { createHash } from 'node:crypto';
import type { Problem } from '../validate/problem.js';
import { rangeContaining } from './numbering.js';
import type { CompanyState, DocKind, EmulatorState, RangeState } from './state.js';
import { familyOf } from './state.js';

export const REGLA_90 = 'Regla: 90, Rechazo: Documento procesado anteriormente.';

export function regla(code: string, text: string): string {
  return `Regla: ${code}, Rechazo: ${text}`;
}

export interface VerdictInput {
  company: CompanyState;
  kind: DocKind;
  prefix: string;
  number: string;
  /** False for payroll, whose numbering is the company's payroll prefix rather than a range. */
  checkRange?: boolean;
  /** The range the caller already found the number in (E5/E6): not checked again. */
  range?: RangeState;
  totals?: Problem[];
  checkDigits?: Problem[];
  /** Credit / debit notes: whether the request refers to the corrected document. */
  missingReference?: boolean;
  extra?: string[];
}

export interface Verdict {
  reasons: string[];
  range: RangeState | undefined;
}

export function authorityVerdict(state: EmulatorState, input: VerdictInput): Verdict {
  const reasons: string[] = [];
  const { company, kind, prefix, number } = input;
  if (state.findAccepted(company.id, familyOf(kind), prefix, number) !== undefined)
    reasons.push(REGLA_90);
  let range: RangeState | undefined = input.range;
  if (range === undefined && input.checkRange !== false) {
    range = rangeContaining(state, company, kind, prefix, number);
    if (range === undefined) {
      reasons.push(
        regla(
          'FAD05',
          `El número ${prefix}${number} no está dentro de un rango de numeración vigente del prefijo ${prefix}.`,
        ),
      );
    }
  }
  for (const p of input.totals ?? []) reasons.push(regla('FAU04', `${p.path}: ${p.message}`));
  if (input.missingReference === true) {
    reasons.push(regla('DRF01', 'La nota no referencia el documento que corrige.'));
  }
  for (const p of input.checkDigits ?? []) reasons.push(regla('FAJ24', `${p.path}: ${p.message}`));
  reasons.push(...(input.extra ?? []));
  return { reasons, range };
}

/** CUFE / CUDE / CUNE: SHA-384 hex of what makes the document unique, plus the moment it was issued. */
export function documentCode(
  company: CompanyState,
  kind: DocKind,
  prefix: string,
  number: string,
  issuedAt: string,
): string {
  return createHash('sha384')
    .update(`${company.nit}|${kind}|${prefix}${number}|${issuedAt}`)
    .digest('hex');
}
