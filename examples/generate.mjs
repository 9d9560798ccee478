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

const SALES = ['prefijo', 'numero', 'fecha', 'hora', 'vence', 'moneda', 'tipo_operacion', 'cliente_tipo_doc', 'cliente_doc',
  'cliente_nombre', 'cliente_correo', 'cliente_tipo_persona', 'medio_pago', 'forma_pago', 'linea', 'codigo', 'descripcion',
  'cantidad', 'unidad', 'precio_unitario', 'iva', 'motivo', 'ref_documento', 'ref_fecha', 'ref_cufe'];

const andina = ['31', '800.197.268-4', 'Distribuidora Andina S.A.S.', 'compras@andina.example', '1'];
const jose = ['CC', '1.020.304.050', 'José Muñoz Peña', 'jose.munoz@correo.example', '2'];
const cafe = ['31', '900.555.666-1', 'Cafetería El Águila Ltda.', '', '1'];

const inv = (numero, fecha, hora, vence, customer, pay, line) =>
  ['SETP', numero, fecha, hora, vence, 'COP', '10', ...customer, ...pay, ...line, '', '', '', ''];

write('invoices.csv', SALES, [
  inv('990000101', '18/11/2026', '09:15:00', '18/12/2026', andina, ['42', '2'], ['1', '7702001', 'Café molido premium 500 g', '10', '94', '12.500,00', '19']),
  inv('990000101', '18/11/2026', '09:15:00', '18/12/2026', andina, ['42', '2'], ['2', '7702002', 'Arroz blanco 5 kg; bulto x 4', '4', '94', '21.900,00', '5']),
  inv('990000102', '19/11/2026', '14:02:30', '', jose, ['10', '1'], ['1', '', 'Cuaderno "Norma" 100 hojas', '3', '94', '3.333,33', '19']),
  inv('990000101', '18/11/2026', '09:15:00', '18/12/2026', andina, ['42', '2'], ['3', '9789580000', 'Libro escolar Matemáticas 5°', '2', '94', '45.000,00', '0']),
  inv('990000101', '18/11/2026', '09:15:00', '18/12/2026', andina, ['42', '2'], ['4', '', 'Servicio de transporte\r\nBogotá – Medellín', '1', '94', '1.234.567,50', '']),
  inv('990000102', '19/11/2026', '14:02:30', '', jose, ['10', '1'], ['2', '', 'Resma papel carta', '1,5', '94', '10.000', '19']),
  inv('990000103', '20/11/2026', '', '', cafe, ['48', '1'], ['', '', 'Arriendo local comercial noviembre', '1', '94', '2.500.000,00', '']),
  inv('990000103', '20/11/2026', '', '', cafe, ['48', '1'], ['', '', 'Cuota de administración', '1', '94', '350.000,00', '']),
]);

const note = (prefijo, numero, fecha, customer, line, motivo, ref, refFecha) =>
  [prefijo, numero, fecha, '10:00:00', '', 'COP', '10', ...customer, '10', '1', ...line, motivo, ref, refFecha, ''];

write('credit-notes.csv', SALES, [
  note('NC', '101', '21/11/2026', andina, ['1', '7702001', 'Café molido premium 500 g (devolución)', '2', '94', '12.500,00', '19'], 'Devolución parcial de mercancía', 'SETP990000101', '18/11/2026'),
  note('NC', '101', '21/11/2026', andina, ['2', '9789580000', 'Libro escolar Matemáticas 5° (devolución)', '1', '94', '45.000,00', '0'], 'Devolución parcial de mercancía', 'SETP990000101', '18/11/2026'),
]);

write('debit-notes.csv', SALES, [
  note('ND', '101', '21/11/2026', jose, ['1', '', 'Intereses de mora noviembre', '1', '94', '1.250,50', '19'], 'Intereses por pago tardío', 'SETP990000102', '19/11/2026'),
  note('ND', '101', '21/11/2026', jose, ['2', '', 'Gastos de cobranza', '1', '94', '8.000,00', ''], 'Intereses por pago tardío', 'SETP990000102', '19/11/2026'),
]);

