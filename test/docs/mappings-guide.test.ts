/**
 * docs/mappings.md is the guide a user writes a mapping from, so what it shows must be what the code does:
 * - every ```yaml block marked `<!-- mapping: NAME -->` loads with the real mapping loader, and every block
 *   that looks like a whole mapping (top-level `name:`, `kinds:`, `document:`) carries such a mark;
 * - every ```csv block marked `<!-- export: NAME -->` is read by the real CSV reader with the mapping of the
 *   same name, and the figures the guide states for it come out (computed by hand in the comments here);
 * - the reference lists every key, condition, conversion, derivation, input, operator, function and error
 *   code the code accepts or emits, each exactly once, and nothing else.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ERRORS } from '../../src/errors.js';
import type { DocumentKind } from '../../src/kinds/index.js';
import { validateDocument } from '../../src/kinds/validate-document.js';
import { DERIVATION_NAMES } from '../../src/map/derive/registry.js';
import { EXPRESSION_OPERATORS, FUNCTIONS } from '../../src/map/expr/parse-expression.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import {
  conversionSchema,
  mappingFileSchema,
  valueSpecSchema,
} from '../../src/map/mapping-schema.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { CONDITION_KEYS } from '../../src/map/row-condition.js';
import type { CsvSourceDocument } from '../../src/read/csv-source.js';
import { readAll, tempFile } from '../map/helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const GUIDE = readFileSync(join(ROOT, 'docs/mappings.md'), 'utf8');

interface Block {
  lang: string;
  text: string;
  mark?: { what: 'mapping' | 'export'; name: string };
}

/** The fenced blocks of the guide, each with the `<!-- mapping|export: NAME -->` mark on the line above it. */
function blocks(md: string): Block[] {
  const out: Block[] = [];
  const re = /(?:<!-- (mapping|export): ([\w-]+) -->\n)?```(\w*)\n([\s\S]*?)\n```/g;
  for (const m of md.matchAll(re)) {
    out.push({
      lang: m[3],
      text: `${m[4]}\n`,
      ...(m[1] ? { mark: { what: m[1] as 'mapping' | 'export', name: m[2] } } : {}),
    });
  }
  return out;
}

const BLOCKS = blocks(GUIDE);
const marked = (what: 'mapping' | 'export') =>
  new Map(BLOCKS.filter((b) => b.mark?.what === what).map((b) => [b.mark!.name, b.text]));
const MAPPINGS = marked('mapping');
const EXPORTS = marked('export');

async function guideMapping(
  name: string,
  edit: (yaml: string) => string = (y) => y,
): Promise<Mapping> {
  const yaml = MAPPINGS.get(name);
  if (yaml === undefined) throw new Error(`no mapping "${name}" in the guide`);
  return loadMapping(await tempFile(`${name}.yaml`, edit(yaml)));
}

