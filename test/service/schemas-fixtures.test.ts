import { describe, expect, test } from 'vitest';
import { loadRequestFixture } from '../fixtures/requests/index.js';
import type {
  AdjustmentNoteRequest,
  InvoiceRequest,
  PayrollRequest,
  PosDocumentContent,
  SupportDocumentRequest,
  SupportLine,
} from '../../src/service/schemas/index.js';

/*
 * The request fixtures are shared by validators, mapping, client and emulator
 * tests, so their arithmetic is checked here independently of src/policy.
 */

/** Two-decimal string to integer cents. */
const cents = (s: string | undefined): bigint => {
  const m = /^(\d+)\.(\d{2})$/.exec(s ?? '');
  if (!m) throw new Error(`not an amount: ${s}`);
  return BigInt(m[1]) * 100n + BigInt(m[2]);
};
const fmt = (c: bigint): string => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
/** base × rate / 100, half-up to the cent (rate is a two-decimal percentage). */
const taxOf = (base: string, rate: string): string =>
  fmt((cents(base) * cents(rate) + 5000n) / 10000n);
const times = (qty: string, price: string): string => fmt((cents(qty) * cents(price) + 50n) / 100n);
const sum = (values: (string | undefined)[]): string =>
  fmt(values.reduce((a, v) => a + cents(v), 0n));

const WEIGHTS = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
function checkDigit(nit: string): string {
  const total = [...nit].reverse().reduce((acc, d, i) => acc + Number(d) * WEIGHTS[i], 0);
  const r = total % 11;
  return String(r > 1 ? 11 - r : r);
}

describe('DIAN check digits', () => {
  test('the company NIT 900123456 has check digit 8', () => {
    expect(checkDigit('900123456')).toBe('8');
  });
  test.each(['invoice', 'credit-note', 'debit-note'] as const)(
    'the %s parties carry correct check digits',
    (name) => {
      const r = loadRequestFixture(name) as InvoiceRequest;
      expect(r.IssuerParty?.Identification).toMatchObject({
        DocumentNumber: '900123456',
        CheckDigit: '8',
      });
      const customer = r.CustomerParty?.Identification;
      expect(customer?.CheckDigit).toBe(checkDigit(customer?.DocumentNumber ?? ''));
    },
  );
  test.each(['support-document', 'adjustment-note'] as const)(
    'the %s supplier carries a correct check digit',
    (name) => {
      const id = (loadRequestFixture(name) as SupportDocumentRequest).SupplierParty?.Identification;
      expect(id?.CheckDigit).toBe(checkDigit(id?.DocumentNumber ?? ''));
    },
  );
});

describe('E1 fixtures add up', () => {
  test.each(['invoice', 'credit-note', 'debit-note'] as const)(
    '%s: lines, tax subtotals and Total',
    (name) => {
      const r = loadRequestFixture(name) as InvoiceRequest;
      const lines = r.Lines ?? [];
      const byRate = new Map<string, { base: bigint; tax: bigint }>();
      for (const line of lines) {
        expect(line.NetAmount).toBe(times(line.Quantity ?? '', line.UnitPrice ?? ''));
        expect(line.GrossAmount).toBe(line.NetAmount);
        for (const st of line.TaxSubTotals ?? []) {
          expect(st.TaxableAmount).toBe(line.NetAmount);
          expect(st.TaxAmount).toBe(taxOf(st.TaxableAmount ?? '', st.TaxPercentage ?? ''));
          const acc = byRate.get(st.TaxPercentage ?? '') ?? { base: 0n, tax: 0n };
          byRate.set(st.TaxPercentage ?? '', {
            base: acc.base + cents(st.TaxableAmount),
            tax: acc.tax + cents(st.TaxAmount),
          });
        }
        expect(line.TaxTotals?.[0].TaxAmount).toBe(
          sum((line.TaxSubTotals ?? []).map((s) => s.TaxAmount)),
        );
      }
      expect(
        (r.TaxSubTotals ?? []).map((s) => [s.TaxPercentage, s.TaxableAmount, s.TaxAmount]),
      ).toEqual([...byRate].map(([rate, v]) => [rate, fmt(v.base), fmt(v.tax)]));
      for (const st of r.TaxSubTotals ?? []) {
        expect(taxOf(st.TaxableAmount ?? '', st.TaxPercentage ?? '')).toBe(st.TaxAmount);
      }
      const tax = sum((r.TaxSubTotals ?? []).map((s) => s.TaxAmount));
      const net = sum(lines.map((l) => l.NetAmount));
      expect(r.TaxTotals).toEqual([{ TaxCategory: '01', TaxAmount: tax }]);
      expect(r.Total).toEqual({
        GrossAmount: net,
        TaxableAmount: net,
        TotalBillableAmount: fmt(cents(net) + cents(tax)),
        PayableAmount: fmt(cents(net) + cents(tax)),
      });
    },
  );

  test('the invoice exercises half-up rounding (10.50 × 19% = 1.995 → 2.00)', () => {
    const line = (loadRequestFixture('invoice') as InvoiceRequest).Lines?.[2];
    expect(line?.TaxSubTotals?.[0]).toMatchObject({
      TaxableAmount: '10.50',
      TaxPercentage: '19.00',
      TaxAmount: '2.00',
    });
  });
});

