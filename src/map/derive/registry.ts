/**
 * Named derivations a mapping selects with `derive:`. They compute what the
 * layouts page derives (amounts, taxes, totals) from the request already built
 * from the columns, so the column wiring stays in YAML.
 */
import type { EvalContext } from '../evaluate-value.js';
import { supportAdjustmentTotals } from './adjustment-totals.js';
import { payrollTotals } from './payroll-totals.js';
import { posTotals } from './pos-totals.js';
import { salesTotals } from './sales-totals.js';
import { supportTotals } from './support-totals.js';

export interface DeriveLine {
  fields: Record<string, unknown>;
  /** The derivation's named line inputs (e.g. `vat: '19.00'`), undefined when empty. */
  inputs: Record<string, unknown>;
  rows: number[];
}

export interface DeriveInput {
  request: Record<string, unknown>;
  lines: DeriveLine[];
  linesField: string;
  ctx: EvalContext;
}

export type Derivation = (input: DeriveInput) => void;

const DERIVATIONS: Record<string, Derivation> = {
  'sales-totals': salesTotals,
  'support-totals': supportTotals,
  'payroll-totals': payrollTotals,
  'support-adjustment-totals': supportAdjustmentTotals,
  'pos-totals': posTotals,
};

export function isKnownDerivation(name: string): boolean {
  return Object.hasOwn(DERIVATIONS, name);
}

export function getDerivation(name: string): Derivation {
  return DERIVATIONS[name];
}
