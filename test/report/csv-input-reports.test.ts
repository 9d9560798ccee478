/**
 * The outbox of a delimited ERP export, through the real pipeline short of the network: intakeFile
 * (read → map → validate → ledger) on a real ledger in a temp folder, the documents that reached
 * the sender recorded as accepted (as the sender would), then settleFile (the report stage).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { outboxDir } from '../../src/intake/folders.js';
import { intakeFile } from '../../src/intake/intake.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { settleFile } from '../../src/daemon/file-reports.js';
import { sale, toCsv } from '../map/helpers.js';
import { tempDir } from './helpers.js';

const SALES_MAPPING = path.join(import.meta.dirname, '../../config/mappings/sales.csv.yaml');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface Outbox {
  input: string;
  outbox: string;
  errorsCsv: string | undefined;
  retry: Buffer | undefined;
  result: {
    error?: { code: string; message: string };
    counts: Record<string, number>;
    documents: { index: number; key: string | null; status: string; source: { rows?: number[] } }[];
  };
}

/** Drops `bytes` as inbox/invoice/NAME, takes it in, accepts whatever was due to be sent, settles the file. */
async function throughReports(name: string, bytes: Buffer): Promise<Outbox> {
  const root = tempDir('edoc-csv-reports-');
  const config = await resolveConfig(
    {
      companies: [
        { alias: 'main', id: 1001, nit: '900123456', apiKey: 'demo-key-1001', userId: 7 },
      ],
      paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
      kinds: { invoice: { mapping: SALES_MAPPING } },
    },
    { file: 'edoc-bridge.yaml', cwd: root, env: {} },
  );
  const company = config.companies[0];
  const inbox = path.join(config.paths.inbox, 'invoice');
  const outbox = outboxDir(config, company.alias, 'invoice');
  fs.mkdirSync(inbox, { recursive: true });
  const input = path.join(inbox, name);
  fs.writeFileSync(input, bytes);
  const ledger = Ledger.open(config.paths.state);
  const logger = createLogger({
    file: path.join(config.paths.logs, 'edoc-bridge.log'),
    level: 'silent',
  });
  try {
    const mapping = await loadMapping(config.kinds.invoice.mapping ?? SALES_MAPPING);
    const taken = await intakeFile(
      {
        ledger,
        config,
        logger,
        today: '2026-11-22',
        mapping: async () => mapping,
        onDocuments: () => undefined,
        onFileChanged: () => undefined,
      },
      { path: input, kind: 'invoice', company },
    );
    if (taken.fileId === undefined) throw new Error(`${name} was not taken: ${taken.outcome}`);
    const due = await ledger.claimDue('main', Date.now() + 60_000, 1000);
    await ledger.markSending(due.map((d) => d.id));
    await ledger.recordOutcomes(
      due.map((d) => ({ id: d.id, state: 'accepted', resultCode: '100', httpStatus: 200 })),
    );
    const settled = await settleFile(ledger, taken.fileId, outbox);
    expect(settled.settled).toBe(true);
    const stem = name.replace(/\.[^.]+$/, '');
    const read = (file: string): Buffer | undefined =>
      fs.existsSync(file) ? fs.readFileSync(file) : undefined;
    return {
      input,
      outbox,
      errorsCsv: read(path.join(outbox, `${stem}.errors.csv`))?.toString('utf8'),
      retry: read(path.join(outbox, `${stem}.retry${path.extname(name)}`)),
      result: JSON.parse(
        fs.readFileSync(path.join(outbox, `${stem}.result.json`), 'utf8'),
      ) as Outbox['result'],
    };
  } finally {
    await ledger.close();
    await logger.close();
  }
}

/** Text of errors.csv without its BOM, split at the CRLF that ends each record (no cell below holds a line break). */
function records(errorsCsv: string | undefined): string[] {
  expect(errorsCsv?.startsWith('\uFEFF')).toBe(true);
  const text = (errorsCsv ?? '').slice(1);
  expect(text.endsWith('\r\n')).toBe(true);
  return text.slice(0, -2).split('\r\n');
}

const HEADER_ROW = 'index;key;status;source;code;field;value;message';