async function guideExport(
  name: string,
  m: Mapping,
  kind: DocumentKind,
): Promise<CsvSourceDocument[]> {
  const csv = EXPORTS.get(name);
  if (csv === undefined) throw new Error(`no export "${name}" in the guide`);
  return (await readAll(await tempFile(`${name}.csv`, csv.replaceAll('\n', '\r\n')), m, kind)).docs;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const requestOf = (d: CsvSourceDocument): Json => {
  expect(d.problems).toEqual([]);
  return d.request;
};

/** The guide states the figure in its text (as a reader sees it: thousands with commas). */
function stated(figure: string): void {
  expect(GUIDE).toContain(figure);
}

describe('the mappings guide: its examples load and give the figures it states', () => {
  it('marks every whole mapping, and every marked mapping loads', async () => {
    const whole = BLOCKS.filter(
      (b) =>
        b.lang === 'yaml' &&
        /^name:/m.test(b.text) &&
        /^kinds:/m.test(b.text) &&
        /^document:/m.test(b.text),
    );
    expect(whole.length).toBeGreaterThanOrEqual(4);
    for (const b of whole) expect(b.mark?.what, b.text.slice(0, 80)).toBe('mapping');
    expect([...MAPPINGS.keys()].sort()).toEqual(['discount', 'first', 'one-to-many', 'pos']);
    for (const name of MAPPINGS.keys())
      await expect(guideMapping(name)).resolves.toMatchObject({ name: expect.any(String) });
    // the snippets between them are YAML too, whole or not
    for (const b of BLOCKS.filter((x) => x.lang === 'yaml'))
      expect(() => parseYaml(b.text), b.text.slice(0, 80)).not.toThrow();
    // every marked export has its mapping
    for (const name of EXPORTS.keys()) expect(MAPPINGS.has(name), name).toBe(true);
  });

  it('section 1: two invoices, 164,710.00 and 14,875.00', async () => {
    const docs = await guideExport('first', await guideMapping('first'), 'invoice');
    expect(docs).toHaveLength(2);
    const [a, b] = docs.map(requestOf);
    // FV101: 10 × 12,500.00 = 125,000.00, VAT 19 % = 23,750.00; 4 × 3,800.00 = 15,200.00, VAT 5 % = 760.00
    //        gross 125,000.00 + 15,200.00 = 140,200.00; VAT 24,510.00; payable 164,710.00
    expect(a).toMatchObject({
      SeriePrefix: 'FV',
      SerieNumber: '101',
      IssueDate: '2026-11-18T00:00:00',
      CustomerParty: { Identification: { DocumentNumber: '800197268', DocumentType: '31' } },
    });
    expect(a.Lines).toHaveLength(2);
    expect(a.Lines[0]).toMatchObject({
      Quantity: '10',
      UnitPrice: '12500.00',
      NetAmount: '125000.00',
      TaxSubTotals: [
        {
          TaxCategory: '01',
          TaxPercentage: '19.00',
          TaxableAmount: '125000.00',
          TaxAmount: '23750.00',
        },
      ],
    });
    expect(a.Lines[1]).toMatchObject({
      Quantity: '4',
      UnitPrice: '3800.00',
      NetAmount: '15200.00',
      TaxSubTotals: [{ TaxPercentage: '5.00', TaxAmount: '760.00' }],
    });
    expect(a.Total).toMatchObject({ GrossAmount: '140200.00', PayableAmount: '164710.00' });
    // FV102: 1 × 12,500.00 + VAT 19 % 2,375.00 = 14,875.00; CC -> 13 through the lookup
    expect(b).toMatchObject({
      SerieNumber: '102',
      CustomerParty: { Identification: { DocumentNumber: '1020304050', DocumentType: '13' } },
    });
    expect(b.Total.PayableAmount).toBe('14875.00');
    for (const r of [a, b])
      expect(
        validateDocument('invoice', r, { today: '2026-11-18', issuerNit: '900123456' }),
      ).toEqual([]);
    for (const f of ['164,710.00', '140,200.00', '24,510.00', '14,875.00', '23,750.00', '760.00'])
      stated(f);
  });

  it('section 3: receipts 1001 and 1003, 14,490 and 7,140; cancelled 1002 skipped', async () => {
    const docs = await guideExport('pos', await guideMapping('pos'), 'pos');
    expect(docs).toHaveLength(2);
    const [a, b] = docs.map(requestOf);
    // 1001: 2 × 4,500 = 9,000, VAT 19 % 1,710; 3 × 1,200 = 3,600, VAT 5 % 180; 12,600 + 1,890 = 14,490
    expect(a.documento).toMatchObject({
      cajaVenta: { codigoVenta: '1001' },
      formaPago: [{ codigoMedio: '10' }],
    });
    expect(a.detalles).toHaveLength(2);
    expect(a.totales).toMatchObject({ valorBruto: 12600, valorNeto: 14490 });
    // 1003: 6,000 + 19 % 1,140 = 7,140, paid Tarjeta -> 48
    expect(b.documento).toMatchObject({
      cajaVenta: { codigoVenta: '1003' },
      formaPago: [{ codigoMedio: '48' }],
    });
    expect(b.totales).toMatchObject({ valorBruto: 6000, valorNeto: 7140 });
    expect(docs.map((d) => d.source.rows)).toEqual([
      [2, 3, 4],
      [7, 8],
    ]);
    for (const f of ['**14,490**', '**7,140**', '1,710', '1,890']) stated(f);
  });

  it('section 4: the one-to-many report: 206,710.00 over rows 6-8 with fillDown, refused whole without it', async () => {
    const docs = await guideExport('one-to-many', await guideMapping('one-to-many'), 'invoice');
    expect(docs).toHaveLength(2);
    const [a, b] = docs.map(requestOf);
    // 125,000.00 + 15,200.00 + 42,000.00 = 182,200.00; VAT 23,750.00 + 760.00 + 0.00 = 24,510.00; 206,710.00
    expect(a).toMatchObject({
      SerieNumber: '990000801',
      CustomerParty: { Name: 'Distribuidora Andina S.A.S.' },
    });
    expect(a.Lines).toHaveLength(3);
    expect(a.Total).toMatchObject({ GrossAmount: '182200.00', PayableAmount: '206710.00' });
    expect(docs[0].source.rows).toEqual([6, 7, 8]);
    // 12,500.00 + 2,375.00 = 14,875.00; with 206,710.00: the footer's 221,585.00
    expect(b.Total.PayableAmount).toBe('14875.00');
    for (const r of [a, b])
      expect(
        validateDocument('invoice', r, { today: '2026-11-20', issuerNit: '900123456' }),
      ).toEqual([]);
    for (const f of ['182,200.00', '24,510.00', '**206,710.00**', '**14,875.00**']) stated(f);

    const without = await guideExport(
      'one-to-many',
      await guideMapping('one-to-many', (y) => y.replace(/^ {2}fillDown:.*\n/m, '')),
      'invoice',
    );
    expect(without).toHaveLength(2);
    expect(without[0].request).toBeUndefined();
    // blamed on the document's rows; the message names the keyless ones
    expect(without[0].problems.map((p) => [p.code, p.rows])).toEqual([
      ['EDOC_MAP_ROW_WITHOUT_KEY', [6, 7, 8]],
    ]);
    expect(without[0].problems[0].message).toContain(
      'Rows 7, 8 carry line values but no document key (Comprobante + Consecutivo)',
    );
    stated('Rows 7, 8 carry line values but no document key (Comprobante + Consecutivo);');
    expect(without[1].problems).toEqual([]);
  });

  it("section 6: the discounted invoice: 142,800.00, the export's total; refused at 154,700.00 without the discount", async () => {
    const docs = await guideExport('discount', await guideMapping('discount'), 'invoice');
    expect(docs).toHaveLength(1);
    const r = requestOf(docs[0]);
    // line 1: 2 × 50,000.00 = 100,000.00 − 10,000.00 = 90,000.00 (unit 45,000.00), VAT 19 % 17,100.00
    // line 2: 30,000.00, VAT 5,700.00; payable 120,000.00 + 22,800.00 = 142,800.00
    expect(r.Lines[0]).toMatchObject({
      GrossAmount: '100000.00',
      NetAmount: '90000.00',
      UnitPrice: '45000.00',
      TaxSubTotals: [{ TaxAmount: '17100.00' }],
    });
    expect(r.Lines[1]).toMatchObject({
      NetAmount: '30000.00',
      TaxSubTotals: [{ TaxAmount: '5700.00' }],
    });
    expect(r.Total.PayableAmount).toBe('142800.00');
    expect(validateDocument('invoice', r, { today: '2026-11-18', issuerNit: '900123456' })).toEqual(
      [],
    );
    for (const f of ['**142,800.00**', '90,000.00', '45,000.00', '17,100.00', '5,700.00'])
      stated(f);

    // without the discount: 130,000.00 + 24,700.00 = 154,700.00 against the stated 142,800.00
    const ignored = await guideMapping('discount', (y) => y.replace(/^ {6}discount:.*\n/m, ''));
    const [refused] = await guideExport('discount', ignored, 'invoice');
    expect(refused.request).toBeUndefined();
    expect(refused.problems).toHaveLength(1);
    expect(refused.problems[0]).toMatchObject({
      code: 'EDOC_MAP_TOTAL_MISMATCH',
      column: 'Total factura',
      rows: [2, 3],
    });
    // the message the guide quotes is the one the code writes
    stated(refused.problems[0].message);
  });
});

// --- the reference: every key and name the code accepts, once --------------------------------------------

/* eslint-disable @typescript-eslint/no-explicit-any */
function unwrap(s: any): any {
  let x = s;
  while (['optional', 'default', 'nullable', 'prefault'].includes(x._zod.def.type))
    x = x._zod.def.innerType;
  return x;
}
/** The object schemas a schema may be (through unions and arrays), with the path suffix an array adds. */
function objectsOf(s: any, path: string): [any, string][] {
  const x = unwrap(s);
  const def = x._zod.def;
  if (def.type === 'object') return [[x, path]];
  if (def.type === 'array') return objectsOf(def.element, `${path}[]`);
  if (def.type === 'union') return def.options.flatMap((o: any) => objectsOf(o, path));
  return [];
}
/** Dotted paths of every key of an object schema: a key that may only be an object is listed by its keys. */
function keyPaths(schema: any, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(unwrap(schema)._zod.def.shape)) {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    const objects = objectsOf(v, path);
    if (!(unwrap(v)._zod.def.type === 'object')) out.push(path);
    for (const [o, p] of objects) out.push(...keyPaths(o, p));
  }
  // `derive: { name }` alone and `derive: [{ name }]` are one key, listed in its list form
  const all = new Set(out);
  return [...all].filter((p) => {
    const listForm = p.replace(/^([^.[]+)\./, '$1[].');
    return listForm === p || !all.has(listForm);
  });
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Line inputs the derivations read (`line.inputs.NAME`), and `taxNN` for the other taxes. */
function derivationInputs(): string[] {
  const dir = join(ROOT, 'src/map/derive');
  const names = new Set<string>(['taxNN']);
  for (const f of readdirSync(dir))
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/\binputs\.(\w+)/g))
      names.add(m[1]);
  return [...names];
}

