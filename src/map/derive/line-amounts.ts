/**
 * Line amounts and taxes shared by sales and support documents: gross =
 * quantity × unit price rounded half-up to the cent; net = gross − the line's
 * discount (input `discount`, an amount); VAT (category 01, input `vat`) and
 * any other tax the mapping names (input `tax04`: the consumption tax…) =
 * net × rate. An exempt line (rate 0) gets a 0.00 entry and counts in the
 * taxable base; an excluded line (no rate) gets no entry and does not.
 *
 * A discounted line carries its undiscounted value in GrossAmount and the
 * discounted one in NetAmount; its UnitPrice becomes the discounted unit price
 * (NetAmount = Quantity × UnitPrice on the wire), which must be a whole number
 * of cents: a discount that cannot be carried so is refused, never rounded away.
 */
import { EdocError } from '../../errors.js';
import { formatAmount, mulDecimals, mulRate, tryParseAmount } from '../../policy/amount.js';
import { div, exactOf, exactText, roundTo } from '../expr/exact-decimal.js';
import type { DeriveLine } from './derive-types.js';

export const VAT = '01';

export interface LineTax {
  category: string;
  rate: string;
  amount: number;
}

export interface LineAmounts {
  /** Value before the discount. */
  gross: number;
  net: number;
  discount: number;
  /** Undefined for an excluded line. */
  vatRate?: string;
  vat: number;
  /** Every tax entry of the line, VAT first. */
  taxes: LineTax[];
}

/** Line inputs naming a tax other than VAT: `tax` + its two-digit category (`tax04`). */
export const OTHER_TAX = /^tax(\d{2})$/;

function discountOf(
  line: DeriveLine,
  gross: number,
  quantity: string,
): { net: number; unitPrice?: string; discount: number } {
  const text = line.inputs.discount;
  const discount = typeof text === 'string' ? tryParseAmount(text) : undefined;
  if (discount === undefined || discount === 0) return { net: gross, discount: 0 };
  if (discount < 0 || discount > gross) {
    throw new EdocError(
      'EDOC_MAP_DISCOUNT',
      `the line's discount ${formatAmount(discount)} is ${discount < 0 ? 'negative' : `more than its value ${formatAmount(gross)}`}`,
      { value: formatAmount(discount) },
    );
  }
  const net = gross - discount;
  const q = exactOf(quantity);
  const unit = q === undefined ? undefined : div({ units: BigInt(net), scale: 2 }, q);
  const rounded = unit === undefined ? undefined : roundTo(unit, 2);
  const unitText = rounded === undefined ? undefined : exactText(rounded);
  if (rounded === undefined || unitText === undefined || mulDecimals(quantity, unitText) !== net) {
    throw new EdocError(
      'EDOC_MAP_DISCOUNT',
      `the line's value after its discount (${formatAmount(gross)} − ${formatAmount(discount)} = ${formatAmount(net)}) is not Quantity ${quantity} × a unit price in whole cents, so the wire cannot carry it`,
      { value: formatAmount(discount) },
    );
  }
  return {
    net,
    unitPrice: formatAmount(Number(rounded.units * 10n ** BigInt(2 - rounded.scale))),
    discount,
  };
}

/** Computes and writes NetAmount (and GrossAmount when asked) and the line's tax entries. */
export function applyLineAmounts(
  line: DeriveLine,
  options: { gross: boolean; taxTotals: boolean },
): LineAmounts | undefined {
  const { Quantity, UnitPrice } = line.fields;
  if (typeof Quantity !== 'string' || typeof UnitPrice !== 'string') return undefined;
  const gross = mulDecimals(Quantity, UnitPrice);
  if (gross === undefined) return undefined;
  const { net, unitPrice, discount } = discountOf(line, gross, Quantity);
  if (unitPrice !== undefined) line.fields.UnitPrice = unitPrice;
  if (options.gross) line.fields.GrossAmount = formatAmount(gross);
  line.fields.NetAmount = formatAmount(net);
  const taxes: LineTax[] = [];
  const rate = line.inputs.vat;
  const given: LineTax | undefined =
    typeof rate === 'string' ? { category: VAT, rate, amount: mulRate(net, rate) } : undefined;
  if (given !== undefined) taxes.push(given);
  // per line, so no entries array and no regex for the usual inputs (vat, discount…)
  for (const name in line.inputs) {
    if (name.length !== 5 || !name.startsWith('tax')) continue;
    const m = OTHER_TAX.exec(name);
    const value = line.inputs[name];
    if (m !== null && typeof value === 'string')
      taxes.push({ category: m[1], rate: value, amount: mulRate(net, value) });
  }
  const vat = given ?? taxes.find((t) => t.category === VAT);
  if (taxes.length > 0) {
    line.fields.TaxSubTotals = taxes.map((t) => ({
      TaxCategory: t.category,
      TaxPercentage: t.rate,
      TaxableAmount: formatAmount(net),
      TaxAmount: formatAmount(t.amount),
    }));
    if (options.taxTotals)
      line.fields.TaxTotals = taxes.map((t) => ({
        TaxCategory: t.category,
        TaxAmount: formatAmount(t.amount),
      }));
  }
  const out: LineAmounts = { gross, net, discount, vat: vat?.amount ?? 0, taxes };
  if (vat !== undefined) out.vatRate = vat.rate;
  return out;
}

/** One subtotal per category and rate, in order of first appearance. */
export function vatSubTotals(
  amounts: LineAmounts[],
): { TaxCategory: string; TaxPercentage: string; TaxableAmount: string; TaxAmount: string }[] {
  const byRate = new Map<string, { category: string; rate: string; base: number; tax: number }>();
  for (const a of amounts) {
    for (const t of a.taxes) {
      const key = `${t.category}/${t.rate}`;
      const acc = byRate.get(key) ?? { category: t.category, rate: t.rate, base: 0, tax: 0 };
      acc.base += a.net;
      acc.tax += t.amount;
      byRate.set(key, acc);
    }
  }
  return [...byRate.values()].map((acc) => ({
    TaxCategory: acc.category,
    TaxPercentage: acc.rate,
    TaxableAmount: formatAmount(acc.base),
    TaxAmount: formatAmount(acc.tax),
  }));
}

/** One total per tax category, in order of first appearance. */
export function categoryTotals(
  amounts: LineAmounts[],
): { TaxCategory: string; TaxAmount: string }[] {
  const byCategory = new Map<string, number>();
  for (const a of amounts)
    for (const t of a.taxes)
      byCategory.set(t.category, (byCategory.get(t.category) ?? 0) + t.amount);
  return [...byCategory].map(([category, amount]) => ({
    TaxCategory: category,
    TaxAmount: formatAmount(amount),
  }));
}
