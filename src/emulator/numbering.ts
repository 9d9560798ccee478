/**
 * Numbering as the service does it: the current range of a document type
 * (active, valid today) hands out its next consecutive when a request omits
 * its number; a number sent by the client must fall inside a current range of
 * its prefix.
 */
import type { RangeDocumentType } from './seed.js';
import type { CompanyState, DocKind, EmulatorState, RangeState } from './state.js';

/** Which range types number each kind of document. */
export function rangeTypesFor(kind: DocKind): RangeDocumentType[] {
  switch (kind) {
    case 'invoice':
      return ['Invoice', 'ContingencyInvoice'];
    case 'credit-note':
      return ['CreditNote'];
    case 'debit-note':
      return ['DebitNote'];
    case 'support-document':
      return ['SupportDocument'];
    case 'support-adjustment':
      return ['SupportAdjustmentNote'];
    default:
      return ['Pos'];
  }
}

export interface Assigned {
  range: RangeState;
  prefix: string;
  number: string;
  warning: string;
}

/** The next consecutive of the first current range (of `prefix` when given) that still has numbers. */
export function assignNumber(
  state: EmulatorState,
  company: CompanyState,
  kind: DocKind,
  prefix?: string,
): Assigned | undefined {
  const range = state
    .currentRanges(company, rangeTypesFor(kind), prefix)
    .find((r) => r.Next <= r.ToNumber);
  if (range === undefined) return undefined;
  const number = String(range.Next);
  return {
    range,
    prefix: range.Prefix,
    number,
    warning:
      `Se usó la numeración por defecto ${range.Prefix} (resolución ${range.ResolutionNumber}), ` +
      `vigente hasta ${range.ValidTo.slice(0, 10)}; número asignado ${range.Prefix}${number}.`,
  };
}

/** The current range of `prefix` that contains `number`, if any. */
export function rangeContaining(
  state: EmulatorState,
  company: CompanyState,
  kind: DocKind,
  prefix: string,
  number: string,
): RangeState | undefined {
  if (!/^\d{1,15}$/.test(number)) return undefined;
  const n = Number(number);
  return state
    .currentRanges(company, rangeTypesFor(kind), prefix)
    .find((r) => r.FromNumber <= n && n <= r.ToNumber);
}

/** After an acceptance: the range's next consecutive moves past the number used. */
export function advanceRange(range: RangeState | undefined, number: string): void {
  if (range === undefined || !/^\d{1,15}$/.test(number)) return;
  const n = Number(number);
  if (n >= range.Next) range.Next = n + 1;
}
