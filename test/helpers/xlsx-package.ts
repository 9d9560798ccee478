/**
 * A minimal .xlsx package for reader tests: the given parts, stored (zip method 0) in a zip with a
 * central directory, plus the content types, package relationships and workbook relationships a
 * worksheet, shared strings and styles need. The XML of each part is the test's own.
 */
import zlib from 'node:zlib';

function zip(entries: [string, Buffer][]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const crc = zlib.crc32(data) >>> 0;
    const nameBuf = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(data.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(nameBuf.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    central.push(dir, nameBuf);
    offset += local.length + nameBuf.length + data.length;
  }
  const dirBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBuf, end]);
}

const NS = 'http://schemas.openxmlformats.org';
const MAIN = `xmlns="${NS}/spreadsheetml/2006/main"`;

export interface XlsxParts {
  /**
   * `<sheetData>…</sheetData>` of each sheet, by sheet name, in tab order; `state` its `<sheet state>`
   * (`hidden`), `after` the XML after its sheetData (`<mergeCells>…`).
   */
  sheets: [string, string, { state?: string; after?: string }?][];
  /** The `<si>` elements of the shared strings. */
  sharedStrings?: string;
  /** `<numFmts>…</numFmts><cellXfs>…</cellXfs>` */
  styles?: string;
  /** Attributes of `<workbookPr>` (`date1904="1"`). */
  workbookPr?: string;
  /** Attributes of `<calcPr>` (`fullCalcOnLoad="1"`); no element when absent. */
  calcPr?: string;
}

export function xlsxPackage(parts: XlsxParts): Buffer {
  const rel = (id: string, type: string, target: string): string =>
    `<Relationship Id="${id}" Type="${NS}/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
  const entries: [string, string][] = [
    [
      '[Content_Types].xml',
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${NS}/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${NS}/package/2006/relationships">${rel('rId1', 'officeDocument', 'xl/workbook.xml')}</Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8"?><workbook ${MAIN} xmlns:r="${NS}/officeDocument/2006/relationships"><workbookPr ${parts.workbookPr ?? ''}/><sheets>${parts.sheets
        .map(
          ([name, , o], i) =>
            `<sheet name="${name}" sheetId="${i + 1}"${o?.state === undefined ? '' : ` state="${o.state}"`} r:id="rIdS${i + 1}"/>`,
        )
        .join(
          '',
        )}</sheets>${parts.calcPr === undefined ? '' : `<calcPr ${parts.calcPr}/>`}</workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${NS}/package/2006/relationships">${parts.sheets
        .map((_, i) => rel(`rIdS${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`))
        .join('')}${rel(
        'rIdT',
        'sharedStrings',
        'sharedStrings.xml',
      )}${rel('rIdY', 'styles', 'styles.xml')}</Relationships>`,
    ],
    [
      'xl/sharedStrings.xml',
      `<?xml version="1.0" encoding="UTF-8"?><sst ${MAIN}>${parts.sharedStrings ?? ''}</sst>`,
    ],
    [
      'xl/styles.xml',
      `<?xml version="1.0" encoding="UTF-8"?><styleSheet ${MAIN}>${parts.styles ?? '<cellXfs><xf numFmtId="0"/></cellXfs>'}</styleSheet>`,
    ],
    ...parts.sheets.map(([, data, o], i): [string, string] => [
      `xl/worksheets/sheet${i + 1}.xml`,
      `<?xml version="1.0" encoding="UTF-8"?><worksheet ${MAIN}><sheetData>${data}</sheetData>${o?.after ?? ''}</worksheet>`,
    ]),
  ];
  return zip(entries.map(([n, t]) => [n, Buffer.from(t, 'utf8')]));
}

/** A cell of `sheetRows`: inline text, the cell's own `<c …>` XML (its `r` filled in), or `[number, style]`. */
export type SheetCell = string | [number, number];

/** `<row>` elements of a sheet from rows of cells, each cell given its reference (`A1`, `B1`…). */
export function sheetRows(rows: SheetCell[][]): string {
  const ref = (r: number, c: number): string => `${String.fromCharCode(65 + c)}${r}`;
  const cell = (c: SheetCell, at: string): string => {
    if (typeof c !== 'string') return `<c r="${at}" s="${c[1]}"><v>${c[0]}</v></c>`;
    return c.startsWith('<')
      ? c.replace('<c ', `<c r="${at}" `)
      : `<c r="${at}" t="inlineStr"><is><t>${c}</t></is></c>`;
  };
  return rows
    .map(
      (cells, i) =>
        `<row r="${i + 1}">${cells.map((c, j) => cell(c, ref(i + 1, j))).join('')}</row>`,
    )
    .join('');
}
