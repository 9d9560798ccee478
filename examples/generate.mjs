// Writes the example ERP exports of this folder (Windows-1252, `;`, CRLF,
// decimal comma, thousands dots). Run: node examples/generate.mjs
// The files are committed; this script documents how they were made.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';

const here = dirname(fileURLToPath(import.meta.url));

function quote(cell) {
  return /[;"\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

function write(name, header, rows) {
  const text = [header, ...rows].map((r) => r.map(quote).join(';')).join('\r\n') + '\r\n';
  writeFileSync(join(here, name), iconv.encode(text, 'windows-1252'));
}

const SALES = [
  'prefijo',
  'numero',
  'fecha',
  'hora',
  'vence',
  'moneda',
  'tipo_operacion',
  'cliente_tipo_doc',
  'cliente_doc',
  'cliente_nombre',
  'cliente_correo',
  'cliente_tipo_persona',
  'medio_pago',
  'forma_pago',
  'linea',
  'codigo',
  'descripcion',
  'cantidad',
  'unidad',
  'precio_unitario',
  'iva',
  'motivo',
  'ref_documento',
  'ref_fecha',
  'ref_cufe',
];

const andina = [
  '31',
  '800.197.268-4',
  'Distribuidora Andina S.A.S.',
  'compras@andina.example',
  '1',
];
const jose = ['CC', '1.020.304.050', 'José Muñoz Peña', 'jose.munoz@correo.example', '2'];
const cafe = ['31', '900.555.666-1', 'Cafetería El Águila Ltda.', '', '1'];

const inv = (numero, fecha, hora, vence, customer, pay, line) => [
  'SETP',
  numero,
  fecha,
  hora,
  vence,
  'COP',
  '10',
  ...customer,
  ...pay,
  ...line,
  '',
  '',
  '',
  '',
];

write('invoices.csv', SALES, [
  inv(
    '990000101',
    '18/11/2026',
    '09:15:00',
    '18/12/2026',
    andina,
    ['42', '2'],
    ['1', '7702001', 'Café molido premium 500 g', '10', '94', '12.500,00', '19'],
  ),
  inv(
    '990000101',
    '18/11/2026',
    '09:15:00',
    '18/12/2026',
    andina,
    ['42', '2'],
    ['2', '7702002', 'Arroz blanco 5 kg; bulto x 4', '4', '94', '21.900,00', '5'],
  ),
  inv(
    '990000102',
    '19/11/2026',
    '14:02:30',
    '',
    jose,
    ['10', '1'],
    ['1', '', 'Cuaderno "Norma" 100 hojas', '3', '94', '3.333,33', '19'],
  ),
  inv(
    '990000101',
    '18/11/2026',
    '09:15:00',
    '18/12/2026',
    andina,
    ['42', '2'],
    ['3', '9789580000', 'Libro escolar Matemáticas 5°', '2', '94', '45.000,00', '0'],
  ),
  inv(
    '990000101',
    '18/11/2026',
    '09:15:00',
    '18/12/2026',
    andina,
    ['42', '2'],
    ['4', '', 'Servicio de transporte\r\nBogotá – Medellín', '1', '94', '1.234.567,50', ''],
  ),
  inv(
    '990000102',
    '19/11/2026',
    '14:02:30',
    '',
    jose,
    ['10', '1'],
    ['2', '', 'Resma papel carta', '1,5', '94', '10.000', '19'],
  ),
  inv(
    '990000103',
    '20/11/2026',
    '',
    '',
    cafe,
    ['48', '1'],
    ['', '', 'Arriendo local comercial noviembre', '1', '94', '2.500.000,00', ''],
  ),
  inv(
    '990000103',
    '20/11/2026',
    '',
    '',
    cafe,
    ['48', '1'],
    ['', '', 'Cuota de administración', '1', '94', '350.000,00', ''],
  ),
]);

const note = (prefijo, numero, fecha, customer, line, motivo, ref, refFecha) => [
  prefijo,
  numero,
  fecha,
  '10:00:00',
  '',
  'COP',
  '10',
  ...customer,
  '10',
  '1',
  ...line,
  motivo,
  ref,
  refFecha,
  '',
];

write('credit-notes.csv', SALES, [
  note(
    'NC',
    '101',
    '21/11/2026',
    andina,
    ['1', '7702001', 'Café molido premium 500 g (devolución)', '2', '94', '12.500,00', '19'],
    'Devolución parcial de mercancía',
    'SETP990000101',
    '18/11/2026',
  ),
  note(
    'NC',
    '101',
    '21/11/2026',
    andina,
    ['2', '9789580000', 'Libro escolar Matemáticas 5° (devolución)', '1', '94', '45.000,00', '0'],
    'Devolución parcial de mercancía',
    'SETP990000101',
    '18/11/2026',
  ),
]);

write('debit-notes.csv', SALES, [
  note(
    'ND',
    '101',
    '21/11/2026',
    jose,
    ['1', '', 'Intereses de mora noviembre', '1', '94', '1.250,50', '19'],
    'Intereses por pago tardío',
    'SETP990000102',
    '19/11/2026',
  ),
  note(
    'ND',
    '101',
    '21/11/2026',
    jose,
    ['2', '', 'Gastos de cobranza', '1', '94', '8.000,00', ''],
    'Intereses por pago tardío',
    'SETP990000102',
    '19/11/2026',
  ),
]);

const SUPPORT = [
  'prefijo',
  'numero',
  'documento',
  'fecha',
  'hora',
  'moneda',
  'proveedor_tipo_doc',
  'proveedor_doc',
  'proveedor_nombre',
  'proveedor_correo',
  'proveedor_tipo_persona',
  'proveedor_departamento',
  'proveedor_ciudad',
  'proveedor_direccion',
  'proveedor_pais',
  'linea',
  'codigo',
  'descripcion',
  'cantidad',
  'unidad',
  'precio_unitario',
  'tipo_operacion',
  'fecha_inicio',
  'iva',
  'retefuente',
  'reteiva',
];

const campesino = [
  'CC',
  '79.456.123',
  'Pedro Antonio Gómez',
  'pedro.gomez@correo.example',
  '2',
  '25',
  '25754',
  'Vereda El Rosal, finca La Esperanza',
  'CO',
];
const disenadora = [
  'CC',
  '52.987.654',
  'María Fernanda Ríos',
  '',
  '2',
  '11',
  '11001',
  'Cra. 7 # 45-10, apto 301',
  'CO',
];

write('support-documents.csv', SUPPORT, [
  [
    'DS',
    '101',
    '',
    '20/11/2026',
    '08:30:00',
    'COP',
    ...campesino,
    '1',
    '',
    'Papa pastusa, bulto 50 kg',
    '20',
    '94',
    '95.000,00',
    '1',
    '',
    '',
    '1,5',
    '',
  ],
  [
    'DS',
    '101',
    '',
    '20/11/2026',
    '08:30:00',
    'COP',
    ...campesino,
    '2',
    '',
    'Transporte de la cosecha',
    '1',
    '94',
    '180.000,00',
    '1',
    '',
    '19',
    '4',
    '15',
  ],
  [
    '',
    '',
    'ERP-CXP-5521',
    '20/11/2026',
    '16:45:00',
    'COP',
    ...disenadora,
    '1',
    '',
    'Diseño de catálogo de productos',
    '1',
    '94',
    '2.800.000,00',
    '1',
    '',
    '19',
    '11',
    '15',
  ],
  [
    '',
    '',
    'ERP-CXP-5521',
    '20/11/2026',
    '16:45:00',
    'COP',
    ...disenadora,
    '2',
    '',
    'Fotografía de producto',
    '12',
    '94',
    '85.000,00',
    '1',
    '',
    '0',
    '11',
    '',
  ],
]);

const PAYROLL = [
  'prefijo',
  'consecutivo',
  'tipo_nota',
  'tipo_doc',
  'documento',
  'primer_apellido',
  'segundo_apellido',
  'primer_nombre',
  'otros_nombres',
  'tipo_trabajador',
  'subtipo_trabajador',
  'tipo_contrato',
  'salario_integral',
  'sueldo',
  'codigo_trabajador',
  'correo',
  'fecha_ingreso',
  'fecha_inicio',
  'fecha_fin',
  'fecha_pago',
  'fecha_generacion',
  'dias_trabajados',
  'sueldo_trabajado',
  'auxilio_transporte',
  'horas_extra_diurnas',
  'valor_horas_extra_diurnas',
  'bonificacion_salarial',
  'bonificacion_no_salarial',
  'salud_pct',
  'salud',
  'pension_pct',
  'pension',
  'retencion_fuente',
];

write('payroll.csv', PAYROLL, [
  [
    'NOM',
    '101',
    '',
    'CC',
    '1.032.456.789',
    'Rodríguez',
    'Peña',
    'Ana',
    'Lucía',
    '01',
    '00',
    '1',
    'N',
    '2.000.000,00',
    'E-001',
    'ana.rodriguez@correo.example',
    '01/02/2024',
    '01/10/2026',
    '31/10/2026',
    '31/10/2026',
    '31/10/2026',
    '30',
    '2.000.000,00',
    '200.000,00',
    '4',
    '41.666,67',
    '',
    '100.000,00',
    '4',
    '80.000,00',
    '4',
    '80.000,00',
    '',
  ],
  [
    'NOM',
    '102',
    '',
    'CC',
    '80.123.456',
    'Muñoz',
    '',
    'Carlos',
    'Andrés',
    '01',
    '00',
    '2',
    'N',
    '6.500.000,00',
    'E-002',
    '',
    '15/06/2023',
    '01/10/2026',
    '31/10/2026',
    '31/10/2026',
    '31/10/2026',
    '30',
    '6.500.000,00',
    '',
    '',
    '',
    '350.000,00',
    '',
    '4',
    '274.000,00',
    '4',
    '274.000,00',
    '412.350,00',
  ],
]);

// --- support adjustment notes (E6) and POS documents (E3), CSV -------------------------------

const ADJUSTMENT = [
  'prefijo',
  'numero',
  'documento',
  'fecha',
  'hora',
  'ref_documento',
  'ref_cufe',
  'ref_fecha',
  'concepto_codigo',
  'concepto',
  'nota',
  'moneda',
  'proveedor_tipo_doc',
  'proveedor_doc',
  'proveedor_nombre',
  'proveedor_correo',
  'proveedor_tipo_persona',
  'proveedor_departamento',
  'proveedor_ciudad',
  'proveedor_direccion',
  'proveedor_pais',
  'linea',
  'codigo',
  'descripcion',
  'cantidad',
  'unidad',
  'precio_unitario',
  'tipo_operacion',
  'fecha_inicio',
  'iva',
  'retefuente',
  'reteiva',
];

const noSupplier = ['', '', '', '', '', '', '', '', ''];
const noLine = ['', '', '', '', '', '', '', '', '', '', ''];

// NAS 101 corrects DS 101 with one line (a price correction); NAS 103 annuls it (no line columns).
write('support-adjustments.csv', ADJUSTMENT, [
  [
    'NAS',
    '101',
    '',
    '22/11/2026',
    '11:00:00',
    'DS101',
    '',
    '20/11/2026',
    '3',
    'Rebaja o descuento parcial',
    'Descuento por papa de segunda',
    'COP',
    ...campesino,
    '1',
    '',
    'Descuento papa pastusa (calidad de segunda)',
    '20',
    '94',
    '5.000,00',
    '1',
    '',
    '',
    '1,5',
    '',
  ],
  [
    'NAS',
    '103',
    '',
    '22/11/2026',
    '11:05:00',
    'DS101',
    '',
    '20/11/2026',
    '2',
    'Anulación',
    'Compra registrada dos veces',
    'COP',
    ...noSupplier,
    ...noLine,
  ],
]);

const POS = [
  'prefijo',
  'numero',
  'ticket',
  'fecha',
  'hora',
  'caja',
  'ubicacion_caja',
  'cajero',
  'medio_pago',
  'forma_pago',
  'cliente_tipo_doc',
  'cliente_doc',
  'cliente_nombre',
  'cliente_correo',
  'cliente_telefono',
  'cliente_tipo_persona',
  'linea',
  'codigo',
  'descripcion',
  'cantidad',
  'unidad',
  'precio_unitario',
  'iva',
];

const tienda = ['CAJA-01', 'Tienda Centro', 'Luis Rojas'];
const consumidor = [
  'CC',
  '1.020.304.050',
  'José Muñoz Peña',
  'jose.munoz@correo.example',
  '300 123 4567',
  '2',
];
const anonimo = ['', '', '', '', '', ''];

// POS 101: two lines (19 % and 5 %), an identified buyer; POS 103: one excluded line, no buyer.
write('pos.csv', POS, [
  [
    'POS',
    '101',
    'T-55012',
    '21/11/2026',
    '14:32:10',
    ...tienda,
    '10',
    '1',
    ...consumidor,
    '1',
    'SKU-001',
    'Café molido 500 g',
    '2',
    '94',
    '10.000,00',
    '19',
  ],
  [
    'POS',
    '101',
    'T-55012',
    '21/11/2026',
    '14:32:10',
    ...tienda,
    '10',
    '1',
    ...consumidor,
    '2',
    'SKU-014',
    'Arroz blanco 1 kg',
    '3',
    '94',
    '4.200,00',
    '5',
  ],
  [
    'POS',
    '103',
    'T-55013',
    '21/11/2026',
    '14:40:00',
    ...tienda,
    '48',
    '1',
    ...anonimo,
    '1',
    'SKU-200',
    'Huevos AA x 30',
    '1',
    '94',
    '18.500,00',
    '',
  ],
]);

// --- JSON (.json: an array) and JSONL (one request a line), UTF-8, in the service's shape ---------
// Amounts are computed here the way the mappings derive them (cents, half-up per line).

const fmt = (c) => (c / 100).toFixed(2);
const pct = (rate) => Number(rate).toFixed(2);
const vatOf = (net, rate) => Math.round((net * Number(rate)) / 100);

function writeJson(name, docs) {
  writeFileSync(join(here, name), `${JSON.stringify(docs, null, 2)}\n`);
}
function writeJsonl(name, docs) {
  writeFileSync(join(here, name), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
}

const ISSUER = {
  Identification: {
    DocumentNumber: '900123456',
    DocumentType: '31',
    CountryCode: 'CO',
    CheckDigit: '8',
  },
};
const andinaParty = {
  LegalType: '1',
  Email: 'compras@andina.example',
  Identification: {
    DocumentNumber: '800197268',
    DocumentType: '31',
    CountryCode: 'CO',
    CheckDigit: '4',
  },
  Name: 'Distribuidora Andina S.A.S.',
};
const joseParty = {
  LegalType: '2',
  Email: 'jose.munoz@correo.example',
  Identification: { DocumentNumber: '1020304050', DocumentType: '13', CountryCode: 'CO' },
  Name: 'José Muñoz Peña',
};

/** lines: [description, quantity, unit price in cents, VAT rate or null]. */
function sales(prefix, number, date, customer, lines, extra = {}) {
  const subs = new Map();
  let gross = 0;
  let taxes = 0;
  const out = lines.map(([description, qty, price, rate], i) => {
    const net = qty * price;
    gross += net;
    const line = {
      Number: String(i + 1),
      Quantity: String(qty),
      QuantityUnitOfMeasure: '94',
      UnitPrice: fmt(price),
      Item: { Description: description },
      GrossAmount: fmt(net),
      NetAmount: fmt(net),
    };
    if (rate !== null) {
      const tax = vatOf(net, rate);
      taxes += tax;
      line.TaxSubTotals = [
        {
          TaxCategory: '01',
          TaxPercentage: pct(rate),
          TaxableAmount: fmt(net),
          TaxAmount: fmt(tax),
        },
      ];
      line.TaxTotals = [{ TaxCategory: '01', TaxAmount: fmt(tax) }];
      const acc = subs.get(rate) ?? { base: 0, tax: 0 };
      subs.set(rate, { base: acc.base + net, tax: acc.tax + tax });
    }
    return line;
  });
  const taxable = [...subs.values()].reduce((s, a) => s + a.base, 0);
  return {
    Currency: 'COP',
    SeriePrefix: prefix,
    SerieNumber: String(number),
    IssueDate: `${date}T10:00:00`,
    DueDate: `${date}T00:00:00`,
    CorrelationDocumentId: `ERP-${prefix}-${number}`,
    ...extra,
    OperationType: '10',
    IssuerParty: ISSUER,
    CustomerParty: customer,
    PaymentMeans: [{ Code: '10', Mean: '1', DueDate: date }],
    Lines: out,
    TaxSubTotals: [...subs].map(([rate, a]) => ({
      TaxCategory: '01',
      TaxPercentage: pct(rate),
      TaxableAmount: fmt(a.base),
      TaxAmount: fmt(a.tax),
    })),
    TaxTotals: subs.size === 0 ? [] : [{ TaxCategory: '01', TaxAmount: fmt(taxes) }],
    Total: {
      GrossAmount: fmt(gross),
      TaxableAmount: fmt(taxable),
      TotalBillableAmount: fmt(gross + taxes),
      PayableAmount: fmt(gross + taxes),
    },
  };
}

const ref = (invoice, date) => ({
  DocumentReferences: [{ DocumentReferred: invoice, IssueDate: date }],
});

// Their names differ from the CSVs' (`invoices-json.json`, not `invoices.json`): one inbox folder gives
// each input name its own report, and NAME.csv beside NAME.json would be reported as `NAME (2)`.
for (const [ext, writeJsonOrJsonl, base] of [
  ['json', writeJson, 200],
  ['jsonl', writeJsonl, 300],
]) {
  const writeAs = (name, docs) => writeJsonOrJsonl(name.replace(`.${ext}`, `-${ext}.${ext}`), docs);
  const inv = (n) => 990000000 + base + n;
  writeAs(`invoices.${ext}`, [
    sales('SETP', inv(1), '2026-11-18', andinaParty, [
      ['Café molido premium 500 g', 10, 1250000, '19'],
      ['Libro escolar Matemáticas 5°', 2, 4500000, '0'],
    ]),
    sales('SETP', inv(3), '2026-11-19', joseParty, [
      ['Resma papel carta', 2, 1000000, '19'],
      ['Servicio de transporte', 1, 5000000, null],
    ]),
  ]);
  writeAs(`credit-notes.${ext}`, [
    sales(
      'NC',
      base + 1,
      '2026-11-21',
      andinaParty,
      [['Café molido premium 500 g (devolución)', 2, 1250000, '19']],
      { ReasonCredit: 'Devolución parcial de mercancía', ...ref(`SETP${inv(1)}`, '2026-11-18') },
    ),
  ]);
  writeAs(`debit-notes.${ext}`, [
    sales(
      'ND',
      base + 1,
      '2026-11-21',
      joseParty,
      [['Intereses de mora noviembre', 1, 125050, '19']],
      { ReasonDebit: 'Intereses por pago tardío', ...ref(`SETP${inv(3)}`, '2026-11-19') },
    ),
  ]);
  writeAs(`support-documents.${ext}`, [support(base + 1), support(base + 3)]);
  writeAs(`support-adjustments.${ext}`, [
    adjustmentWithLines(base + 1, `DS${base + 1}`),
    annulment(base + 3, `DS${base + 3}`),
  ]);
  writeAs(`payroll.${ext}`, [
    payrollOf(base + 1, '1032456789', 'Rodríguez', 'Ana', 2000000_00, 200000_00),
    payrollOf(base + 2, '80123456', 'Muñoz', 'Carlos', 6500000_00, 0),
  ]);
  writeAs(`pos.${ext}`, [
    posOf(base + 1, [
      ['SKU-001', 'Café molido 500 g', 2, 1000000, '19'],
      ['SKU-014', 'Arroz blanco 1 kg', 3, 420000, '5'],
    ]),
    posOf(base + 3, [['SKU-200', 'Huevos AA x 30', 1, 1850000, null]]),
  ]);
}

function supplierParty() {
  return {
    LegalType: '2',
    Email: 'pedro.gomez@correo.example',
    Identification: { DocumentNumber: '79456123', DocumentType: '13', CountryCode: 'CO' },
    Name: 'Pedro Antonio Gómez',
    Address: {
      DepartmentCode: '25',
      CityCode: '25754',
      AddressLine: 'Vereda El Rosal, finca La Esperanza',
      Country: 'CO',
    },
  };
}

/** One support line of `qty` × `price` cents with VAT `rate` (or none) and income withholding `rete` % (or none). */
function supportLine(n, description, qty, price, rate, rete) {
  const net = qty * price;
  const line = {
    Number: String(n),
    Quantity: String(qty),
    QuantityUnitOfMeasure: '94',
    OperationType: '1',
    UnitPrice: fmt(price),
    Item: { Description: description },
    NetAmount: fmt(net),
  };
  const vat = rate === null ? 0 : vatOf(net, rate);
  if (rate !== null)
    line.TaxSubTotals = [
      { TaxCategory: '01', TaxPercentage: pct(rate), TaxableAmount: fmt(net), TaxAmount: fmt(vat) },
    ];
  const withheld = rete === null ? 0 : vatOf(net, rete);
  if (rete !== null)
    line.WithholdingTaxSubTotals = [
      {
        TaxCategory: '06',
        TaxPercentage: pct(rete),
        TaxableAmount: fmt(net),
        TaxAmount: fmt(withheld),
      },
    ];
  return { line, net, vat, taxable: rate === null ? 0 : net, withheld };
}

function supportBody(lines) {
  const sum = (k) => lines.reduce((s, l) => s + l[k], 0);
  return {
    SupplierParty: supplierParty(),
    Lines: lines.map((l) => l.line),
    TaxTotals: lines.some((l) => l.line.TaxSubTotals)
      ? [{ TaxCategory: '01', TaxAmount: fmt(sum('vat')) }]
      : [],
    Total: {
      TaxableAmount: fmt(sum('taxable')),
      TaxAmount: fmt(sum('vat')),
      PayableAmount: fmt(sum('net') + sum('vat')),
      WithholdingTaxAmount: fmt(sum('withheld')),
    },
  };
}

function support(number) {
  return {
    Currency: 'COP',
    SeriePrefix: 'DS',
    SerieNumber: String(number),
    IssueDate: '2026-11-20T08:30:00',
    ...supportBody([
      supportLine(1, 'Papa pastusa, bulto 50 kg', 20, 9500000, null, '1.5'),
      supportLine(2, 'Transporte de la cosecha', 1, 18000000, '19', '4'),
    ]),
  };
}

function adjustmentWithLines(number, referred) {
  return {
    DocumentReferences: [{ DocumentReferred: referred, IssueDate: '2026-11-20' }],
    CorrectionConceptCode: '3',
    CorrectionConcept: 'Rebaja o descuento parcial',
    Currency: 'COP',
    SeriePrefix: 'NAS',
    SerieNumber: String(number),
    Notes: ['Descuento por papa de segunda'],
    ...supportBody([
      supportLine(1, 'Descuento papa pastusa (calidad de segunda)', 20, 500000, null, '1.5'),
    ]),
  };
}

function annulment(number, referred) {
  return {
    DocumentReferences: [{ DocumentReferred: referred }],
    CorrectionConceptCode: '2',
    CorrectionConcept: 'Anulación',
    Currency: 'COP',
    SeriePrefix: 'NAS',
    SerieNumber: String(number),
    Notes: ['Compra registrada dos veces'],
  };
}

function payrollOf(number, id, surname, name, salary, transport) {
  const health = Math.round(salary * 0.04);
  const earnings = salary + transport;
  const deductions = 2 * health;
  return {
    TipoNota: '',
    FechasPagos: [{ FechaPago: '2026-10-31' }],
    Periodo: {
      FechaIngreso: '2024-02-01',
      FechaLiquidacionInicio: '2026-10-01',
      FechaLiquidacionFin: '2026-10-31',
      TiempoLaborado: '30',
      FechaGen: '2026-10-31',
    },
    NumeroSecuenciaXML: { Prefijo: 'NOM', Consecutivo: String(number) },
    LugarGeneracionXML: {
      Pais: 'CO',
      DepartamentoEstado: '11',
      MunicipioCiudad: '11001',
      Idioma: 'es',
    },
    InformacionGeneral: {
      FechaHoraGen: '2026-10-31T18:00:00',
      PeriodoNomina: '5',
      TipoMoneda: 'COP',
      TRM: '0',
    },
    Empleador: { NIT: '900123456' },
    Trabajador: {
      TipoTrabajador: '01',
      SubTipoTrabajador: '00',
      AltoRiesgoPension: 'false',
      TipoDocumento: '13',
      NumeroDocumento: id,
      PrimerApellido: surname,
      PrimerNombre: name,
      LugarTrabajoPais: 'CO',
      LugarTrabajoDepartamentoEstado: '11',
      LugarTrabajoMunicipioCiudad: '11001',
      LugarTrabajoDireccion: 'Carrera 7 # 71-21',
      SalarioIntegral: 'false',
      TipoContrato: '1',
      Sueldo: fmt(salary),
      CodigoTrabajador: `E-${number}`,
    },
    Pago: { Forma: '1', Metodo: '42' },
    Devengados: {
      Basico: { DiasTrabajados: '30', SueldoTrabajado: fmt(salary) },
      ...(transport > 0 ? { Transporte: [{ AuxilioTransporte: fmt(transport) }] } : {}),
    },
    Deducciones: {
      Salud: { Porcentaje: '4.00', Deduccion: fmt(health) },
      FondoPension: { Porcentaje: '4.00', Deduccion: fmt(health) },
    },
    DevengadosTotal: fmt(earnings),
    DeduccionesTotal: fmt(deductions),
    ComprobanteTotal: fmt(earnings - deductions),
    CorrelationDocumentId: `ERP-NOM-${number}`,
  };
}

/** POS content; lines: [code, description, units, unit price in cents, VAT rate or null]. */
function posOf(number, lines) {
  const money = (c) => c / 100;
  let gross = 0;
  let taxes = 0;
  const byRate = new Map();
  const detalles = lines.map(([code, descripcion, units, price, rate]) => {
    const net = units * price;
    gross += net;
    const line = {
      tipoDetalle: '1',
      valorCodigoInterno: code,
      descripcion,
      unidades: units,
      unidadMedida: '94',
      valorUnitarioBruto: money(price),
      valorBruto: money(net),
    };
    if (rate !== null) {
      const tax = vatOf(net, rate);
      taxes += tax;
      line.tributos = [
        {
          id: '01',
          nombre: 'IVA',
          esImpuesto: true,
          valorImporte: money(tax),
          valorBase: money(net),
          porcentaje: Number(rate),
        },
      ];
      const acc = byRate.get(rate) ?? { base: 0, tax: 0 };
      byRate.set(rate, { base: acc.base + net, tax: acc.tax + tax });
    }
    return line;
  });
  return {
    documento: {
      prefijo: 'POS',
      numeroDocumento: String(number),
      tipoDocumento: '20',
      tipoOperacion: '10',
      fechaEmision: '2026-11-21',
      horaEmision: '14:32:10',
      moneda: 'COP',
      formaPago: [{ tipoPago: '1', codigoMedio: '10' }],
      cajaVenta: {
        placaCaja: 'CAJA-01',
        ubicacionCaja: 'Tienda Centro',
        cajero: 'Luis Rojas',
        codigoVenta: `T-${number}`,
      },
    },
    ...(number % 2 === 1 && lines.length > 1
      ? {
          adquiriente: {
            identificacion: '1020304050',
            tipoIdentificacion: '13',
            razonSocial: 'José Muñoz Peña',
            correo: 'jose.munoz@correo.example',
            tipoPersona: '2',
          },
        }
      : {}),
    totales: {
      valorBruto: money(gross),
      valorCargos: 0,
      valorDescuentos: 0,
      valorTotalSinImpuestos: money(gross),
      valorTotalConImpuestos: money(gross + taxes),
      valorNeto: money(gross + taxes),
    },
    detalles,
    ...(byRate.size > 0
      ? {
          tributos: [
            {
              id: '01',
              nombre: 'IVA',
              esImpuesto: true,
              valorImporteTotal: money(taxes),
              detalles: [...byRate].map(([rate, a]) => ({
                valorImporte: money(a.tax),
                valorBase: money(a.base),
                porcentaje: Number(rate),
              })),
            },
          ],
        }
      : {}),
  };
}