const SUPPORT = ['prefijo', 'numero', 'documento', 'fecha', 'hora', 'moneda', 'proveedor_tipo_doc', 'proveedor_doc', 'proveedor_nombre',
  'proveedor_correo', 'proveedor_tipo_persona', 'proveedor_departamento', 'proveedor_ciudad', 'proveedor_direccion', 'proveedor_pais',
  'linea', 'codigo', 'descripcion', 'cantidad', 'unidad', 'precio_unitario', 'tipo_operacion', 'fecha_inicio', 'iva', 'retefuente', 'reteiva'];

const campesino = ['CC', '79.456.123', 'Pedro Antonio Gómez', 'pedro.gomez@correo.example', '2', '25', '25754', 'Vereda El Rosal, finca La Esperanza', 'CO'];
const disenadora = ['CC', '52.987.654', 'María Fernanda Ríos', '', '2', '11', '11001', 'Cra. 7 # 45-10, apto 301', 'CO'];

write('support-documents.csv', SUPPORT, [
  ['DS', '101', '', '20/11/2026', '08:30:00', 'COP', ...campesino, '1', '', 'Papa pastusa, bulto 50 kg', '20', '94', '95.000,00', '1', '', '', '1,5', ''],
  ['DS', '101', '', '20/11/2026', '08:30:00', 'COP', ...campesino, '2', '', 'Transporte de la cosecha', '1', '94', '180.000,00', '1', '', '19', '4', '15'],
  ['', '', 'ERP-CXP-5521', '20/11/2026', '16:45:00', 'COP', ...disenadora, '1', '', 'Diseño de catálogo de productos', '1', '94', '2.800.000,00', '1', '', '19', '11', '15'],
  ['', '', 'ERP-CXP-5521', '20/11/2026', '16:45:00', 'COP', ...disenadora, '2', '', 'Fotografía de producto', '12', '94', '85.000,00', '1', '', '0', '11', ''],
]);

const PAYROLL = ['prefijo', 'consecutivo', 'tipo_nota', 'tipo_doc', 'documento', 'primer_apellido', 'segundo_apellido', 'primer_nombre',
  'otros_nombres', 'tipo_trabajador', 'subtipo_trabajador', 'tipo_contrato', 'salario_integral', 'sueldo', 'codigo_trabajador', 'correo',
  'fecha_ingreso', 'fecha_inicio', 'fecha_fin', 'fecha_pago', 'fecha_generacion', 'dias_trabajados', 'sueldo_trabajado',
  'auxilio_transporte', 'horas_extra_diurnas', 'valor_horas_extra_diurnas', 'bonificacion_salarial', 'bonificacion_no_salarial',
  'salud_pct', 'salud', 'pension_pct', 'pension', 'retencion_fuente'];

write('payroll.csv', PAYROLL, [
  ['NOM', '101', '', 'CC', '1.032.456.789', 'Rodríguez', 'Peña', 'Ana', 'Lucía', '01', '00', '1', 'N', '2.000.000,00', 'E-001', 'ana.rodriguez@correo.example',
    '01/02/2024', '01/10/2026', '31/10/2026', '31/10/2026', '31/10/2026', '30', '2.000.000,00', '200.000,00', '4', '41.666,67', '', '100.000,00', '4', '80.000,00', '4', '80.000,00', ''],
  ['NOM', '102', '', 'CC', '80.123.456', 'Muñoz', '', 'Carlos', 'Andrés', '01', '00', '2', 'N', '6.500.000,00', 'E-002', '',
    '15/06/2023', '01/10/2026', '31/10/2026', '31/10/2026', '31/10/2026', '30', '6.500.000,00', '', '', '', '350.000,00', '', '4', '274.000,00', '4', '274.000,00', '412.350,00'],
]);
