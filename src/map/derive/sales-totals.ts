/**
 * `derive: sales-totals` (invoice, credit and debit notes), per the layouts
 * page: line GrossAmount = quantity × price, NetAmount = GrossAmount − the
 * line's discount; taxes per line (VAT and any other category the mapping
 * names); TaxSubTotals per category and rate; TaxTotals per category; Total
 * with GrossAmount = Σ NetAmount and Payable = Billable = Gross + taxes.
 */
import { formatAmount } from '../../policy/amount.js';
import { applyLineAmounts, categoryTotals, vatSubTotals } from './line-amounts.js';
import type { LineAmounts } from './line-amounts.js';
import type { DeriveInput } from './derive-types.js';

export function salesTotals({ request, lines }: DeriveInput): void {
  const amounts: LineAmounts[] = [];
  for (const line of lines) {
    const a = applyLineAmounts(line, { gross: true, taxTotals: true });
    if (a !== undefined) amounts.push(a);
  }
  const gross = amounts.reduce((s, a) => s + a.net, 0);
  const taxable = amounts.filter((a) => a.taxes.length > 0).reduce((s, a) => s + a.net, 0);
  const taxes = amounts.reduce((s, a) => s + a.taxes.reduce((t, x) => t + x.amount, 0), 0);
  request.TaxSubTotals = vatSubTotals(amounts);
  request.TaxTotals = categoryTotals(amounts);
  request.Total = {
    GrossAmount: formatAmount(gross),
    TaxableAmount: formatAmount(taxable),
    TotalBillableAmount: formatAmount(gross + taxes),
    PayableAmount: formatAmount(gross + taxes),
  };
}
