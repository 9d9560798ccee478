import type { Problem } from './problem.js';

/** E1 (invoice, credit and debit notes): lines vs TaxSubTotals, TaxTotals and Total. */
export function invoiceTotals(_request: unknown): Problem[] {
  return [];
}

/** E5 / E6: line amounts, withholdings and Total of a support document or adjustment note. */
export function supportTotals(_request: unknown): Problem[] {
  return [];
}
