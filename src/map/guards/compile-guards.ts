/** Compiles `reconcile` and `guards` of a mapping (mapping-schema.ts) into their engine form. */
import { canonicalDecimal, parseAmountLenient } from '../../policy/amount.js';
import type { GuardsInput, ReconcileInput } from '../mapping-schema.js';
import type { Figure, Guards, Reconcile } from '../mapping-types.js';

export const DEFAULT_VAT_RATES = ['0', '5', '19'];

function figures(input: NonNullable<ReconcileInput['document']> | undefined): [Figure, string][] {
  if (input === undefined) return [];
  const out: [Figure, string][] = [];
  for (const [name, column] of Object.entries(input)) {
    if (name === 'tax' && typeof column === 'object')
      for (const [category, c] of Object.entries(column)) out.push([`tax:${category}`, c]);
    else if (typeof column === 'string') out.push([name, column]);
  }
  return out;
}

export function compileReconcile(input: ReconcileInput | undefined): Reconcile | undefined {
  if (input === undefined) return undefined;
  return {
    tolerance: input.tolerance === undefined ? 0 : (parseAmountLenient(input.tolerance) ?? 0),
    document: figures(input.document),
    lines: figures(input.lines),
  };
}

export function compileGuards(input: GuardsInput | undefined): Guards {
  return {
    vatRates:
      input?.vatRates === undefined
        ? DEFAULT_VAT_RATES
        : input.vatRates.map((r) => canonicalDecimal(String(r)) ?? String(r)),
    zeroLines: input?.zeroLines ?? 'invalid',
    negative: input?.negative ?? 'invalid',
  };
}

/** Every column reconciliation reads (they must be in the header). */
export function reconcileColumns(r: Reconcile | undefined): string[] {
  return r === undefined ? [] : [...new Set([...r.document, ...r.lines].map(([, c]) => c))];
}
