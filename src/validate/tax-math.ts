/**
 * Shared arithmetic of the totals and support rules, on plain parsed JSON.
 * Every figure is integer cents, or undefined when a component is missing or
 * malformed: a rule then skips the comparison instead of inventing a failure.
 */
import { excerpt } from '../policy/excerpt.js';
import {
  canonicalDecimal,
  formatAmount,
  isAmountString,
  mulDecimals,
  mulRate,
  tryParseAmount,
} from '../policy/amount.js';
import { arr, obj, text } from './access.js';
import { joinPath, problem, type Problem } from './problem.js';

export const VAT = '01';
export const VAT_WITHHOLDING = '05';
export const INCOME_WITHHOLDING = '06';

/**
 * An amount field: cents when it is a two-decimal string; undefined when absent;
 * a problem (and undefined) when present in another shape.
 */
export function readAmount(
  o: Record<string, unknown> | undefined,
  key: string,
  path: string,
  out: Problem[],
): number | undefined {
  const value = o?.[key];
  if (value === undefined || value === null) return undefined;
  // read first: a well-formed amount is the common case, tested once by the reading
  const cents = tryParseAmount(value);
  if (cents !== undefined) return cents;
  if (!isAmountString(value)) {
    out.push(
      problem(
        'EDOC_VALIDATE_AMOUNT',
        joinPath(path, key),
        `${key} must be a string with two decimals, e.g. "1234.50", not ${excerpt(JSON.stringify(value))}`,
      ),
    );
  }
  return undefined;
}

export function category(entry: Record<string, unknown> | undefined): string | undefined {
  return text(entry?.TaxCategory)?.trim();
}

/** Rate text in canonical form ('19.00' and '19' group together), undefined when not a number. */
export function rateKey(entry: Record<string, unknown> | undefined): string | undefined {
  const rate = text(entry?.TaxPercentage);
  return rate === undefined ? undefined : canonicalDecimal(rate);
}

/** base × TaxPercentage / 100 in cents, undefined when the rate is missing or not a number. */
export function taxOf(
  baseCents: number | undefined,
  entry: Record<string, unknown> | undefined,
): number | undefined {
  const rate = text(entry?.TaxPercentage);
  if (baseCents === undefined || rate === undefined || canonicalDecimal(rate) === undefined)
    return undefined;
  return mulRate(baseCents, rate);
}

/** Quantity × UnitPrice in cents (half-up), undefined when either is missing or not a number. */
export function lineProduct(line: Record<string, unknown>): number | undefined {
  const quantity = text(line.Quantity);
  const price = text(line.UnitPrice);
  return quantity === undefined || price === undefined ? undefined : mulDecimals(quantity, price);
}

/**
 * Compares one figure; pushes a totals problem naming both values when they differ. `how` may be a
 * function, so a message that quotes input is only made when it is needed (every line of every
 * document is compared).
 */
export function expectAmount(
  out: Problem[],
  path: string,
  actual: number | undefined,
  expected: number | undefined,
  how: string | (() => string),
): void {
  if (actual === undefined || expected === undefined || actual === expected) return;
  out.push(
    problem(
      'EDOC_VALIDATE_TOTALS',
      path,
      `${formatAmount(actual)} should be ${formatAmount(expected)} (${typeof how === 'string' ? how : how()})`,
    ),
  );
}

/** Sum of defined values; undefined as soon as one is missing. */
export function sumAll(values: readonly (number | undefined)[]): number | undefined {
  let total = 0;
  for (const v of values) {
    if (v === undefined) return undefined;
    total += v;
  }
  return total;
}

export interface TaxEntry {
  category: string | undefined;
  rate: string | undefined;
  base: number | undefined;
  amount: number | undefined;
}

/** The entries of a TaxSubTotals-like array, with amounts read (problems for malformed ones). */
export function readTaxEntries(
  list: unknown,
  path: string,
  out: Problem[],
): TaxEntry[] | undefined {
  const items = arr(list);
  if (items === undefined) return undefined;
  return items.map((item, j) => {
    const e = obj(item);
    const here = joinPath(path, j);
    return {
      category: category(e),
      rate: rateKey(e),
      base: readAmount(e, 'TaxableAmount', here, out),
      amount: readAmount(e, 'TaxAmount', here, out),
    };
  });
}

