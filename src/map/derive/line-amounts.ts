/**
 * Line amounts and VAT shared by sales and support documents: net = quantity ×
 * unit price rounded half-up to the cent, VAT (category 01) = net × rate. An
 * exempt line (rate 0) gets a 0.00 entry and counts in the taxable base; an
 * excluded line (no rate) gets no entry and does not.
 */
import { formatAmount, mulDecimals, mulRate } from '../../policy/amount.js';
import type { DeriveLine } from './derive-types.js';

export const VAT = '01';

export interface LineAmounts {
  net: number;
  /** Undefined for an excluded line. */
  vatRate?: string;
  vat: number;
}

/** Computes and writes NetAmount (and GrossAmount when asked) and the line's VAT entry. */
export function applyLineAmounts(line: DeriveLine, options: { gross: boolean; taxTotals: boolean }): LineAmounts | undefined {
  const { Quantity, UnitPrice } = line.fields;
  if (typeof Quantity !== 'string' || typeof UnitPrice !== 'string') return undefined;
  const net = mulDecimals(Quantity, UnitPrice);
  if (net === undefined) return undefined;
  if (options.gross) line.fields.GrossAmount = formatAmount(net);
  line.fields.NetAmount = formatAmount(net);
  const rate = line.inputs.vat;
  if (typeof rate !== 'string') return { net, vat: 0 };
  const vat = mulRate(net, rate);
  line.fields.TaxSubTotals = [{ TaxCategory: VAT, TaxPercentage: rate, TaxableAmount: formatAmount(net), TaxAmount: formatAmount(vat) }];
  if (options.taxTotals) line.fields.TaxTotals = [{ TaxCategory: VAT, TaxAmount: formatAmount(vat) }];
  return { net, vatRate: rate, vat };
}

/** One subtotal per distinct rate, in order of first appearance. */
export function vatSubTotals(amounts: LineAmounts[]): { TaxCategory: string; TaxPercentage: string; TaxableAmount: string; TaxAmount: string }[] {
  const byRate = new Map<string, { base: number; tax: number }>();
  for (const a of amounts) {
    if (a.vatRate === undefined) continue;
    const acc = byRate.get(a.vatRate) ?? { base: 0, tax: 0 };
    acc.base += a.net;
    acc.tax += a.vat;
    byRate.set(a.vatRate, acc);
  }
  return [...byRate].map(([rate, acc]) => ({
    TaxCategory: VAT,
    TaxPercentage: rate,
    TaxableAmount: formatAmount(acc.base),
    TaxAmount: formatAmount(acc.tax),
  }));
}
