/**
 * The shipped ERP presets (config/mappings/erp/) through the real daemon (a child process) and the
 * emulator over HTTP, each on its sample export under examples/erp/. Every document the emulator
 * issued is compared with figures computed by hand below (the arithmetic is in the comments), and
 * the rows a preset must not issue (drafts, cancelled, refunds) are checked to be absent.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Project, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

const ROOT = path.join(import.meta.dirname, '../..');
const preset = (name: string): string => path.join(ROOT, 'config/mappings/erp', name);
const sample = (...parts: string[]): Promise<Buffer> =>
  readFile(path.join(ROOT, 'examples/erp', ...parts));

let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  ({ emulator, project } = await resources.runningDaemon({
    kinds: {
      invoice: { mapping: preset('odoo-invoice.yaml') },
      'credit-note': { mapping: preset('odoo-credit-note.yaml') },
      pos: { mapping: preset('loyverse-pos.yaml') },
      payroll: { mapping: preset('generic-payroll.yaml') },
    },
  }));
}, 240_000);

interface Tax {
  TaxCategory: string;
  TaxPercentage?: string;
  TaxableAmount?: string;
  TaxAmount: string;
}
interface InvoiceLine {
  Quantity: string;
  UnitPrice: string;
  GrossAmount: string;
  NetAmount: string;
  TaxSubTotals?: Tax[];
}
interface Invoice {
  CustomerParty: { Name: string; Identification: { DocumentNumber: string; DocumentType: string } };
  Lines: InvoiceLine[];
  TaxTotals?: Tax[];
  Total: { GrossAmount: string; TaxableAmount: string; PayableAmount: string };
}

/** What the test compares of an issued invoice: customer, each line's figures and taxes, the totals. */
function invoiceFigures(r: Invoice): unknown {
  return {
    customer: [
      r.CustomerParty.Identification.DocumentType,
      r.CustomerParty.Identification.DocumentNumber,
    ],
    lines: r.Lines.map((l) => [
      l.Quantity,
      l.UnitPrice,
      l.GrossAmount,
      l.NetAmount,
      (l.TaxSubTotals ?? []).map((t) => `${t.TaxCategory}@${t.TaxPercentage}=${t.TaxAmount}`),
    ]),
    taxes: (r.TaxTotals ?? []).map((t) => `${t.TaxCategory}=${t.TaxAmount}`),
    total: [r.Total.GrossAmount, r.Total.TaxableAmount, r.Total.PayableAmount],
  };
}

