/**
 * An export in two files read as one (read/set-source.ts, map/parts.ts): the join, its refusals by
 * file, row and column, the joined column names, the set's content hash, and the mapping's `parts`
 * rules. Real files in a temp folder, the shipped SAP Business One preset where it fits.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEdocError } from '../../src/errors.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { partOf, setFilesOfRow, setName } from '../../src/map/parts.js';
import { openSetSource } from '../../src/read/set-source.js';
import { COMPANY } from '../map/helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const PRESET = join(ROOT, 'config/mappings/erp/sap-b1-invoice.yaml');

async function setFiles(header: string, lines: string): Promise<{ header: string; lines: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'edoc-set-'));
  const files = { header: join(dir, 'Documents.csv'), lines: join(dir, 'Document_Lines.csv') };
  await writeFile(files.header, header);
  await writeFile(files.lines, lines);
  return files;
}

async function read(
  files: { header: string; lines: string },
  mappingFile = PRESET,
): Promise<{ docs: { rows: number[]; request: unknown; problems: string[] }[]; sha256: string }> {
  const mapping = await loadMapping(mappingFile);
  const hash = createHash('sha256');
  const opened = await openSetSource(files, mapping, { kind: 'invoice', company: COMPANY, hash });
  const docs = [];
  for await (const d of opened.documents)
    docs.push({
      rows: d.source.rows ?? [],
      request: d.request,
      problems: d.problems.map((p) => p.code),
    });
  return { docs, sha256: hash.digest('hex') };
}

async function refusal(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    if (isEdocError(err)) return { code: err.code, message: err.message, ...err.context };
    throw err;
  }
  throw new Error('not refused');
}

const HEADER = [
  'RecordKey,DocDate,CardName,FederalTaxID,DiscountPercent,FolioPrefixString,FolioNumber',
  'RecordKey,DocDate,CardName,LicTradNum,DiscPrcnt,FolioPref,FolioNum',
  '1,20261118,Cliente Uno,800197268-4,0,SETP,990000901',
  '2,20261118,Cliente Dos,1020304050,10,SETP,990000902',
  '',
].join('\n');
const LINES = [
  'ParentKey,LineNum,ItemCode,ItemDescription,Quantity,UnitPrice,DiscountPercent,TaxCode',
  'DocNum,LineNum,ItemCode,Dscription,Quantity,PriceBefDi,DiscPrcnt,TaxCode',
  '2,0,A1,Producto A,2,1000,50,IVA19',
  '1,0,A1,Producto A,1,1000,0,IVA19',
  '1,1,B2,Producto B,3,200,0,IVAEX',
  '',
].join('\n');

describe('an export in two files, read as one', () => {
  it('joins each line to its header row, wherever it stands; the hash is over the parts’ hashes, header first', async () => {
    const files = await setFiles(HEADER, LINES);
    const { docs, sha256 } = await read(files);
    const payable = (r: unknown): string =>
      (r as { Total: { PayableAmount: string } }).Total.PayableAmount;
    // in order of first appearance in the lines file; rows are the lines file's
    expect(docs.map((d) => [d.rows, d.problems, payable(d.request)])).toEqual([
      // document 2: 2 × 1,000.00 = 2,000.00 − 50 % (line) = 1,000.00 − 10 % (document) = 900.00
      //   (discount 2,000.00 × (1 − 0.5 × 0.9) = 1,100.00); IVA 19 % = 171.00 → 1,071.00
      [[3], [], '1071.00'],
      // document 1: 1,000.00 + 19 % = 1,190.00; 3 × 200.00 = 600.00 exempt → 1,790.00
      [[4, 5], [], '1790.00'],
    ]);
    const part = async (f: string): Promise<string> =>
      createHash('sha256')
        .update(await readFile(f))
        .digest('hex');
    const expected = createHash('sha256')
      .update(`header ${await part(files.header)}\nlines ${await part(files.lines)}\n`)
      .digest('hex');
    expect(sha256).toBe(expected);
  });

  it('refuses a line whose key has no header row, naming file, row and column', async () => {
    const files = await setFiles(HEADER, `${LINES}3,0,A1,Producto A,1,1000,0,IVA19\n`);
    expect(await refusal(read(files))).toMatchObject({
      code: 'EDOC_READ_SET_JOIN',
      file: 'Document_Lines.csv',
      row: 6,
      column: 'ParentKey',
      message:
        'Document_Lines.csv row 6: ParentKey 3 has no header row in Documents.csv (column RecordKey)',
    });
  });

  it('refuses a header row no line joins, and a key repeated or blank in the header file', async () => {
    const noLines = await setFiles(`${HEADER}3,20261118,Cliente Tres,1,0,SETP,990000903\n`, LINES);
    expect(await refusal(read(noLines))).toMatchObject({
      code: 'EDOC_READ_SET_JOIN',
      file: 'Documents.csv',
      row: 5,
      column: 'RecordKey',
      message:
        'Documents.csv row 5: RecordKey 3 has no lines in Document_Lines.csv (column ParentKey)',
    });
    const repeated = await setFiles(`${HEADER}1,20261118,Otro,1,0,SETP,990000904\n`, LINES);
    expect(await refusal(read(repeated))).toMatchObject({
      code: 'EDOC_READ_SET_JOIN',
      row: 5,
      column: 'RecordKey',
      message: expect.stringContaining('RecordKey 1 is the key of row 3 already') as unknown,
    });
    const blank = await setFiles(`${HEADER},20261118,Otro,1,0,SETP,990000905\n`, LINES);
    expect(await refusal(read(blank))).toMatchObject({ code: 'EDOC_READ_SET_JOIN', row: 5 });
  });

  it('refuses a part without its key column, and a bare name both parts carry', async () => {
    const noKey = await setFiles(HEADER, LINES.replace('ParentKey,', 'Parent,'));
    expect(await refusal(read(noKey))).toMatchObject({
      code: 'EDOC_MAP_MISSING_COLUMN',
      file: 'Document_Lines.csv',
      column: 'ParentKey',
    });
    // DiscountPercent is in both files: only header.DiscountPercent and lines.DiscountPercent exist
    const dir = await mkdtemp(join(tmpdir(), 'edoc-set-map-'));
    const bare = join(dir, 'bare.yaml');
    await writeFile(
      bare,
      (await readFile(PRESET, 'utf8')).replace('[lines.DiscountPercent]', '[DiscountPercent]'),
    );
    const files = await setFiles(HEADER, LINES);
    expect(await refusal(read(files, bare))).toMatchObject({ code: 'EDOC_MAP_MISSING_COLUMN' });
  });

  it('names a column repeated within the lines file by that file and its place there', async () => {
    // a second UnitPrice in Document_Lines.csv: columns 6 and 9 of that file (not of the joined header)
    const twice = LINES.split('\n')
      .map((l, i) => (l === '' ? l : `${l},${['UnitPrice', '1', '1', '1', '1'][i]}`))
      .join('\n');
    expect(await refusal(read(await setFiles(HEADER, twice)))).toMatchObject({
      code: 'EDOC_MAP_REPEATED_COLUMN',
      column: 'UnitPrice',
      row: 1,
      message: expect.stringContaining(
        'Column "UnitPrice" appears twice in the header of Document_Lines.csv (row 1, columns 6 and 9)',
      ) as unknown,
    });
  });

  it('refuses a part whose key column is named twice', async () => {
    // a second ParentKey (another document's entry): the lines were joined by the first, silently;
    // by the second, line 2,0 would belong to document 1 and 1,1 to document 2
    const twice = LINES.split('\n')
      .map((l, i) => (l === '' ? l : `${l},${['ParentKey', 'DocEntry', '1', '2', '2'][i]}`))
      .join('\n');
    expect(await refusal(read(await setFiles(HEADER, twice)))).toMatchObject({
      code: 'EDOC_MAP_REPEATED_COLUMN',
      file: 'Document_Lines.csv',
      column: 'ParentKey',
      row: 1,
      message: expect.stringContaining(
        'Column "ParentKey" (parts.lines.key) appears twice in the header of Document_Lines.csv (row 1, columns 1 and 9)',
      ) as unknown,
    });
  });
});

describe('the mapping’s parts', () => {
  it('matches names by the {set} rule, ignoring case, and names the set after both files', async () => {
    const { parts } = await loadMapping(PRESET);
    expect(partOf(parts!, 'documents_0042.CSV')).toEqual({ part: 'header', set: '_0042' });
    expect(partOf(parts!, 'Document_Lines.csv')).toEqual({ part: 'lines', set: '' });
    expect(partOf(parts!, 'Documents.xlsx')).toBeUndefined();
    expect(setName('/in/Documents_7.csv', '/in/Document_Lines_7.csv')).toBe(
      'Documents_7+Document_Lines_7.csv',
    );
    expect(
      setFilesOfRow({ path: '/in/Documents_7.csv', name: 'Documents_7+Document_Lines_7.csv' }),
    ).toEqual({ header: '/in/Documents_7.csv', lines: '/in/Document_Lines_7.csv' });
    // a single file's row: its name is its path's
    expect(setFilesOfRow({ path: '/in/a+b.csv', name: 'a+b.csv' })).toBeUndefined();
  });

  it.each([
    [
      'framing.headerRow beside parts',
      'key: [RecordKey]',
      'framing: { headerRow: 2 }\nkey: [RecordKey]',
      'framing',
    ],
    [
      '{set} in one name only',
      'file: "Document_Lines{set}.csv"',
      'file: "Document_Lines.csv"',
      'parts',
    ],
    [
      'a spreadsheet part',
      'file: "Documents{set}.csv"',
      'file: "Documents{set}.xlsx"',
      'parts.header.file',
    ],
    [
      '{set} twice',
      'file: "Documents{set}.csv"',
      'file: "Documents{set}{set}.csv"',
      'parts.header.file',
    ],
  ])('refuses %s', async (_what, from, to, field) => {
    const dir = await mkdtemp(join(tmpdir(), 'edoc-set-map-'));
    const file = join(dir, 'm.yaml');
    const text = await readFile(PRESET, 'utf8');
    expect(text).toContain(from);
    await writeFile(file, text.replace(from, to));
    expect(await refusal(loadMapping(file))).toMatchObject({ code: 'EDOC_MAPPING_INVALID', field });
  });
});

describe('an export in two files in the other number convention than its mapping', () => {
  it('a decimal comma in either file refuses the whole set, naming the lines file, its row and the column', async () => {
    // the preset reads decimal "." without grouping: "200,5" (quoted: the files are comma-separated) is a
    // number only with a decimal comma
    const lines = await refusal(
      read(await setFiles(HEADER, LINES.replace(',3,200,0,', ',3,"200,5",0,'))),
    );
    expect(lines).toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      file: 'Document_Lines.csv',
      row: 5,
      column: 'UnitPrice',
      value: '200,5',
    });
    expect(lines.message).toMatch(/^Document_Lines\.csv row 5, column "UnitPrice": "200,5"/);
    // the header file's discount of document 2, carried by its line on row 3 of the lines file
    const header = await refusal(
      read(await setFiles(HEADER.replace(',1020304050,10,', ',1020304050,"10,5",'), LINES)),
    );
    expect(header).toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      file: 'Document_Lines.csv',
      row: 3,
      column: 'header.DiscountPercent',
      value: '10,5',
    });
  });
});
