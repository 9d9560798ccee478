import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { DocumentKind } from '../../src/kinds/index.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openCsvSource } from '../../src/read/csv-source.js';
import type { CsvSourceDocument, OpenedCsvSource } from '../../src/read/csv-source.js';

export const COMPANY = { alias: 'main', nit: '900123456' };
export const MAPPINGS = join(import.meta.dirname, '../../config/mappings');
export const EXAMPLES = join(import.meta.dirname, '../../examples');
export const FIXTURES = join(import.meta.dirname, '../fixtures/csv');

const cache = new Map<string, Promise<Mapping>>();
export function mapping(
  name: 'sales' | 'support-document' | 'payroll' | 'support-adjustment' | 'pos',
): Promise<Mapping> {
  let m = cache.get(name);
  if (m === undefined) {
    m = loadMapping(join(MAPPINGS, `${name}.csv.yaml`));
    cache.set(name, m);
  }
  return m;
}

export async function tempFile(
  name: string,
  content: string | Buffer,
  encoding: 'utf-8' | 'windows-1252' = 'utf-8',
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'edoc-map-'));
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? iconv.encode(content, encoding) : content);
  return file;
}

export async function readAll(
  file: string,
  m: Mapping,
  kind: DocumentKind,
): Promise<{ source: OpenedCsvSource; docs: CsvSourceDocument[] }> {
  const source = await openCsvSource(file, m, { kind, company: COMPANY });
  const docs: CsvSourceDocument[] = [];
  for await (const d of source.documents) docs.push(d);
  return { source, docs };
}

export const SALES_COLUMNS = [
  'prefijo',
  'numero',
  'fecha',
  'hora',
  'cliente_tipo_doc',
  'cliente_doc',
  'cliente_nombre',
  'linea',
  'descripcion',
  'cantidad',
  'precio_unitario',
  'iva',
] as const;
export type SalesRow = Partial<
  Record<(typeof SALES_COLUMNS)[number] | 'motivo' | 'ref_documento' | 'vence', string>
>;

/** One sales row with sensible defaults; override any cell. */
export function sale(numero: string, linea: string, cells: SalesRow = {}): Record<string, string> {
  return {
    prefijo: 'SETP',
    numero,
    fecha: '18/11/2026',
    hora: '09:15:00',
    cliente_tipo_doc: '31',
    cliente_doc: '800.197.268-4',
    cliente_nombre: 'Distribuidora Andina S.A.S.',
    linea,
    descripcion: `Artículo ${linea}`,
    cantidad: '1',
    precio_unitario: '1.000,00',
    iva: '19',
    ...cells,
  } as Record<string, string>;
}

export function toCsv(
  rows: Record<string, string>[],
  options: { delimiter?: string; newline?: string; columns?: string[] } = {},
): string {
  const d = options.delimiter ?? ';';
  const nl = options.newline ?? '\r\n';
  const columns = options.columns ?? Object.keys(rows[0]);
  const quote = (c: string): string =>
    c.includes(d) || c.includes('"') || c.includes('\n') || c.includes('\r')
      ? `"${c.replace(/"/g, '""')}"`
      : c;
  return (
    [columns.join(d), ...rows.map((r) => columns.map((c) => quote(r[c] ?? '')).join(d))].join(nl) +
    nl
  );
}
