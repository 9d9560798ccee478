/**
 * Amounts must add up, to the cent, half-up. Only what is present is checked:
 * the spec does not show which E1 fields are required, so an absent block is
 * never a failure here (the schema and the service decide that).
 */
import { excerpt } from '../policy/excerpt.js';
import { arr, obj, text } from './access.js';
import { joinPath, type Problem } from './problem.js';
import { isWithholding, supportFigures, type SupportLineFigures } from './support-figures.js';
import {
  checkCategoryTotals,
  checkDocumentSubTotals,
  expectAmount,
  lineProduct,
  readAmount,
  readTaxEntries,
  sumAll,
  taxOf,
  VAT,
  type TaxEntry,
} from './tax-math.js';

interface InvoiceLineFigures {
  net: number | undefined;
  entries: TaxEntry[] | undefined;
}

/** E1 (invoice, credit and debit notes): lines vs TaxSubTotals, TaxTotals and Total. */
export function invoiceTotals(request: unknown): Problem[] {
  const r = obj(request);
  if (r === undefined) return [];
  const out: Problem[] = [];
  const items = arr(r.Lines);
  const lines = items?.map((item, i) => invoiceLine(obj(item) ?? {}, joinPath('Lines', i), out));
  const lineEntries = lines?.flatMap((l) => l.entries ?? []) ?? [];
  const anyLineTaxes = lines?.some((l) => l.entries !== undefined) ?? false;

  const docSubs = readTaxEntries(r.TaxSubTotals, 'TaxSubTotals', out);
  const docTotals = readTaxEntries(r.TaxTotals, 'TaxTotals', out);
  if (lines !== undefined) checkDocumentSubTotals(r.TaxSubTotals, lineEntries, 'TaxSubTotals', out);
  if (docSubs !== undefined) checkCategoryTotals(r.TaxTotals, docSubs, 'TaxTotals', out);
  else if (lines !== undefined) checkCategoryTotals(r.TaxTotals, lineEntries, 'TaxTotals', out);

  const total = obj(r.Total);
  if (total === undefined) return out;
  const gross = readAmount(total, 'GrossAmount', 'Total', out);
  const taxableGiven = readAmount(total, 'TaxableAmount', 'Total', out);
  const billable = readAmount(total, 'TotalBillableAmount', 'Total', out);
  const payable = readAmount(total, 'PayableAmount', 'Total', out);

  const lineNets = lines === undefined ? undefined : sumAll(lines.map((l) => l.net));
  expectAmount(out, 'Total.GrossAmount', gross, lineNets, 'sum of the line NetAmounts');

  // Each taxed or exempt line counts once in the base, even with several taxes on it.
  const taxable =
    lines === undefined || (!anyLineTaxes && docSubs !== undefined)
      ? undefined
      : sumAll(
          lines.map((l) =>
            l.entries === undefined || l.entries.length === 0
              ? 0
              : maxOf(l.entries.map((e) => e.base)),
          ),
        );
  expectAmount(
    out,
    'Total.TaxableAmount',
    taxableGiven,
    taxable,
    'sum of the bases of taxed and exempt lines',
  );

  const taxes = anyLineTaxes
    ? sumAll(lineEntries.map((e) => e.amount))
    : docTotals !== undefined
      ? sumAll(docTotals.map((e) => e.amount))
      : docSubs !== undefined
        ? sumAll(docSubs.map((e) => e.amount))
        : 0;
  const grossBase = lineNets ?? gross;
  const expectedBillable =
    grossBase === undefined || taxes === undefined ? undefined : grossBase + taxes;
  expectAmount(out, 'Total.TotalBillableAmount', billable, expectedBillable, 'GrossAmount + taxes');
  expectAmount(
    out,
    'Total.PayableAmount',
    payable,
    billable ?? expectedBillable,
    'equal to TotalBillableAmount',
  );
  return out;
}

function invoiceLine(
  line: Record<string, unknown>,
  path: string,
  out: Problem[],
): InvoiceLineFigures {
  const net = readAmount(line, 'NetAmount', path, out);
  readAmount(line, 'GrossAmount', path, out);
  readAmount(line, 'UnitPrice', path, out);
  expectAmount(
    out,
    joinPath(path, 'NetAmount'),
    net,
    lineProduct(line),
    () =>
      `Quantity ${excerpt(String(text(line.Quantity)))} × UnitPrice ${excerpt(String(text(line.UnitPrice)))}`,
  );
  const entries = readTaxEntries(line.TaxSubTotals, joinPath(path, 'TaxSubTotals'), out);
  arr(line.TaxSubTotals)?.forEach((item, j) => {
    const e = obj(item);
    const entry = entries?.[j];
    expectAmount(
      out,
      joinPath(path, 'TaxSubTotals', j, 'TaxAmount'),
      entry?.amount,
      taxOf(entry?.base, e),
      () => `TaxableAmount × ${excerpt(String(text(e?.TaxPercentage)))}%`,
    );
  });
  if (entries !== undefined)
    checkCategoryTotals(line.TaxTotals, entries, joinPath(path, 'TaxTotals'), out);
  return { net, entries };
}