describe('NAME.errors.csv of a CSV export with mapping errors (issue 5, build item 4)', () => {
  // One document per error kind, interleaved with two good documents, in Windows-1252.
  const rows = [
    sale('1', '1'), //                                                   row 2   SETP1, good (with row 7)
    sale('2', '1', { fecha: '31/02/2026' }), //                          row 3   unparsable date
    sale('3', '1', { cantidad: 'dos' }), //                              row 4   unparsable number
    sale('4', '1', { cliente_tipo_doc: 'XX' }), //                       row 5   unknown code
    sale('5', '1', { cliente_nombre: 'Peña; Hermanos' }), //             row 6   rows disagree on a header field
    sale('1', '2', { precio_unitario: '1.234.567,50' }), //              row 7
    sale('5', '2', { cliente_nombre: 'Peña Hermanos' }), //              row 8
    sale('6', '1', { iva: '19/5' }), //                                  row 9   two VAT rates in one cell
    sale('7', '1', { iva: '19' }), //                                    row 10  two VAT rates on two rows of line 1
    sale('7', '1', { iva: '5' }), //                                     row 11
    sale('8', '1', { descripcion: 'Café; molido' }), //                  row 12  SETP8, good
  ];
  const text = toCsv(rows);

  it('has one row per problem with index, key, status, source rows, code, field, value and message; the good documents go on', async () => {
    const out = await throughReports('ventas.csv', iconv.encode(text, 'windows-1252'));
    expect(out.result.counts).toEqual({
      total: 8,
      accepted: 2,
      rejected: 0,
      invalid: 6,
      failed: 0,
      duplicate: 0,
      inDoubt: 0,
    });
    expect(out.result.documents.map((d) => [d.index, d.key, d.status, d.source.rows])).toEqual([
      [0, 'main/invoice/SETP/1', 'accepted', [2, 7]],
      [1, null, 'invalid', [3]],
      [2, null, 'invalid', [4]],
      [3, null, 'invalid', [5]],
      [4, null, 'invalid', [6, 8]],
      [5, null, 'invalid', [9]],
      [6, null, 'invalid', [10, 11]],
      [7, 'main/invoice/SETP/8', 'accepted', [12]],
    ]);
    // a document without a ledger key keeps the export's key in its source; one with a key does not need it
    expect(out.result.documents[1].source).toEqual({ rows: [3], erpKey: 'SETP2' });
    expect(out.result.documents[0].source).toEqual({ rows: [2, 7] });

    // These documents have no ledger key (it comes from the built request, prefix/number): the key
    // cell names them by the export's own key columns (prefijo + numero). The date is blamed by every
    // request field that reads `fecha` (IssueDate, DueDate, PaymentMeans[0].DueDate): one row.
    const badDate =
      '1;SETP2;invalid;rows 3;EDOC_MAP_BAD_DATE;fecha;31/02/2026;"""31/02/2026"" in column ""fecha"" is not a date in the form dd/MM/yyyy"';
    expect(records(out.errorsCsv)).toEqual([
      HEADER_ROW,
      badDate,
      '2;SETP3;invalid;rows 4;EDOC_MAP_BAD_NUMBER;cantidad;dos;"""dos"" in column ""cantidad"" is not a number (decimal "","", thousands ""."")"',
      '3;SETP4;invalid;rows 5;EDOC_MAP_UNKNOWN_CODE;cliente_tipo_doc;XX;"Unknown code ""XX"" in column ""cliente_tipo_doc"" (lookup table ""document-types"")"',
      '4;SETP5;invalid;"rows 6, 8";EDOC_MAP_INCONSISTENT;cliente_nombre;"Peña; Hermanos | Peña Hermanos";"The rows of this document disagree on column ' +
        '""cliente_nombre"" (""Peña; Hermanos"" vs ""Peña Hermanos""); a document-level column must repeat the same value on every row"',
      '5;SETP6;invalid;rows 9;EDOC_MAP_MULTIPLE_VAT;iva;19/5;"Column ""iva"" holds several rates (""19/5""); a line carries one VAT rate only — split it into one row per rate"',
      '6;SETP7;invalid;rows 10-11;EDOC_MAP_MULTIPLE_VAT;iva;19 | 5;"Line 1 appears on several rows with different VAT rates (19, 5); a line carries one VAT rate only"',
    ]);

    // The same file read back as a spreadsheet would: cell by cell.
    const cells = parse((out.errorsCsv ?? '').slice(1), { delimiter: ';' }) as string[][];
    const dateCells = [
      '1',
      'SETP2',
      'invalid',
      'rows 3',
      'EDOC_MAP_BAD_DATE',
      'fecha',
      '31/02/2026',
      '"31/02/2026" in column "fecha" is not a date in the form dd/MM/yyyy',
    ];
    expect(cells).toEqual([
      ['index', 'key', 'status', 'source', 'code', 'field', 'value', 'message'],
      dateCells,
      [
        '2',
        'SETP3',
        'invalid',
        'rows 4',
        'EDOC_MAP_BAD_NUMBER',
        'cantidad',
        'dos',
        '"dos" in column "cantidad" is not a number (decimal ",", thousands ".")',
      ],
      [
        '3',
        'SETP4',
        'invalid',
        'rows 5',
        'EDOC_MAP_UNKNOWN_CODE',
        'cliente_tipo_doc',
        'XX',
        'Unknown code "XX" in column "cliente_tipo_doc" (lookup table "document-types")',
      ],
      [
        '4',
        'SETP5',
        'invalid',
        'rows 6, 8',
        'EDOC_MAP_INCONSISTENT',
        'cliente_nombre',
        'Peña; Hermanos | Peña Hermanos',
        'The rows of this document disagree on column "cliente_nombre" ("Peña; Hermanos" vs "Peña Hermanos"); a document-level column must repeat the same value on every row',
      ],
      [
        '5',
        'SETP6',
        'invalid',
        'rows 9',
        'EDOC_MAP_MULTIPLE_VAT',
        'iva',
        '19/5',
        'Column "iva" holds several rates ("19/5"); a line carries one VAT rate only — split it into one row per rate',
      ],
      [
        '6',
        'SETP7',
        'invalid',
        'rows 10-11',
        'EDOC_MAP_MULTIPLE_VAT',
        'iva',
        '19 | 5',
        'Line 1 appears on several rows with different VAT rates (19, 5); a line carries one VAT rate only',
      ],
    ]);

    // The retry file: the header and the rows of the invalid documents, in the original bytes (Windows-1252).
    const lines = text.split('\r\n');
    expect(
      out.retry?.equals(
        iconv.encode(
          `${[lines[0], ...[3, 4, 5, 6, 8, 9, 10, 11].map((r) => lines[r - 1])].join('\r\n')}\r\n`,
          'windows-1252',
        ),
      ),
    ).toBe(true);
  });

  it('a missing column fails the whole file: one row with the column(s) in `field` and row 1, no documents', async () => {
    const missing = rows.map(({ cantidad: _c, precio_unitario: _p, ...rest }) => rest);
    const out = await throughReports(
      'sin-precio.csv',
      iconv.encode(toCsv(missing), 'windows-1252'),
    );
    const message =
      `Columns "cantidad", "precio_unitario" missing from the header of sin-precio.csv (mapping sales for invoice; ` +
      'found: prefijo, numero, fecha, hora, cliente_tipo_doc, cliente_doc, cliente_nombre, linea, descripcion, iva)';
    expect(out.result.error).toEqual({ code: 'EDOC_MAP_MISSING_COLUMN', message });
    expect(out.result.counts).toEqual({
      total: 0,
      accepted: 0,
      rejected: 0,
      invalid: 0,
      failed: 0,
      duplicate: 0,
      inDoubt: 0,
    });
    expect(out.result.documents).toEqual([]);
    expect(records(out.errorsCsv)).toEqual([
      HEADER_ROW,
      `;;error;rows 1;EDOC_MAP_MISSING_COLUMN;"cantidad, precio_unitario";;"${message.replace(/"/g, '""')}"`,
    ]);
    expect(parse((out.errorsCsv ?? '').slice(1), { delimiter: ';' })).toEqual([
      ['index', 'key', 'status', 'source', 'code', 'field', 'value', 'message'],
      [
        '',
        '',
        'error',
        'rows 1',
        'EDOC_MAP_MISSING_COLUMN',
        'cantidad, precio_unitario',
        '',
        message,
      ],
    ]);
    // nothing was read as a document, so there is nothing to retry: the original is fixed and dropped again
    expect(out.retry).toBeUndefined();
  });
});

