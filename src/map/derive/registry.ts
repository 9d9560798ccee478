/**
 * Named derivations a mapping selects with `derive:`. They compute what the
 * layouts page derives (amounts, taxes, totals) from the request already built
 * from the columns, so the column wiring stays in YAML.
 */
import type { Derivation } from './derive-types.js';
import { supportAdjustmentTotals } from './adjustment-totals.js';
import { payrollTotals } from './payroll-totals.js';
import { posTotals } from './pos-totals.js';
import { salesTotals } from './sales-totals.js';
import { supportTotals } from './support-totals.js';

export type { Derivation, DeriveInput, DeriveLine } from './derive-types.js';

const DERIVATIONS: Record<string, Derivation> = {
  'sales-totals': salesTotals,
  'support-totals': supportTotals,
  'payroll-totals': payrollTotals,
  'support-adjustment-totals': supportAdjustmentTotals,
  'pos-totals': posTotals,
};

/** The names `derive` accepts. */
export const DERIVATION_NAMES: readonly string[] = Object.keys(DERIVATIONS);

export function isKnownDerivation(name: string): boolean {
  return Object.hasOwn(DERIVATIONS, name);
}

export function getDerivation(name: string): Derivation {
  return DERIVATIONS[name];
}
