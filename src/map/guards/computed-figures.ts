/**
 * The figures the engine computed for a document and for each of its lines,
 * read from the built request whatever its kind: sales (Total, TaxTotals),
 * support documents (Total with withholding), POS (`totales`, `tributos`),
 * payroll (ComprobanteTotal). Cents, or undefined where the kind has no such figure.
 */
import { parseAmountLenient } from '../../policy/amount.js';

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function cents(v: unknown): number | undefined {
  return typeof v === 'string' || typeof v === 'number' ? parseAmountLenient(v) : undefined;
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(obj).filter((o): o is Obj => o !== undefined) : [];
}

function sum(values: (number | undefined)[]): number | undefined {
  let total = 0;
  for (const v of values) {
    if (v === undefined) return undefined;
    total += v;
  }
  return total;
}

/** A document figure: `total`, `net`, `gross`, `discount`, `withholding`, `tax:NN`. */
export function documentFigure(request: Obj, figure: string, lines: Obj[]): number | undefined {
  const total = obj(request.Total);
  const pos = obj(request.totales);
  const tax = figure.startsWith('tax:') ? figure.slice(4) : undefined;
  if (tax !== undefined) {
    if (pos !== undefined) {
      const t = list(request.tributos).find((e) => e.id === tax);
      return t === undefined ? 0 : cents(t.valorImporteTotal);
    }
    const entry = list(request.TaxTotals).find((e) => e.TaxCategory === tax);
    return entry === undefined ? 0 : cents(entry.TaxAmount);
  }
  switch (figure) {
    case 'total':
      return pos !== undefined
        ? cents(pos.valorNeto)
        : cents(total?.PayableAmount ?? request.ComprobanteTotal);
    case 'net':
      return pos !== undefined
        ? cents(pos.valorTotalSinImpuestos)
        : sum(lines.map((l) => cents(l.NetAmount)));
    case 'gross':
      return pos !== undefined
        ? cents(pos.valorBruto)
        : sum(lines.map((l) => cents(l.GrossAmount ?? l.NetAmount)));
    case 'discount':
      return pos !== undefined
        ? cents(pos.valorDescuentos)
        : sum(lines.map((l) => lineFigure(l, 'discount')));
    case 'withholding':
      return cents(total?.WithholdingTaxAmount) ?? 0;
    default:
      return undefined;
  }
}

/** A line figure: `net` (after discount), `gross` (before), `discount`, `total` (net + taxes), `tax:NN`. */
export function lineFigure(line: Obj, figure: string): number | undefined {
  const pos = line.valorBruto !== undefined;
  const taxes = pos
    ? list(line.tributos).map((t) => ({
        category: String(t.id),
        amount: cents(t.valorImporte),
        base: cents(t.valorBase),
      }))
    : list(line.TaxSubTotals).map((t) => ({
        category: String(t.TaxCategory),
        amount: cents(t.TaxAmount),
        base: cents(t.TaxableAmount),
      }));
  const gross = pos ? cents(line.valorBruto) : cents(line.GrossAmount ?? line.NetAmount);
  // a POS line's discounted value is its taxes' base (valorBruto stays the undiscounted value)
  const net = pos ? (taxes[0]?.base ?? gross) : cents(line.NetAmount);
  if (figure.startsWith('tax:')) {
    const t = taxes.find((e) => e.category === figure.slice(4));
    return t === undefined ? 0 : t.amount;
  }
  switch (figure) {
    case 'net':
      return net;
    case 'gross':
      return gross;
    case 'discount':
      return gross === undefined || net === undefined ? undefined : gross - net;
    case 'total':
      return net === undefined ? undefined : sum([net, ...taxes.map((t) => t.amount)]);
    default:
      return undefined;
  }
}
