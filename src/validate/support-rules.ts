/**
 * The spec's support-document rules 2–7, for E5 and E6 (an adjustment note's
 * lines follow the same rules). Rule 1 (completing missing data from the
 * registered provider) is the service's behaviour, not something to check.
 */
import { formatAmount } from '../policy/amount.js';
import { daysBetween, isDate } from '../policy/dates.js';
import { arr, obj, text } from './access.js';
import { joinPath, problem, type Problem } from './problem.js';
import { supportFigures } from './support-figures.js';
import {
  INCOME_WITHHOLDING,
  VAT,
  VAT_WITHHOLDING,
  category,
  rateKey,
  readAmount,
} from './tax-math.js';

export interface SupportRulesContext {
  /** Colombia's current date, `yyyy-MM-dd` (see policy/dates `colombiaToday`). */
  today: string;
}

/** Rule 7: an accumulated operation groups at most one week. */
export const MAX_PERIOD_DAYS = 6;

const TAX = 'EDOC_VALIDATE_TAX' as const;
const WITHHOLDINGS = new Set([VAT_WITHHOLDING, INCOME_WITHHOLDING]);

/** The spec's support-document rules 2–7 (E5 and E6). */
export function supportRules(request: unknown, ctx: SupportRulesContext): Problem[] {
  if (!isDate(ctx.today))
    throw new RangeError(
      `supportRules needs today as yyyy-MM-dd, got ${JSON.stringify(ctx.today)}`,
    );
  const r = obj(request);
  if (r === undefined) return [];
  const out: Problem[] = [];
  arr(r.Lines)?.forEach((item, i) => {
    const line = obj(item);
    if (line !== undefined) lineRules(line, i, ctx.today, out);
  });
  documentCrossing(r, out);
  notSubtracted(r, out);
  return out;
}

/** How a person finds the line: its own Number, else its position (1-based). */
function lineName(line: Record<string, unknown>, index: number): string {
  const n = text(line.Number)?.trim();
  return `Line ${n !== undefined && n !== '' ? n : index + 1}`;
}

function lineRules(line: Record<string, unknown>, i: number, today: string, out: Problem[]): void {
  const path = joinPath('Lines', i);
  const name = lineName(line, i);
  const vatRates: string[] = [];

  arr(line.TaxSubTotals)?.forEach((item, j) => {
    const e = obj(item);
    const here = joinPath(path, 'TaxSubTotals', j);
    const cat = category(e);
    // Rule 2: withholdings on the VAT side.
    if (cat !== undefined && WITHHOLDINGS.has(cat)) {
      out.push(
        problem(
          TAX,
          joinPath(here, 'TaxCategory'),
          `${name}: withholding ${cat} belongs in WithholdingTaxSubTotals, not in TaxSubTotals`,
        ),
      );
      return;
    }
    if (cat !== VAT) return;
    const rate = rateKey(e);
    if (rate === undefined) {
      out.push(
        problem(
          TAX,
          joinPath(here, 'TaxPercentage'),
          `${name}: a VAT entry needs TaxPercentage (0.00 for an exempt line; leave TaxSubTotals out for an excluded one)`,
        ),
      );
      return;
    }
    vatRates.push(rate);
    // Rule 4: an exempt line reports its base with rate 0 and tax 0.00.
    const amount = readAmount(e, 'TaxAmount', here, []);
    if (rate === '0' && amount !== undefined && amount !== 0) {
      out.push(
        problem(
          TAX,
          joinPath(here, 'TaxAmount'),
          `${name}: an exempt line (VAT 0%) must have TaxAmount 0.00, not ${formatAmount(amount)}`,
        ),
      );
    }
  });

  // Rule 3: one VAT rate per line.
  if (vatRates.length > 1) {
    const distinct = [...new Set(vatRates)];
    const what =
      distinct.length > 1
        ? `more than one VAT rate (${distinct.join('%, ')}%)`
        : `${vatRates.length} VAT entries`;
    out.push(
      problem(
        TAX,
        joinPath(path, 'TaxSubTotals'),
        `${name} carries ${what}; each line admits one VAT rate only`,
      ),
    );
  }

  arr(line.WithholdingTaxSubTotals)?.forEach((item, k) => {
    const e = obj(item);
    const here = joinPath(path, 'WithholdingTaxSubTotals', k);
    const cat = category(e);
    // Rule 2: VAT on the withholding side.
    if (cat === VAT) {
      out.push(
        problem(
          TAX,
          joinPath(here, 'TaxCategory'),
          `${name}: VAT (01) belongs in TaxSubTotals, not in WithholdingTaxSubTotals`,
        ),
      );
      return;
    }
    // Rule 6: category and rate are what a withholding entry must carry; the amount follows from them.
    if (cat === undefined || cat === '') {
      out.push(
        problem(
          TAX,
          joinPath(here, 'TaxCategory'),
          `${name}: a withholding entry needs TaxCategory (05 on the VAT, 06 on the taxable amount)`,
        ),
      );
    }
    if (rateKey(e) === undefined) {
      out.push(
        problem(
          TAX,
          joinPath(here, 'TaxPercentage'),
          `${name}: a withholding entry needs TaxPercentage`,
        ),
      );
    }
  });

  // Rule 7: an accumulated operation may group at most one week.
  const start = line.PeriodStartDate;
  if (isDate(start)) {
    const back = daysBetween(start, today);
    if (back > MAX_PERIOD_DAYS) {
      out.push(
        problem(
          'EDOC_VALIDATE_PERIOD',
          joinPath(path, 'PeriodStartDate'),
          `${name}: PeriodStartDate ${start} is ${back} days before ${today}; an accumulated operation may start at most ${MAX_PERIOD_DAYS} days before the current date`,
        ),
      );
    }
  }
}

/** Rule 2 on the document-level lists an adjustment note may carry. */
function documentCrossing(r: Record<string, unknown>, out: Problem[]): void {
  for (const key of ['TaxSubTotals', 'TaxTotals']) {
    arr(r[key])?.forEach((item, j) => {
      const cat = category(obj(item));
      if (cat !== undefined && WITHHOLDINGS.has(cat)) {
        out.push(
          problem(
            TAX,
            joinPath(key, j, 'TaxCategory'),
            `Withholding ${cat} belongs in WithholdingTaxTotals, not in ${key}`,
          ),
        );
      }
    });
  }
  arr(r.WithholdingTaxTotals)?.forEach((item, j) => {
    if (category(obj(item)) === VAT) {
      out.push(
        problem(
          TAX,
          joinPath('WithholdingTaxTotals', j, 'TaxCategory'),
          'VAT (01) belongs in TaxTotals, not in WithholdingTaxTotals',
        ),
      );
    }
  });
}

/** Rule 5: a payable amount with the withholdings taken off is the classic mistake; name it. */
function notSubtracted(r: Record<string, unknown>, out: Problem[]): void {
  const figures = supportFigures(r, []);
  const payable = readAmount(obj(r.Total), 'PayableAmount', 'Total', []);
  if (figures?.payable === undefined || figures.withholding === undefined || payable === undefined)
    return;
  if (figures.withholding > 0 && payable === figures.payable - figures.withholding) {
    out.push(
      problem(
        TAX,
        'Total.PayableAmount',
        `PayableAmount ${formatAmount(payable)} has the withholdings (${formatAmount(figures.withholding)}) subtracted; withholdings are reported apart and the payable amount is ${formatAmount(figures.payable)}`,
      ),
    );
  }
}
