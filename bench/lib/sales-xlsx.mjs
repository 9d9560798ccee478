// The .xlsx twin of a sales CSV (lib/sales-csv.mjs): the same rows in the same order, typed as Excel
// writes them — numbers (numero, linea, cantidad, precio_unitario, iva) as numeric cells, fecha / vence
// as serial dates with a date format, hora as a time, every other cell a shared string — in a zip
// package with the parts Excel writes (content types, workbook, relationships, styles, shared strings,
// one worksheet). Built in memory: this is the bench's generator, not the code under measure.
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const { parse } = require('csv-parse');
const iconv = require('iconv-lite');

const NUMERIC = new Set(['numero', 'linea', 'cantidad', 'precio_unitario', 'iva']);
const DATES = new Set(['fecha', 'vence']);
const DAY_MS = 86_400_000;

function esc(s) {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function colName(i) {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26))
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** `18/11/2026` -> Excel serial (days since 1899-12-30). */
function serial(ddmmyyyy) {
  const [d, m, y] = ddmmyyyy.split('/').map(Number);
  return (Date.UTC(y, m - 1, d) - Date.UTC(1899, 11, 30)) / DAY_MS;
}

/** `1.234,51` -> 1234.51 */
function number(text) {
  return text === '' ? undefined : Number(text.replace(/\./g, '').replace(',', '.'));
}

/** A zip (deflate) of [name, Buffer] entries with a central directory. */
function zip(entries) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const compressed = zlib.deflateRawSync(data, { level: 6 });
    const crc = zlib.crc32(data);
    const nameBuf = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt32LE(crc >>> 0, 16);
    dir.writeUInt32LE(compressed.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(nameBuf.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, compressed);
    central.push(dir, nameBuf);
    offset += local.length + nameBuf.length + compressed.length;
  }
  const centralBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralBuf, end]);
}

/** Writes `xlsxFile` with the rows of the Windows-1252 `;` CSV `csvFile`. */
export async function csvToXlsx(csvFile, xlsxFile) {
  const parser = createReadStream(csvFile)
    .pipe(iconv.decodeStream('windows-1252'))
    .pipe(parse({ delimiter: ';', relax_column_count: true }));
  const strings = new Map();
  const sst = [];
  const shared = (s) => {
    let i = strings.get(s);
    if (i === undefined) {
      i = sst.length;
      strings.set(s, i);
      sst.push(s);
    }
    return i;
  };
  const sheet = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>',
  ];
  let header;
  let r = 0;
  for await (const record of parser) {
    r += 1;
    header ??= record;
    const cells = record.map((value, c) => {
      const ref = `${colName(c)}${r}`;
      const name = r === 1 ? '' : header[c];
      if (value === '') return '';
      if (NUMERIC.has(name)) return `<c r="${ref}"><v>${number(value)}</v></c>`;
      if (DATES.has(name)) return `<c r="${ref}" s="1"><v>${serial(value)}</v></c>`;
      if (name === 'hora') {
        const [h, m, s] = value.split(':').map(Number);
        return `<c r="${ref}" s="2"><v>${(h * 3600 + m * 60 + s) / 86400}</v></c>`;
      }
      return `<c r="${ref}" t="s"><v>${shared(value)}</v></c>`;
    });
    sheet.push(`<row r="${r}">${cells.join('')}</row>`);
  }
  sheet.push('</sheetData></worksheet>');
  const sstXml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${sst.length}" uniqueCount="${sst.length}">${sst.map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`).join('')}</sst>`;
  const NS = 'http://schemas.openxmlformats.org';
  await writeFile(
    xlsxFile,
    zip([
      [
        '[Content_Types].xml',
        Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${NS}/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
        ),
      ],
      [
        '_rels/.rels',
        Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${NS}/package/2006/relationships"><Relationship Id="rId1" Type="${NS}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
        ),
      ],
      [
        'xl/workbook.xml',
        Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${NS}/spreadsheetml/2006/main" xmlns:r="${NS}/officeDocument/2006/relationships"><sheets><sheet name="Ventas" sheetId="1" r:id="rId1"/></sheets></workbook>`,
        ),
      ],
      [
        'xl/_rels/workbook.xml.rels',
        Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${NS}/package/2006/relationships"><Relationship Id="rId1" Type="${NS}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${NS}/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId3" Type="${NS}/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
        ),
      ],
      [
        'xl/styles.xml',
        Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="${NS}/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="21"/></cellXfs></styleSheet>`,
        ),
      ],
      ['xl/sharedStrings.xml', Buffer.from(sstXml, 'utf8')],
      ['xl/worksheets/sheet1.xml', Buffer.from(sheet.join(''), 'utf8')],
    ]),
  );
  return { rows: r - 1, sharedStrings: sst.length };
}
