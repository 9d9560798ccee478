/**
 * The guards on in every mapping: a VAT rate outside the mapping's allowed
 * rates (default 0, 5, 19: catches a fraction `0.19` read as 0.19 %), a
 * negative quantity or price, a line worth zero unless the mapping allows
 * zero lines, a unit price whose rounding to the cent (the wire's two
 * decimals) changes quantity × price, and a tax or withholding rate above
 * 100 %. Each problem names the export's column and row.
 */
import {
  canonicalDecimal,
  formatAmount,
  mulDecimals,
  parseAmountLenient,
} from '../../policy/amount.js';
import { excerpt } from '../../policy/excerpt.js';
import type { Problem } from '../../validate/problem.js';
import { specColumns } from '../compile-node.js';
import type { Mapping, MappingNode } from '../mapping-types.js';
import { lineFigure } from './computed-figures.js';
import type { GuardLine } from './reconcile.js';

const QUANTITY = ['Quantity', 'unidades'];
const PRICE = ['UnitPrice', 'valorUnitarioBruto'];
const AMOUNTS = [...QUANTITY, ...PRICE];

const columnCache = new WeakMap<Mapping, Map<string, string>>();

/** The column a line field or a derivation input is read from ('' when none). */
function columnOf(mapping: Mapping, name: string): string {
  let cache = columnCache.get(mapping);
  if (cache === undefined) {
    cache = new Map();
    columnCache.set(mapping, cache);
  }
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  let found = '';
  const node: MappingNode | undefined = mapping.lines;
  const child = node?.type === 'object' ? node.entries.find(([n]) => n === name)?.[1] : undefined;
  if (child?.type === 'value') found = [...specColumns(child.spec, new Set())][0] ?? '';
  for (const d of mapping.derive) {
    const spec = d.lineInputs[name];
    if (found === '' && spec !== undefined) found = [...specColumns(spec, new Set())][0] ?? '';
  }
  cache.set(name, found);
  return found;
}

/** Request values are canonical text (`-2`, `-1.00`) or POS numbers: only a leading minus is looked at, and -0 is no negative. */
function isNegative(v: unknown): boolean {
  if (typeof v === 'number') return v < 0;
  if (typeof v !== 'string' || v.charCodeAt(0) !== 45) return false;
  const c = canonicalDecimal(v);
  return c !== undefined && c.startsWith('-');
}

const allowedCache = new WeakMap<Mapping, Set<string>>();

/** The allowed rates as the request writes them (`19.00`), beside their canonical form (`19`). */
function allowedRates(mapping: Mapping): Set<string> {
  let set = allowedCache.get(mapping);
  if (set === undefined) {
    set = new Set(mapping.guards.vatRates.flatMap((r) => [r, Number(r).toFixed(2)]));
    allowedCache.set(mapping, set);
  }
  return set;
}

function vatRates(fields: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const e of Array.isArray(fields.TaxSubTotals) ? fields.TaxSubTotals : []) {
    const t = e as Record<string, unknown>;
    if (t.TaxCategory === '01') out.push(String(t.TaxPercentage));
  }
  for (const e of Array.isArray(fields.tributos) ? fields.tributos : []) {
    const t = e as Record<string, unknown>;
    if (t.id === '01') out.push(String(t.porcentaje));
  }
  return out;
}

function at(column: string, rows: number[]): string {
  const where = rows.length === 1 ? `row ${rows[0]}` : `rows ${rows.join(', ')}`;
  return column === '' ? where : `column "${column}", ${where}`;
}

/** Whether a line field is computed by an expression (`expr: 'Precio / 1.19'`), not read from a cell. */
function isComputed(mapping: Mapping, name: string): boolean {
  const node: MappingNode | undefined = mapping.lines;
  const child = node?.type === 'object' ? node.entries.find(([n]) => n === name)?.[1] : undefined;
  return child?.type === 'value' && child.spec.expr !== undefined;
}

/**
 * A price the export writes past the cent (`0,125`) is carried rounded (`0.13`): when quantity × the
 * rounded price is another value than quantity × the price (1000 × 0.125 = 125.00, not 130.00), the line
 * would be issued at a value the export never had. A quantity read `as: decimal` (an amount: two
 * decimals) that loses digits (2,125 kg carried as 2.13) is another quantity than the export's.
 */
