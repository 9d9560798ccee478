/**
 * A support-document line's withholding (`05` on the line's VAT, `06` on its
 * taxable amount), given by the export as a rate, as an amount, or as both.
 * The wire carries the rate (spec rule 6): an amount alone gives the rate
 * amount ÷ base × 100 to two decimals, and that rate must give the amount back
 * to the cent; a rate and an amount must agree. Otherwise the document is
 * refused, never issued with a withholding other than the export's.
 */
import { EdocError } from '../../errors.js';
import { formatAmount, mulRate, tryParseAmount } from '../../policy/amount.js';
import { div, exactText, roundTo } from '../expr/exact-decimal.js';

export interface Withholding {
  rate: string;
  amount: number;
}

export function withholdingOf(
  category: string,
  base: number,
  rate: unknown,
  amountText: unknown,
): Withholding | undefined {
  const amount = typeof amountText === 'string' ? tryParseAmount(amountText) : undefined;
  if (typeof rate !== 'string' && amount === undefined) return undefined;
  if (typeof rate === 'string') {
    const computed = mulRate(base, rate);
    if (amount !== undefined && amount !== computed) {
      throw new EdocError(
        'EDOC_MAP_TOTAL_MISMATCH',
        `withholding ${category}: the export states ${formatAmount(amount)}, the mapping computed ${formatAmount(computed)} (${rate} % of ${formatAmount(base)})`,
        { value: formatAmount(amount) },
      );
    }
    return { rate, amount: computed };
  }
  const q =
    base === 0
      ? undefined
      : div({ units: BigInt(amount!) * 100n, scale: 0 }, { units: BigInt(base), scale: 0 });
  const r = q === undefined ? undefined : roundTo(q, 2);
  const derived = r === undefined ? undefined : exactText(r);
  if (derived === undefined || mulRate(base, derived) !== amount) {
    throw new EdocError(
      'EDOC_MAP_TOTAL_MISMATCH',
      `withholding ${category}: the stated amount ${formatAmount(amount!)} is no rate with two decimals of its base ${formatAmount(base)}, so the wire cannot carry it`,
      { value: formatAmount(amount!) },
    );
  }
  return { rate: formatAmount(Number(r!.units * 10n ** BigInt(2 - r!.scale))), amount: amount! };
}
