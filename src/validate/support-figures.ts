/**
 * The figures of a support document (E5) or adjustment note (E6) as the spec's
 * rules define them: exempt lines count in the taxable base, excluded lines do
 * not; withholdings are computed by rate (05 on the line's VAT, 06 on its taxable
 * amount) and are never subtracted from the payable amount.
 */
import { arr, obj } from './access.js';
import { joinPath, type Problem } from './problem.js';
import {
  INCOME_WITHHOLDING,
  VAT,
  VAT_WITHHOLDING,
  category,
  lineProduct,
  rateKey,
  readAmount,
  sumAll,
  taxOf,
  type TaxEntry,
} from './tax-math.js';

export interface WithholdingFigure extends TaxEntry {
  path: string;
  /** What the entry itself says, when it carries amounts (rule 6 lets it omit them). */
  givenBase: number | undefined;
  givenAmount: number | undefined;
}

export interface SupportLineFigures {
  path: string;
  /** NetAmount, else Quantity × UnitPrice. */
  value: number | undefined;
  /** TaxSubTotals holds at least one (non-withholding) entry: a taxed or exempt line. */
  taxed: boolean;
  /** Every TaxSubTotals entry, by index (withholdings misplaced there included). */
  vatEntries: TaxEntry[];
  /** Taxable base: the VAT entry's TaxableAmount (else the line value) when taxed, 0 when excluded. */
  base: number | undefined;
  /** Σ VAT of the line (an entry without TaxAmount counts as base × rate). */
  vat: number | undefined;
  withholdings: WithholdingFigure[];
}

export interface SupportFigures {
  lines: SupportLineFigures[];
  taxable: number | undefined;
  vat: number | undefined;
  payable: number | undefined;
  withholding: number | undefined;
}

export function supportFigures(request: unknown, out: Problem[]): SupportFigures | undefined {
  const r = obj(request);
  const items = arr(r?.Lines);
  if (items === undefined) return undefined;
  const lines = items.map((item, i) => lineFigures(obj(item) ?? {}, joinPath('Lines', i), out));
  const vat = sumAll(lines.map((l) => l.vat));
  const value = sumAll(lines.map((l) => l.value));
  return {
    lines,
    taxable: sumAll(lines.map((l) => l.base)),
    vat,
    payable: value === undefined || vat === undefined ? undefined : value + vat,
    withholding: sumAll(
      lines.flatMap((l) => l.withholdings.filter((w) => w.category !== VAT).map((w) => w.amount)),
    ),
  };
}

export function isWithholding(cat: string | undefined): boolean {
  return cat === VAT_WITHHOLDING || cat === INCOME_WITHHOLDING;
}

function lineFigures(
  line: Record<string, unknown>,
  path: string,
  out: Problem[],
): SupportLineFigures {
  readAmount(line, 'UnitPrice', path, out);
  const value = readAmount(line, 'NetAmount', path, out) ?? lineProduct(line);
  const subs = arr(line.TaxSubTotals) ?? [];
  const vatEntries: TaxEntry[] = subs.map((item, j) => {
    const e = obj(item);
    const here = joinPath(path, 'TaxSubTotals', j);
    const base = readAmount(e, 'TaxableAmount', here, out) ?? value;
    const amount = readAmount(e, 'TaxAmount', here, out) ?? taxOf(base, e);
    return { category: category(e), rate: rateKey(e), base, amount };
  });
  // A withholding put among the VAT entries is rule 2's problem; it must not also skew the VAT figures.
  const proper = vatEntries.filter((e) => !isWithholding(e.category));
  const taxed = proper.length > 0;
  const base = taxed ? proper[0].base : 0;
  const vat = taxed ? sumAll(proper.map((e) => e.amount)) : 0;
  const withholdings = (arr(line.WithholdingTaxSubTotals) ?? []).map((item, k) => {
    const e = obj(item);
    const here = joinPath(path, 'WithholdingTaxSubTotals', k);
    const givenBase = readAmount(e, 'TaxableAmount', here, out);
    const givenAmount = readAmount(e, 'TaxAmount', here, out);
    const cat = category(e);
    const ruleBase =
      cat === VAT_WITHHOLDING
        ? vat
        : cat === INCOME_WITHHOLDING
          ? taxed
            ? base
            : value
          : givenBase;
    const computed = taxOf(ruleBase, e);
    return {
      path: here,
      category: cat,
      rate: rateKey(e),
      base: ruleBase,
      amount: computed ?? givenAmount,
      givenBase,
      givenAmount,
    };
  });
  return { path, value, taxed, vatEntries, base, vat, withholdings };
}