describe('shipped ERP presets through the daemon', () => {
  test('odoo-invoice: posted invoices issued whole; draft, cancelled and refund rows are not', async () => {
    await project.drop(
      'invoice',
      'odoo-facturas.csv',
      await sample('odoo', 'odoo-facturas-cliente.csv'),
    );
    const result = await project.finalResult('invoice', 'odoo-facturas.csv', { timeoutMs: 60_000 });
    // rows 5-6 (cancelled, both lines), 7 (draft) and 10 (refund) are skipped
    expect(result.documents.map((d) => [d.key, d.status, d.source, d.errors])).toEqual([
      ['main/invoice/SETP/990000412', 'accepted', { rows: [2, 3, 4] }, []],
      ['main/invoice/SETP/990000414', 'accepted', { rows: [8, 9] }, []],
    ]);
    const issued = await emulator.client.documents({ kind: 'invoice', withRequest: true });
    const byNumber = new Map(
      issued.map((d) => [d.documentNumber, invoiceFigures(d.request as Invoice)]),
    );
    expect([...byNumber.keys()].sort()).toEqual(['SETP990000412', 'SETP990000414']);
    expect(byNumber.get('SETP990000412')).toEqual({
      customer: ['31', '800197268'], // NIT, "800197268-4" without its check digit
      lines: [
        // 10 × 12,500.00 = 125,000.00; IVA 19 % = 23,750.00
        ['10', '12500.00', '125000.00', '125000.00', ['01@19.00=23750.00']],
        // 4 × 24,336.00 = 97,344.00 − 10 % (9,734.40) = 87,609.60 = 4 × 21,902.40; IVA 5 % = 4,380.48
        ['4', '21902.40', '97344.00', '87609.60', ['01@5.00=4380.48']],
        // 2 × 45,000.00 = 90,000.00; INC 8 % = 7,200.00 (no IVA: excluded from VAT)
        ['2', '45000.00', '90000.00', '90000.00', ['04@8.00=7200.00']],
      ],
      // IVA 23,750.00 + 4,380.48 = 28,130.48; INC 7,200.00
      taxes: ['01=28130.48', '04=7200.00'],
      // 125,000.00 + 87,609.60 + 90,000.00 = 302,609.60 (amount_untaxed); + 28,130.48 + 7,200.00 = 337,940.08 (amount_total)
      total: ['302609.60', '302609.60', '337940.08'],
    });
    expect(byNumber.get('SETP990000414')).toEqual({
      customer: ['31', '860012345'],
      lines: [
        // 1 × 350,000.00, "IVA 0%": exempt, in the taxable base
        ['1', '350000.00', '350000.00', '350000.00', ['01@0.00=0.00']],
        // 3 × 15,000.00 = 45,000.00 − 5 % (2,250.00) = 42,750.00 = 3 × 14,250.00; no tax: excluded
        ['3', '14250.00', '45000.00', '42750.00', []],
      ],
      taxes: ['01=0.00'],
      // 350,000.00 + 42,750.00 = 392,750.00 (amount_untaxed = amount_total); taxable 350,000.00
      total: ['392750.00', '350000.00', '392750.00'],
    });
  }, 120_000);

  test('odoo-credit-note: a posted refund is issued referencing its invoice; a cancelled refund and an invoice row are not', async () => {
    await project.drop(
      'credit-note',
      'odoo-notas.csv',
      await sample('odoo', 'odoo-notas-credito.csv'),
    );
    const result = await project.finalResult('credit-note', 'odoo-notas.csv', {
      timeoutMs: 60_000,
    });
    // row 4 (cancelled refund) and row 5 (an out_invoice) are skipped
    expect(result.documents.map((d) => [d.key, d.status, d.source])).toEqual([
      ['main/credit-note/NC/21', 'accepted', { rows: [2, 3] }],
    ]);
    const issued = await emulator.client.documents({ kind: 'credit-note', withRequest: true });
    expect(issued.map((d) => d.documentNumber)).toEqual(['NC21']);
    const note = issued[0]!.request as Invoice & {
      ReasonCredit: string;
      OperationType: string;
      DocumentReferences: unknown[];
    };
    expect([note.ReasonCredit, note.OperationType, note.DocumentReferences]).toEqual([
      'Devolución parcial de los bienes y/o no aceptación parcial del servicio',
      '20',
      [{ DocumentReferred: 'SETP990000412', IssueDate: '2026-11-18' }],
    ]);
    expect(invoiceFigures(note)).toEqual({
      customer: ['31', '800197268'],
      lines: [
        // 2 × 12,500.00 = 25,000.00; IVA 19 % = 4,750.00
        ['2', '12500.00', '25000.00', '25000.00', ['01@19.00=4750.00']],
        // 1 × 24,336.00 − 10 % (2,433.60) = 21,902.40; IVA 5 % = 1,095.12
        ['1', '21902.40', '24336.00', '21902.40', ['01@5.00=1095.12']],
      ],
      // 4,750.00 + 1,095.12 = 5,845.12
      taxes: ['01=5845.12'],
      // 25,000.00 + 21,902.40 = 46,902.40 (amount_untaxed); + 5,845.12 = 52,747.52 (amount_total)
      total: ['46902.40', '46902.40', '52747.52'],
    });
  }, 120_000);

  test(
    'siigo-nube-invoice: product rows are the lines, the payment row the payment; two payment rows refused',
    { timeout: 240_000 },
    async () => {
      // a kind has one mapping: the Siigo preset runs in a daemon of its own
      const siigo = await resources.daemonProject({
        kinds: { invoice: { mapping: preset('siigo-nube-invoice.yaml') } },
      });
      await resources.startDaemon(siigo.project);
      await siigo.project.drop(
        'invoice',
        'siigo-facturas.csv',
        await sample('siigo-nube', 'siigo-facturas-venta.csv'),
      );
      const result = await siigo.project.finalResult('invoice', 'siigo-facturas.csv', {
        timeoutMs: 60_000,
      });
      expect(
        result.documents.map((d) => [d.key, d.status, d.source, d.errors.map((e) => e.code)]),
      ).toEqual([
        ['main/invoice/SETP/990000501', 'accepted', { rows: [2, 3, 4, 5] }, []],
        ['main/invoice/SETP/990000502', 'accepted', { rows: [6, 7, 8] }, []],
        // paid half in cash, half by card: two payment rows, the request carries one payment
        [
          null,
          'invalid',
          { rows: [9, 10, 11], erpKey: '1990000503' },
          ['EDOC_MAP_DOCUMENT_ROW', 'EDOC_MAP_INCONSISTENT'],
        ],
      ]);
      const issued = await siigo.emulator.client.documents({ kind: 'invoice', withRequest: true });
      const byNumber = new Map(
        issued.map((d) => [
          d.documentNumber,
          d.request as Invoice & { PaymentMeans: unknown[]; CustomerParty: { Name?: string } },
        ]),
      );
      expect([...byNumber.keys()].sort()).toEqual(['SETP990000501', 'SETP990000502']);
      const first = byNumber.get('SETP990000501')!;
      // the template has the customer's number only (no name, no id type)
      expect([
        first.CustomerParty.Identification,
        first.CustomerParty.Name,
        first.PaymentMeans,
      ]).toEqual([
        { DocumentNumber: '800197268', CountryCode: 'CO' },
        undefined,
        [{ Code: '10', Mean: '1', DueDate: '2026-11-18' }],
      ]);
      expect(invoiceFigures(first)).toMatchObject({
        lines: [
          // 2 × 50,000.00 = 100,000.00 − 10,000.00 = 90,000.00 = 2 × 45,000.00; IVA (code 1) 19 % = 17,100.00
          ['2', '45000.00', '100000.00', '90000.00', ['01@19.00=17100.00']],
          // 1 × 30,000.00; 19 % = 5,700.00
          ['1', '30000.00', '30000.00', '30000.00', ['01@19.00=5700.00']],
          // 3 × 12,000.00 = 36,000.00; IVA (code 2) 5 % = 1,800.00
          ['3', '12000.00', '36000.00', '36000.00', ['01@5.00=1800.00']],
        ],
        taxes: ['01=24600.00'],
        // 90,000 + 30,000 + 36,000 = 156,000.00; + 17,100 + 5,700 + 1,800 = 180,600.00 = Valor Forma de Pago
        total: ['156000.00', '156000.00', '180600.00'],
      });
      const second = byNumber.get('SETP990000502')!;
      expect(second.PaymentMeans).toEqual([{ Code: '42', Mean: '2', DueDate: '2026-12-19' }]);
      expect(invoiceFigures(second)).toMatchObject({
        lines: [
          // 4 × 25,000.00 = 100,000.00; no VAT code (excluded), INC (code 4) 8 % = 8,000.00
          ['4', '25000.00', '100000.00', '100000.00', ['04@8.00=8000.00']],
          // 1 × 80,000.00, VAT code 3: exempt
          ['1', '80000.00', '80000.00', '80000.00', ['01@0.00=0.00']],
        ],
        taxes: ['04=8000.00', '01=0.00'], // in the order the categories first appear
        // 100,000 + 80,000 = 180,000.00; + 8,000 = 188,000.00 = Valor Forma de Pago
        total: ['180000.00', '180000.00', '188000.00'],
      });
    },
  );

  test('loyverse-pos: closed sales issued with prices before VAT; cancelled and refund receipts not; an inexact price refused', async () => {
    await project.drop(
      'pos',
      'loyverse-recibos.csv',
      await sample('loyverse', 'loyverse-recibos-por-articulo.csv'),
    );
    const result = await project.finalResult('pos', 'loyverse-recibos.csv', { timeoutMs: 60_000 });
    // row 4 (Cancelled) and row 5 (Refund) are skipped
    expect(result.documents.map((d) => [d.status, d.source, d.errors.map((e) => e.code)])).toEqual([
      ['accepted', { rows: [2, 3], erpKey: '1-1042' }, []],
      ['accepted', { rows: [6, 7], erpKey: '1-1045' }, []],
      // 2 × 3,500 with VAT: 7,000 × 5,882.35 / 7,000 / 2 = 2,941.175 -> 2,941.18; 2 × 2,941.18 = 5,882.36
      // + 19 % 1,117.65 = 7,000.01, not the 7,000.00 paid: refused, not issued
      ['invalid', { rows: [8], erpKey: '1-1046' }, ['EDOC_MAP_TOTAL_MISMATCH']],
    ]);
    type Pos = {
      documento: { cajaVenta: { codigoVenta: string } };
      totales: Record<string, number>;
      detalles: {
        unidades: string;
        valorUnitarioBruto: string;
        valorBruto: number;
        tributos: { porcentaje: number; valorBase: number; valorImporte: number }[];
      }[];
    };
    const issued = (await emulator.client.documents({ kind: 'pos', withRequest: true })).map(
      (d) => (d.request as { content: Pos }).content,
    );
    const byReceipt = new Map(
      issued.map((r) => [
        r.documento.cajaVenta.codigoVenta,
        {
          lines: r.detalles.map((l) => [
            l.unidades,
            l.valorUnitarioBruto,
            l.valorBruto,
            l.tributos.map((t) => [t.porcentaje, t.valorBase, t.valorImporte]),
          ]),
          totals: [
            r.totales.valorBruto,
            r.totales.valorDescuentos,
            r.totales.valorTotalSinImpuestos,
            r.totales.valorNeto,
          ],
        },
      ]),
    );
    expect([...byReceipt.keys()].sort()).toEqual(['1-1042', '1-1045']);
    expect(byReceipt.get('1-1042')).toEqual({
      lines: [
        // Net sales 20,000 holds Taxes 3,193.28: before VAT 16,806.72, rate 3,193.28 / 16,806.72 = 19 %;
        // unit 20,000 × 16,806.72 / 20,000 / 2 = 8,403.36; 2 × 8,403.36 = 16,806.72; × 19 % = 3,193.28
        ['2', '8403.36', 16806.72, [[19, 16806.72, 3193.28]]],
        // Net sales 11,340 holds 540: before VAT 10,800, 5 %; unit 12,600 × 10,800 / 11,340 / 3 = 4,000.00;
        // discount 1,260 × 10,800 / 11,340 = 1,200.00; base 12,000 − 1,200 = 10,800; × 5 % = 540
        ['3', '4000.00', 12000, [[5, 10800, 540]]],
      ],
      // gross 16,806.72 + 12,000 = 28,806.72; discounts 1,200; before VAT 27,606.72; + 3,193.28 + 540 = 31,340.00 (20,000 + 11,340)
      totals: [28806.72, 1200, 27606.72, 31340],
    });
    expect(byReceipt.get('1-1045')).toEqual({
      lines: [
        // Taxes 0: exempt, 18,500 at 0 %
        ['1', '18500.00', 18500, [[0, 18500, 0]]],
        // 11,900 holds 1,900: 10,000 before VAT (19 %), 5,000 a unit
        ['2', '5000.00', 10000, [[19, 10000, 1900]]],
      ],
      // 18,500 + 10,000 = 28,500; + 1,900 = 30,400 (18,500 + 11,900)
      totals: [28500, 0, 28500, 30400],
    });
  }, 120_000);

  test('loyverse-pos: a 12-hour time is read as the afternoon it says', async () => {
    const original = (await sample('loyverse', 'loyverse-recibos-por-articulo.csv')).toString(
      'utf8',
    );
    // the header and receipt 1-1042 alone, renumbered 1-2042, its time written on a 12-hour clock
    const [header, ...rows] = original.split('\n');
    const text = [header, ...rows.filter((row) => row.includes('1-1042'))]
      .join('\n')
      .replaceAll('1-1042', '1-2042')
      .replaceAll('21/11/2026 14:32', '21/11/2026 2:32 PM');
    await project.drop('pos', 'loyverse-12h.csv', text);
    const result = await project.finalResult('pos', 'loyverse-12h.csv', { timeoutMs: 60_000 });
    expect(result.documents.map((d) => [d.status, d.source])).toEqual([
      ['accepted', { rows: [2, 3], erpKey: '1-2042' }],
    ]);
    const issued = (await emulator.client.documents({ kind: 'pos', withRequest: true })).map((d) =>
      JSON.stringify(d.request),
    );
    const sent = issued.find((r) => r.includes('"1-2042"'));
    // 2:32 PM is 12 + 2 = 14 hours, 32 minutes
    expect(sent).toContain('"horaEmision":"14:32:00"');
  }, 120_000);

  test('generic-payroll: one payroll per employee from concept rows; provisions, zero concepts and the footer left out', async () => {
    await project.drop(
      'payroll',
      'nomina-noviembre.csv',
      await sample('payroll', 'nomina-por-concepto.csv'),
    );
    const result = await project.finalResult('payroll', 'nomina-noviembre.csv', {
      timeoutMs: 60_000,
    });
    // rows 1-4 title lines, 5 header; 9 and 24 (concepts with 0 earned and 0 deducted) and 28 (TOTALES) skipped
    expect(result.documents.map((d) => [d.key, d.status, d.source, d.errors])).toEqual([
      ['main/payroll/NOM/301', 'accepted', { rows: [6, 7, 8, 10, 11, 12, 13] }, []],
      ['main/payroll/NOM/302', 'accepted', { rows: [14, 15, 16, 17, 18, 19, 20, 21] }, []],
      ['main/payroll/NOM/303', 'accepted', { rows: [22, 23, 25, 26, 27] }, []],
    ]);
    type Payroll = Record<string, unknown> & {
      Trabajador: { TipoDocumento: string; NumeroDocumento: string };
      Devengados: Record<string, unknown>;
      Deducciones: Record<string, unknown>;
      DevengadosTotal: string;
      DeduccionesTotal: string;
      ComprobanteTotal: string;
    };
    const issued = (await emulator.client.documents({ kind: 'payroll', withRequest: true })).map(
      (d) => d.request as Payroll,
    );
    const byEmployee = new Map(issued.map((r) => [r.Trabajador.NumeroDocumento, r]));
    expect([...byEmployee.keys()].sort()).toEqual(['1032456789', '456789', '80123456']);
    const ana = byEmployee.get('1032456789')!;
    expect([ana.Devengados, ana.Deducciones]).toEqual([
      {
        Basico: { DiasTrabajados: '30', SueldoTrabajado: '2000000.00' },
        Transporte: [{ AuxilioTransporte: '200000.00' }],
        // 2,000,000 / 240 h = 8,333.33 × 1.25 × 4 h = 41,666.67; the night-overtime row (0 h, 0) is not sent
        HEDs: [{ Cantidad: '4', Porcentaje: '25.00', Pago: '41666.67' }],
      },
      {
        // 4 % of 2,041,666.67 = 81,666.67 each
        Salud: { Porcentaje: '4', Deduccion: '81666.67' },
        FondoPension: { Porcentaje: '4', Deduccion: '81666.67' },
        Libranzas: [{ Descripcion: 'Libranza Banco Popular', Deduccion: '150000.00' }],
      },
    ]);
    // 2,000,000 + 200,000 + 41,666.67 = 2,241,666.67; 81,666.67 × 2 + 150,000 = 313,333.34; 2,241,666.67 − 313,333.34 = 1,928,333.33
    expect([ana.DevengadosTotal, ana.DeduccionesTotal, ana.ComprobanteTotal]).toEqual([
      '2241666.67',
      '313333.34',
      '1928333.33',
    ]);
    const carlos = byEmployee.get('80123456')!;
    expect([carlos.Devengados, carlos.Deducciones]).toEqual([
      {
        // 6,500,000 / 30 × 27 = 5,850,000.00
        Basico: { DiasTrabajados: '27', SueldoTrabajado: '5850000.00' },
        Comisiones: [{ Comision: '500000.00' }],
        // 6,500,000 / 30 × 3 × 2/3 = 433,333.33
        Incapacidades: [{ Cantidad: '3', Tipo: '1', Pago: '433333.33' }],
      },
      {
        // base 5,850,000 + 500,000 + 433,333.33 = 6,783,333.33: 4 % = 271,333.33, 1 % = 67,833.33
        Salud: { Porcentaje: '4', Deduccion: '271333.33' },
        FondoPension: { Porcentaje: '4', Deduccion: '271333.33' },
        FondoSP: { Porcentaje: '1', Deduccion: '67833.33' },
        RetencionFuente: '398000.00',
      },
    ]);
    // 6,783,333.33; 271,333.33 × 2 + 67,833.33 + 398,000 = 1,008,499.99; 6,783,333.33 − 1,008,499.99 = 5,774,833.34
    expect([carlos.DevengadosTotal, carlos.DeduccionesTotal, carlos.ComprobanteTotal]).toEqual([
      '6783333.33',
      '1008499.99',
      '5774833.34',
    ]);
    const maria = byEmployee.get('456789')!;
    expect([maria.Trabajador.TipoDocumento, maria.Devengados, maria.Deducciones]).toEqual([
      '22',
      {
        // 1,423,500 / 30 × 15 = 711,750.00; transport 200,000 / 30 × 15 = 100,000.00; the 0-hour overtime row is not sent
        Basico: { DiasTrabajados: '15', SueldoTrabajado: '711750.00' },
        Transporte: [{ AuxilioTransporte: '100000.00' }],
        Bonificaciones: [{ BonificacionNS: '50000.00' }],
      },
      {
        // 4 % of 711,750 = 28,470.00
        Salud: { Porcentaje: '4', Deduccion: '28470.00' },
        FondoPension: { Porcentaje: '4', Deduccion: '28470.00' },
      },
    ]);
    // 711,750 + 100,000 + 50,000 = 861,750.00; 28,470 × 2 = 56,940.00; 861,750 − 56,940 = 804,810.00
    expect([maria.DevengadosTotal, maria.DeduccionesTotal, maria.ComprobanteTotal]).toEqual([
      '861750.00',
      '56940.00',
      '804810.00',
    ]);
  }, 120_000);
});