describe('NAME.retry.csv of a UTF-8 CSV input keeps the original bytes, BOM included', () => {
  // LF line ends, a quoted description with `;` and a line break (one record, row 3), accents: all must come back as they were.
  const rows = [
    sale('1', '1', { cliente_nombre: 'Ñandú Ltda.' }),
    sale('2', '1', {
      fecha: '31/02/2026',
      cliente_nombre: 'Peña y Compañía',
      descripcion: 'Servicio; transporte\nBogotá – Medellín',
    }),
    sale('2', '2', { fecha: '31/02/2026', cliente_nombre: 'Peña y Compañía' }),
  ];
  const text = toCsv(rows, { newline: '\n' });
  const [header, , row3, row3rest, row4] = text.split('\n');
  const expectedRows = Buffer.from(`${header}\n${row3}\n${row3rest}\n${row4}\n`, 'utf8');

  it.each([
    ['with a BOM', true],
    ['without a BOM', false],
  ])('%s: the retry file starts as the input did', async (_label, bom) => {
    const input = Buffer.from(text, 'utf8');
    const out = await throughReports('ventas-utf8.csv', bom ? Buffer.concat([BOM, input]) : input);
    expect(out.result.documents.map((d) => [d.status, d.source.rows])).toEqual([
      ['accepted', [2]],
      ['invalid', [3, 4]],
    ]);
    expect(out.retry).toEqual(bom ? Buffer.concat([BOM, expectedRows]) : expectedRows);
  });
});
