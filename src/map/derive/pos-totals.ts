/**
 * `derive: pos-totals` (POS documents, E3/E4 content). Per line `valorBruto` =
 * unidades × valorUnitarioBruto and, when the line has a VAT rate (input
 * `vat`; empty = no tax entry), `tributos` [{ id 01, IVA, valorImporte, valorBase,
 * porcentaje }]. Document `tributos`: one per tax with one entry per rate;
 * `totales` (numbers, as the spec types them): valorBruto = Σ lines,
 * valorTotalSinImpuestos = valorBruto, valorTotalConImpuestos = valorNeto =
 * valorBruto − Σ discounts (input `discount`, an amount per line, taxed on
 * the discounted value) + Σ taxes; charges 0.
 */
import { EdocError } from '../../errors.js';
import { formatAmount, mulDecimals, mulRate, tryParseAmount } from '../../policy/amount.js';
import type { DeriveInput } from './derive-types.js';

const VAT = { id: '01', nombre: 'IVA' };

/** Cents as the number the POS content carries (`2380000` -> 23800). */
function money(cents: number): number {
  return Number(formatAmount(cents));
}

/** The line's discount (input `discount`, an amount): 0 when absent; refused when negative or above the line's value. */
function posDiscount(text: unknown, gross: number): number {
  const d = typeof text === 'string' ? tryParseAmount(text) : undefined;
  if (d === undefined) return 0;
  if (d < 0 || d > gross)
    throw new EdocError(
      'EDOC_MAP_DISCOUNT',
      `the line's discount ${formatAmount(d)} is ${d < 0 ? 'negative' : `more than its value ${formatAmount(gross)}`}`,
      { value: formatAmount(d) },
    );
  return d;
}

export function posTotals({ request, lines }: DeriveInput): void {
  let gross = 0;
  let discounts = 0;
  let taxes = 0;
  const byRate = new Map<string, { base: number; tax: number }>();
  for (const line of lines) {
    const { unidades, valorUnitarioBruto } = line.fields;
    if (typeof unidades !== 'string' || typeof valorUnitarioBruto !== 'string') continue;
    const lineGross = mulDecimals(unidades, valorUnitarioBruto);
    if (lineGross === undefined) continue;
    gross += lineGross;
    line.fields.valorBruto = money(lineGross);
    const net = lineGross - posDiscount(line.inputs.discount, lineGross);
    discounts += lineGross - net;
    const rate = line.inputs.vat;
    if (typeof rate !== 'string') continue;
    const tax = mulRate(net, rate);
    taxes += tax;
    const porcentaje = Number(rate);
    line.fields.tributos = [
      { ...VAT, esImpuesto: true, valorImporte: money(tax), valorBase: money(net), porcentaje },
    ];
    const acc = byRate.get(rate) ?? { base: 0, tax: 0 };
    acc.base += net;
    acc.tax += tax;
    byRate.set(rate, acc);
  }
  if (byRate.size > 0) {
    request.tributos = [
      {
        ...VAT,
        esImpuesto: true,
        valorImporteTotal: money(taxes),
        detalles: [...byRate].map(([rate, acc]) => ({
          valorImporte: money(acc.tax),
          valorBase: money(acc.base),
          porcentaje: Number(rate),
        })),
      },
    ];
  }
  request.totales = {
    valorBruto: money(gross),
    valorCargos: 0,
    valorDescuentos: money(discounts),
    valorTotalSinImpuestos: money(gross - discounts),
    valorTotalConImpuestos: money(gross - discounts + taxes),
    valorNeto: money(gross - discounts + taxes),
  };
}