/** E5 / E6: line amounts, withholdings and Total of a support document or adjustment note. */
export function supportTotals(request: unknown): Problem[] {
  const r = obj(request);
  if (r === undefined) return [];
  const out: Problem[] = [];
  const figures = supportFigures(r, out);
  if (figures !== undefined) {
    const items = arr(r.Lines) ?? [];
    figures.lines.forEach((line, i) => supportLine(obj(items[i]) ?? {}, line, out));
    const vatEntries = figures.lines.flatMap((l) =>
      l.vatEntries.filter((e) => !isWithholding(e.category)),
    );
    checkDocumentSubTotals(r.TaxSubTotals, vatEntries, 'TaxSubTotals', out);
    checkCategoryTotals(r.TaxTotals, vatEntries, 'TaxTotals', out);
    checkCategoryTotals(
      r.WithholdingTaxTotals,
      figures.lines.flatMap((l) => l.withholdings.filter((w) => w.category !== VAT)),
      'WithholdingTaxTotals',
      out,
    );
  }
  const total = obj(r.Total);
  if (total === undefined || figures === undefined) {
    if (total !== undefined)
      for (const key of ['TaxableAmount', 'TaxAmount', 'PayableAmount', 'WithholdingTaxAmount'])
        readAmount(total, key, 'Total', out);
    return out;
  }
  expectAmount(
    out,
    'Total.TaxableAmount',
    readAmount(total, 'TaxableAmount', 'Total', out),
    figures.taxable,
    'sum of the bases of taxed and exempt lines; excluded lines do not count',
  );
  expectAmount(
    out,
    'Total.TaxAmount',
    readAmount(total, 'TaxAmount', 'Total', out),
    figures.vat,
    "sum of the lines' VAT",
  );
  expectAmount(
    out,
    'Total.PayableAmount',
    readAmount(total, 'PayableAmount', 'Total', out),
    figures.payable,
    'sum of the line values + VAT; withholdings are not subtracted',
  );
  expectAmount(
    out,
    'Total.WithholdingTaxAmount',
    readAmount(total, 'WithholdingTaxAmount', 'Total', out),
    figures.withholding,
    'sum of the withholdings: 05 on the VAT, 06 on the taxable amount',
  );
  return out;
}

function supportLine(line: Record<string, unknown>, f: SupportLineFigures, out: Problem[]): void {
  const path = f.path;
  const ignored: Problem[] = [];
  expectAmount(
    out,
    joinPath(path, 'NetAmount'),
    readAmount(line, 'NetAmount', path, ignored),
    lineProduct(line),
    () =>
      `Quantity ${excerpt(String(text(line.Quantity)))} × UnitPrice ${excerpt(String(text(line.UnitPrice)))}`,
  );
  arr(line.TaxSubTotals)?.forEach((item, j) => {
    const e = obj(item);
    const here = joinPath(path, 'TaxSubTotals', j);
    expectAmount(
      out,
      joinPath(here, 'TaxAmount'),
      readAmount(e, 'TaxAmount', here, ignored),
      taxOf(f.vatEntries[j]?.base, e),
      () => `TaxableAmount × ${excerpt(String(text(e?.TaxPercentage)))}%`,
    );
  });
  for (const w of f.withholdings) {
    const on =
      w.category === '05'
        ? "the line's VAT"
        : w.category === '06'
          ? "the line's taxable amount"
          : 'TaxableAmount';
    if (w.category === '05' || w.category === '06')
      expectAmount(
        out,
        joinPath(w.path, 'TaxableAmount'),
        w.givenBase,
        w.base,
        `withholding ${w.category} applies to ${on}`,
      );
    expectAmount(
      out,
      joinPath(w.path, 'TaxAmount'),
      w.givenAmount,
      w.amount,
      `${w.rate ?? '?'}% of ${on}`,
    );
  }
}

function maxOf(values: readonly (number | undefined)[]): number | undefined {
  let best: number | undefined;
  for (const v of values) {
    if (v === undefined) return undefined;
    best = best === undefined ? v : Math.max(best, v);
  }
  return best ?? 0;
}
