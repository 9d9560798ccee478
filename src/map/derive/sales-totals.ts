/**
 * `derive: sales-totals` (invoice, credit and debit notes), per the layouts
 * page: line Gross = Net = quantity × price; VAT per line; TaxSubTotals per
 * rate; TaxTotals per category; Total with Payable = Billable = Gross + taxes.
 */
import { formatAmount } from '../../policy/amount.js';
import { applyLineAmounts, VAT, vatSubTotals } from './line-amounts.js';
import type { LineAmounts } from './line-amounts.js';
import type { DeriveInput } from './derive-types.js';

export function salesTotals({ request, lines }: DeriveInput): void {
  const amounts: LineAmounts[] = [];
  for (const line of lines) {
    const a = applyLineAmounts(line, { gross: true, taxTotals: true });
    if (a !== undefined) amounts.push(a);
  }
  const gross = amounts.reduce((s, a) => s + a.net, 0);
  const taxable = amounts.filter((a) => a.vatRate !== undefined).reduce((s, a) => s + a.net, 0);
  const taxes = amounts.reduce((s, a) => s + a.vat, 0);
  const subTotals = vatSubTotals(amounts);
  request.TaxSubTotals = subTotals;
  request.TaxTotals = subTotals.length === 0 ? [] : [{ TaxCategory: VAT, TaxAmount: formatAmount(taxes) }];
  request.Total = {
    GrossAmount: formatAmount(gross),
    TaxableAmount: formatAmount(taxable),
    TotalBillableAmount: formatAmount(gross + taxes),
    PayableAmount: formatAmount(gross + taxes),
  };
}