/** The backticked names in the first cell of each table row, per `### ` heading of the guide's Reference. */
function referenceTables(): Map<string, string[]> {
  const start = GUIDE.indexOf('\n## Reference\n');
  expect(start).toBeGreaterThan(0);
  const end = GUIDE.indexOf('\n## ', start + 5);
  const section = GUIDE.slice(start, end < 0 ? undefined : end);
  const out = new Map<string, string[]>();
  let heading = '';
  for (const line of section.split('\n')) {
    if (line.startsWith('### ')) {
      heading = line.slice(4);
      out.set(heading, []);
    } else if (line.startsWith('|') && heading !== '') {
      const first = line.split('|')[1];
      for (const m of first.matchAll(/`([^`]+)`/g)) out.get(heading)!.push(m[1]);
    }
  }
  return out;
}

describe('the mappings guide: its reference lists what the code accepts, each once', () => {
  const tables = referenceTables();
  const expected: [string, string[]][] = [
    ['Mapping file keys', keyPaths(mappingFileSchema)],
    ['Value keys', keyPaths(valueSpecSchema)],
    ['Field-tree directives', ['$when', '$kinds']],
    ['Conditions', [...CONDITION_KEYS]],
    ['Conversions (`as`)', [...conversionSchema.options]],
    ['Derivations (`derive`)', [...DERIVATION_NAMES]],
    ['Derivation inputs', derivationInputs()],
    ['Expressions: operators and functions', [...EXPRESSION_OPERATORS, ...Object.keys(FUNCTIONS)]],
    [
      'Error codes',
      [
        ...Object.keys(ERRORS).filter((c) => c.startsWith('EDOC_MAP')),
        'EDOC_VALIDATE_WRONG_FOLDER',
        'EDOC_VALIDATE_KIND',
        'EDOC_VALIDATE_CHECK_DIGIT',
      ],
    ],
  ];

  it('has exactly these reference tables', () => {
    expect([...tables.keys()]).toEqual(expected.map(([h]) => h));
  });

  it.each(expected)('%s: every name once, nothing else', (heading, names) => {
    const listed = tables.get(heading) ?? [];
    expect(names.length).toBeGreaterThan(1);
    expect([...listed].sort()).toEqual([...names].sort());
  });

  it('the schema walk sees the nested keys (a guard on the walk itself)', () => {
    const keys = keyPaths(mappingFileSchema);
    for (const k of [
      'format.delimiter',
      'framing.fillDown',
      'rows.skip',
      'derive[].inputs',
      'kindCheck[].values',
      'reconcile.document.tax',
      'guards.negative',
    ]) {
      expect(keys).toContain(k);
    }
    expect(keyPaths(valueSpecSchema)).toEqual(
      expect.arrayContaining(['capture', 'capture.pattern', 'split.rest']),
    );
  });
});