function priceDecimals(mapping: Mapping, line: GuardLine): Problem | undefined {
  if (line.exact === undefined) return undefined;
  const f = line.fields;
  const quantityName = QUANTITY.find((q) => typeof f[q] === 'string');
  if (quantityName === undefined) return undefined;
  const quantity = f[quantityName] as string;
  const exactQuantity = line.exact[quantityName];
  if (exactQuantity !== undefined) {
    const column = columnOf(mapping, quantityName);
    return {
      code: 'EDOC_MAP_PRICE_DECIMALS',
      path: '',
      column,
      value: excerpt(exactQuantity),
      rows: line.rows,
      message: `The quantity ${excerpt(exactQuantity)} at ${at(column, line.rows)} is read "as: decimal", an amount of two decimals, and would be issued as ${excerpt(quantity)}; the line is not issued with another quantity: read quantities "as: number"`,
    };
  }
  for (const name of PRICE) {
    const exact = line.exact[name];
    if (exact === undefined) continue;
    const cents = parseAmountLenient(exact);
    if (cents === undefined) continue;
    const carried = formatAmount(cents);
    const meant = mulDecimals(quantity, exact);
    const issued = mulDecimals(quantity, carried);
    if (meant === undefined || issued === undefined || meant === issued) continue;
    const column = columnOf(mapping, name);
    // a computed price (`Precio / 1.19`) is rounded around its own expression, never replaced by the cell
    const hint =
      column === '' || isComputed(mapping, name)
        ? 'round(…, 2) around its expression'
        : `expr: 'round([${column}], 2)'`;
    return {
      code: 'EDOC_MAP_PRICE_DECIMALS',
      path: '',
      column,
      value: excerpt(exact),
      rows: line.rows,
      message: `The unit price ${excerpt(exact)} at ${at(column, line.rows)} has more decimals than the wire's two: quantity ${excerpt(quantity)} × ${excerpt(exact)} is ${formatAmount(meant)}, but × ${carried} it would be ${formatAmount(issued)}; the line is not issued at another value: give the price in whole cents in the export, or, where the ERP itself bills the rounded price, round it in the mapping (${hint})`,
    };
  }
  return undefined;
}

type Entry = Record<string, unknown>;

function entries(v: unknown): Entry[] {
  return Array.isArray(v) ? (v.filter((e) => typeof e === 'object' && e !== null) as Entry[]) : [];
}

/**
 * The lowest real rate of a tax or withholding: the consumption tax (04) is 4, 8 or 16 %, a VAT
 * withholding (05) 15 % or 100 % of the VAT, the lowest income withholding (06) 0.1 % (fuel). A rate
 * below it is a fraction read as a percentage (`0,08` for 8 % made 0.08 %): a hundredth of the export's.
 */
const LOWEST_RATE: Record<string, { rate: number; what: string; example: string } | undefined> = {
  '04': { rate: 1, what: 'every consumption tax rate (4, 8 or 16 %)', example: '0,08 for 8 %' },
  '05': {
    rate: 1,
    what: 'every VAT withholding rate (15 % or 100 % of the VAT)',
    example: '0,15 for 15 %',
  },
  '06': { rate: 0.1, what: 'the lowest income withholding rate (0.10 %)', example: '0,04 for 4 %' },
};

/**
 * No tax or withholding takes more than its base, and only a VAT withholding takes all of it; none the
 * export gives is below its lowest real rate (LOWEST_RATE). A rate
 * above 100 % is a percentage read `as: fraction` (an `8` for 8 % made 800 %, a `1` for 1 % made 100 %),
 * or a withholding amount larger than what it is withheld from; VAT rates have their own allowed set.
 */