/**
 * Document-level TaxSubTotals must be the per-(category, rate) sums of the line
 * entries, one entry per pair, none extra and none missing.
 */
export function checkDocumentSubTotals(
  docList: unknown,
  lineEntries: readonly TaxEntry[],
  path: string,
  out: Problem[],
): void {
  const docItems = arr(docList);
  if (docItems === undefined) return;
  const groups = new Map<
    string,
    {
      category: string;
      rate: string;
      bases: (number | undefined)[];
      amounts: (number | undefined)[];
      seen: boolean;
    }
  >();
  for (const e of lineEntries) {
    if (e.category === undefined || e.rate === undefined) continue;
    const key = `${e.category}|${e.rate}`;
    const g = groups.get(key) ?? {
      category: e.category,
      rate: e.rate,
      bases: [],
      amounts: [],
      seen: false,
    };
    g.bases.push(e.base);
    g.amounts.push(e.amount);
    groups.set(key, g);
  }
  docItems.forEach((item, j) => {
    const e = obj(item);
    const here = joinPath(path, j);
    const cat = category(e);
    const rate = rateKey(e);
    if (cat === undefined || rate === undefined) return;
    const g = groups.get(`${cat}|${rate}`);
    if (g === undefined) {
      out.push(
        problem(
          'EDOC_VALIDATE_TOTALS',
          here,
          `No line carries tax ${cat} at ${rate}%, but ${path} has an entry for it`,
        ),
      );
      return;
    }
    if (g.seen)
      out.push(
        problem(
          'EDOC_VALIDATE_TOTALS',
          here,
          `${path} has more than one entry for tax ${cat} at ${rate}%`,
        ),
      );
    g.seen = true;
    const ignored: Problem[] = [];
    expectAmount(
      out,
      joinPath(here, 'TaxableAmount'),
      readAmount(e, 'TaxableAmount', here, ignored),
      sumAll(g.bases),
      `sum of the lines' ${cat} ${rate}% bases`,
    );
    expectAmount(
      out,
      joinPath(here, 'TaxAmount'),
      readAmount(e, 'TaxAmount', here, ignored),
      sumAll(g.amounts),
      `sum of the lines' ${cat} ${rate}% taxes`,
    );
  });
  for (const g of groups.values()) {
    if (!g.seen)
      out.push(
        problem(
          'EDOC_VALIDATE_TOTALS',
          path,
          `Lines carry tax ${g.category} at ${g.rate}% but ${path} has no entry for it`,
        ),
      );
  }
}

/** Document-level TaxTotals (or WithholdingTaxTotals) must be the per-category sums of `entries`. */
export function checkCategoryTotals(
  docList: unknown,
  entries: readonly TaxEntry[],
  path: string,
  out: Problem[],
): void {
  const docItems = arr(docList);
  if (docItems === undefined) return;
  const sums = new Map<string, (number | undefined)[]>();
  for (const e of entries) {
    if (e.category === undefined) continue;
    sums.set(e.category, [...(sums.get(e.category) ?? []), e.amount]);
  }
  const seen = new Set<string>();
  docItems.forEach((item, k) => {
    const e = obj(item);
    const here = joinPath(path, k);
    const cat = category(e);
    if (cat === undefined) return;
    seen.add(cat);
    const ignored: Problem[] = [];
    const actual = readAmount(e, 'TaxAmount', here, ignored);
    const parts = sums.get(cat);
    if (parts === undefined) {
      if (actual !== undefined && actual !== 0)
        out.push(
          problem(
            'EDOC_VALIDATE_TOTALS',
            joinPath(here, 'TaxAmount'),
            `No entry carries tax ${cat}, so its total should be 0.00`,
          ),
        );
      return;
    }
    expectAmount(
      out,
      joinPath(here, 'TaxAmount'),
      actual,
      sumAll(parts),
      `sum of the ${cat} entries`,
    );
  });
  for (const cat of sums.keys()) {
    if (!seen.has(cat))
      out.push(
        problem(
          'EDOC_VALIDATE_TOTALS',
          path,
          `Entries carry tax ${cat} but ${path} has no total for it`,
        ),
      );
  }
}
