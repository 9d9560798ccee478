/**
 * `derive: support-adjustment-totals` (support adjustment notes, E6): a note
 * with lines gets the support-document amounts and totals; a note without
 * lines annuls the referenced document with its own detail (spec E6
 * behaviour 2), so it carries no amounts at all.
 */
import type { DeriveInput } from './derive-types.js';
import { supportTotals } from './support-totals.js';

export function supportAdjustmentTotals(input: DeriveInput): void {
  if (input.lines.length === 0) return;
  supportTotals(input);
}
