/**
 * `derive: support-totals` (support documents), per the spec's support rules:
 * VAT in TaxSubTotals; withholdings in WithholdingTaxSubTotals — `06` on the
 * line's taxable amount (input `incomeWithholding`), `05` on the line's VAT
 * amount (input `vatWithholding`); they add up to Total.WithholdingTaxAmount
 * and are not subtracted from PayableAmount (rule 5).
 */
import { formatAmount, mulRate } from '../../policy/amount.js';
import { applyLineAmounts, VAT } from './line-amounts.js';
import type { DeriveInput } from './derive-types.js';

export function supportTotals({ request, lines }: DeriveInput): void {
  let net = 0;
  let taxable = 0;
  let taxes = 0;
  let withheld = 0;
  let anyVat = false;
  for (const line of lines) {
    const a = applyLineAmounts(line, { gross: false, taxTotals: false });
    if (a === undefined) continue;
    net += a.net;
    taxes += a.vat;
    if (a.vatRate !== undefined) {
      taxable += a.net;
      anyVat = true;
    }
    const entries: Record<string, string>[] = [];
    const income = line.inputs.incomeWithholding;
    if (typeof income === 'string') {
      const amount = mulRate(a.net, income);
      withheld += amount;
      entries.push({ TaxCategory: '06', TaxPercentage: income, TaxableAmount: formatAmount(a.net), TaxAmount: formatAmount(amount) });
    }
    const onVat = line.inputs.vatWithholding;
    if (typeof onVat === 'string') {
      const amount = mulRate(a.vat, onVat);
      withheld += amount;
      entries.push({ TaxCategory: '05', TaxPercentage: onVat, TaxableAmount: formatAmount(a.vat), TaxAmount: formatAmount(amount) });
    }
    if (entries.length > 0) line.fields.WithholdingTaxSubTotals = entries;
  }
  request.TaxTotals = anyVat ? [{ TaxCategory: VAT, TaxAmount: formatAmount(taxes) }] : [];
  request.Total = {
    TaxableAmount: formatAmount(taxable),
    TaxAmount: formatAmount(taxes),
    PayableAmount: formatAmount(net + taxes),
    WithholdingTaxAmount: formatAmount(withheld),
  };
}