function ratesOver100(mapping: Mapping, line: GuardLine): Problem[] {
  const f = line.fields;
  const rates: { category: string; rate: unknown; inputs: string[]; what: string }[] = [];
  for (const e of entries(f.TaxSubTotals))
    if (e.TaxCategory !== '01')
      rates.push({
        category: String(e.TaxCategory),
        rate: e.TaxPercentage,
        inputs: [],
        what: 'tax',
      });
  for (const e of entries(f.tributos))
    if (e.id !== '01')
      rates.push({ category: String(e.id), rate: e.porcentaje, inputs: [], what: 'tax' });
  for (const e of entries(f.WithholdingTaxSubTotals)) {
    const input = e.TaxCategory === '06' ? 'incomeWithholding' : 'vatWithholding';
    rates.push({
      category: String(e.TaxCategory),
      rate: e.TaxPercentage,
      inputs: [input, `${input}Amount`],
      what: 'withholding',
    });
  }
  const out: Problem[] = [];
  for (const r of rates) {
    const rate = Number(r.rate);
    const inputs = r.what === 'tax' ? [`tax${r.category}`] : r.inputs;
    const column = inputs.map((name) => columnOf(mapping, name)).find((c) => c !== '') ?? '';
    const shown = excerpt(String(r.rate));
    // a rate the export gives (not one derived from a stated amount, which is the export's own figure)
    const given = r.what === 'tax' || columnOf(mapping, r.inputs[0]) !== '';
    const lowest = given ? LOWEST_RATE[r.category] : undefined;
    const where = `The ${r.what} ${r.category} at ${shown} % at ${at(column, line.rows)}`;
    let message: string;
    if (lowest !== undefined && rate > 0 && rate < lowest.rate)
      message = `${where} is below ${lowest.what}: a rate the export writes as a fraction (${lowest.example}) is read with "as: fraction", not "as: percent"`;
    // 100 % itself: only a VAT withholding takes its whole base (ReteIVA 100 % on a non-resident's
    // service); an income withholding or a tax at 100 % is `1` (1 %) read `as: fraction`
    else if (rate > 100 || (rate === 100 && r.category !== '05'))
      message = `${where} would take ${rate === 100 ? 'its whole' : 'more than its'} base: no tax or withholding is above 100 %, and only a VAT withholding (05) is 100 %; a rate the export writes as a percentage (8 for 8 %) is read with "as: percent", not "as: fraction"`;
    else continue;
    out.push({
      code: 'EDOC_MAP_TAX_RATE',
      path: '',
      column,
      value: shown,
      rows: line.rows,
      message,
    });
  }
  return out;
}

/** The line's value after discounts is 0 (a cheap look first: nearly every line is not). */
function isZeroLine(f: Record<string, unknown>): boolean {
  const net = f.NetAmount;
  if (typeof net === 'string' && net !== '0.00' && net !== '-0.00') return false;
  return lineFigure(f, 'net') === 0;
}

export function defaultGuards(mapping: Mapping, lines: GuardLine[]): Problem[] {
  const out: Problem[] = [];
  const g = mapping.guards;
  for (const line of lines) {
    const f = line.fields;
    if (g.negative === 'invalid') {
      for (const name of AMOUNTS) {
        if (!isNegative(f[name])) continue;
        const column = columnOf(mapping, name);
        const what = QUANTITY.includes(name) ? 'quantity' : 'price';
        out.push({
          code: 'EDOC_MAP_NEGATIVE',
          path: '',
          column,
          value: excerpt(String(f[name])),
          rows: line.rows,
          message: `A negative ${what} (${excerpt(String(f[name]))}) at ${at(column, line.rows)}; a document line carries positive amounts (a return is a credit note)`,
        });
      }
    }
    for (const rate of vatRates(f)) {
      if (allowedRates(mapping).has(rate)) continue;
      const c = canonicalDecimal(rate) ?? rate;
      if (g.vatRates.includes(c)) continue;
      const column = columnOf(mapping, 'vat');
      out.push({
        code: 'EDOC_MAP_VAT_RATE',
        path: '',
        column,
        value: excerpt(rate),
        rows: line.rows,
        message: `VAT rate ${excerpt(rate)} % at ${at(column, line.rows)} is not one of the allowed rates (${g.vatRates.join(', ')} %)${Number(c) < 1 && Number(c) > 0 ? `: a rate written as a fraction (${excerpt(rate)} for ${Number(c) * 100} %) needs "as: fraction" in the mapping` : ''}; set guards.vatRates if it is right`,
      });
    }
    const rounded = priceDecimals(mapping, line);
    if (rounded !== undefined) out.push(rounded);
    out.push(...ratesOver100(mapping, line));
    if (g.zeroLines === 'invalid' && isZeroLine(f)) {
      const column = columnOf(mapping, 'UnitPrice') || columnOf(mapping, 'valorUnitarioBruto');
      out.push({
        code: 'EDOC_MAP_ZERO_LINE',
        path: '',
        column,
        value: '0.00',
        rows: line.rows,
        message: `The line at ${at(column, line.rows)} is worth 0.00; set guards.zeroLines: allow in the mapping if the export has lines without value`,
      });
    }
  }
  return out;
}
