/**
 * `derive: support-totals` (support documents), per the spec's support rules:
 * VAT in TaxSubTotals; withholdings in WithholdingTaxSubTotals — `06` on the
 * line's taxable amount (input `incomeWithholding`), `05` on the line's VAT
 * amount (input `vatWithholding`), each also given as an amount (inputs
 * `incomeWithholdingAmount`, `vatWithholdingAmount`; derive/withholding.ts); they add up to Total.WithholdingTaxAmount
 * and are not subtracted from PayableAmount (rule 5).
 */
import { formatAmount } from '../../policy/amount.js';
import { withholdingOf } from './withholding.js';
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
    const income = withholdingOf(
      '06',
      a.net,
      line.inputs.incomeWithholding,
      line.inputs.incomeWithholdingAmount,
    );
    if (income !== undefined) {
      withheld += income.amount;
      entries.push({
        TaxCategory: '06',
        TaxPercentage: income.rate,
        TaxableAmount: formatAmount(a.net),
        TaxAmount: formatAmount(income.amount),
      });
    }
    const onVat = withholdingOf(
      '05',
      a.vat,
      line.inputs.vatWithholding,
      line.inputs.vatWithholdingAmount,
    );
    if (onVat !== undefined) {
      withheld += onVat.amount;
      entries.push({
        TaxCategory: '05',
        TaxPercentage: onVat.rate,
        TaxableAmount: formatAmount(a.vat),
        TaxAmount: formatAmount(onVat.amount),
      });
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