function checkSupportTotals(lines: SupportLine[], total: SupportDocumentRequest['Total']): void {
  let base = 0n;
  let vat = 0n;
  let withholding = 0n;
  for (const line of lines) {
    expect(line.NetAmount).toBe(times(line.Quantity ?? '', line.UnitPrice ?? ''));
    const vatEntry = line.TaxSubTotals?.[0];
    if (vatEntry) {
      base += cents(line.NetAmount);
      vat += cents(vatEntry.TaxAmount);
      expect(vatEntry.TaxAmount).toBe(taxOf(line.NetAmount ?? '', vatEntry.TaxPercentage ?? ''));
    }
    for (const w of line.WithholdingTaxSubTotals ?? []) {
      expect(Object.keys(w).sort()).toEqual(['TaxCategory', 'TaxPercentage']);
      const on = w.TaxCategory === '05' ? vatEntry?.TaxAmount : line.NetAmount;
      withholding += cents(taxOf(on ?? '', w.TaxPercentage ?? ''));
    }
  }
  const all = lines.reduce((a, l) => a + cents(l.NetAmount), 0n);
  expect(total).toEqual({
    TaxableAmount: fmt(base),
    TaxAmount: fmt(vat),
    PayableAmount: fmt(all + vat),
    WithholdingTaxAmount: fmt(withholding),
  });
}

describe('E5 and E6 fixtures add up', () => {
  test('support document: taxed, exempt and excluded lines; withholdings 05 at 15.00 and 06 at 2.50', () => {
    const r = loadRequestFixture('support-document') as SupportDocumentRequest;
    const lines = r.Lines ?? [];
    expect(lines[0].TaxSubTotals).toEqual([
      expect.objectContaining({ TaxCategory: '01', TaxPercentage: '19.00' }),
    ]);
    expect(lines[1].TaxSubTotals).toEqual([
      expect.objectContaining({ TaxPercentage: '0.00', TaxAmount: '0.00' }),
    ]);
    expect(lines[2].TaxSubTotals).toBeUndefined();
    expect(lines[0].WithholdingTaxSubTotals).toEqual([
      { TaxCategory: '05', TaxPercentage: '15.00' },
      { TaxCategory: '06', TaxPercentage: '2.50' },
    ]);
    checkSupportTotals(lines, r.Total);
    expect(r.Total?.WithholdingTaxAmount).toBe('58500.00');
    expect(r.TaxTotals).toEqual([{ TaxCategory: '01', TaxAmount: r.Total?.TaxAmount }]);
  });

  test('adjustment note: one returned VAT line with consistent note taxes and withholding totals', () => {
    const r = loadRequestFixture('adjustment-note') as AdjustmentNoteRequest;
    checkSupportTotals(r.Lines ?? [], r.Total);
    expect(sum((r.WithholdingTaxTotals ?? []).map((w) => w.TaxAmount))).toBe(
      r.Total?.WithholdingTaxAmount,
    );
    expect(r.TaxTotals).toEqual([{ TaxCategory: '01', TaxAmount: r.Total?.TaxAmount }]);
  });

  test('PeriodStartDate placeholders are replaced by the requested date', () => {
    const r = loadRequestFixture('support-document', '2026-11-18') as SupportDocumentRequest;
    expect((r.Lines ?? []).map((l) => l.PeriodStartDate)).toEqual([
      '2026-11-18',
      '2026-11-18',
      '2026-11-18',
    ]);
    const fresh = loadRequestFixture('support-document') as SupportDocumentRequest;
    expect(fresh.Lines?.[0].PeriodStartDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('E2 and POS fixtures add up', () => {
  test.each(['payroll', 'payroll-adjustment'] as const)(
    '%s: totals of earnings and deductions',
    (name) => {
      const r = loadRequestFixture(name) as PayrollRequest;
      const d = r.Devengados;
      const earnings = sum([
        d?.Basico?.SueldoTrabajado,
        ...(d?.Transporte ?? []).map((t) => t.AuxilioTransporte),
        ...(d?.HEDs ?? []).map((h) => h.Pago),
        ...(d?.Bonificaciones ?? []).flatMap((b) => [b.BonificacionS, b.BonificacionNS]),
      ]);
      const deductions = sum([
        r.Deducciones?.Salud?.Deduccion,
        r.Deducciones?.FondoPension?.Deduccion,
      ]);
      expect(r.DevengadosTotal).toBe(earnings);
      expect(r.DeduccionesTotal).toBe(deductions);
      expect(r.ComprobanteTotal).toBe(fmt(cents(earnings) - cents(deductions)));
      const ibc = sum([
        d?.Basico?.SueldoTrabajado,
        ...(d?.HEDs ?? []).map((h) => h.Pago),
        d?.Bonificaciones?.[0].BonificacionS,
      ]);
      expect(r.Deducciones?.Salud?.Deduccion).toBe(taxOf(ibc, '4.00'));
    },
  );

  test('POS content: detail, taxes and totals agree', () => {
    const r = loadRequestFixture('pos-content') as PosDocumentContent;
    const line = r.detalles?.[0];
    expect(Number(line?.unidades) * Number(line?.valorUnitarioBruto)).toBe(line?.valorBruto);
    const t = r.totales;
    expect(t?.valorTotalSinImpuestos).toBe(line?.valorBruto);
    expect((t?.valorTotalSinImpuestos ?? 0) + Number(r.tributos?.[0].valorImporteTotal)).toBe(
      t?.valorTotalConImpuestos,
    );
    expect(t?.valorNeto).toBe(t?.valorTotalConImpuestos);
  });
});
