import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { isEdocError } from '../../src/errors.js';
import { compileMapping } from '../../src/map/load-mapping.js';
import { FIXTURES, mapping, readAll, sale, tempFile, toCsv } from './helpers.js';

describe('reading delimited exports', () => {
  it('decodes a Windows-1252 export (auto) and reports the encoding', async () => {
    const file = await tempFile(
      'w.csv',
      toCsv([sale('1', '1', { cliente_nombre: 'José Muñoz Peña', descripcion: 'Café – Ñame' })]),
      'windows-1252',
    );
    const { source, docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(source.encoding).toBe('windows-1252');
    const req = docs[0].request as {
      CustomerParty: { Name: string };
      Lines: { Item: { Description: string } }[];
    };
    expect(req.CustomerParty.Name).toBe('José Muñoz Peña');
    expect(req.Lines[0].Item.Description).toBe('Café – Ñame');
  });

  it('reads UTF-8 with a BOM (recorded as utf-8-bom, so the retry file writes it back) and without one', async () => {
    const text = toCsv([sale('1', '1', { cliente_nombre: 'Ñandú Ltda.' })]);
    for (const [bytes, encoding] of [
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'utf-8-bom'],
      [Buffer.from(text), 'utf-8'],
    ] as const) {
      const file = await tempFile('u.csv', bytes);
      const { source, docs } = await readAll(file, await mapping('sales'), 'invoice');
      expect(source.encoding).toBe(encoding);
      expect(source.header).toBe(text.slice(0, text.indexOf('\r\n') + 2));
      expect((docs[0].request as { CustomerParty: { Name: string } }).CustomerParty.Name).toBe(
        'Ñandú Ltda.',
      );
    }
  });

  it('reads the committed BOM fixture, whose first column is the key', async () => {
    const { source, docs } = await readAll(
      join(FIXTURES, 'sales-utf8-bom.csv'),
      await mapping('sales'),
      'invoice',
    );
    expect(source.encoding).toBe('utf-8-bom');
    expect(docs.map((d) => d.key)).toEqual(['SETP990000201', 'SETP990000202']);
    expect(docs.every((d) => d.problems.length === 0)).toBe(true);
  });

  it('records utf-8-bom for a BOM file also when the mapping says utf-8, and utf-8 without one', async () => {
    const yaml = {
      ...(await import('yaml')).parse(
        await readFile(join(import.meta.dirname, '../../config/mappings/sales.csv.yaml'), 'utf8'),
      ),
    };
    yaml.format = { ...yaml.format, encoding: 'utf-8' };
    const m = compileMapping(yaml, 'utf8.yaml');
    const text = toCsv([sale('1', '1', { cliente_nombre: 'Ñandú Ltda.' })]);
    const withBom = await readAll(
      await tempFile('b.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
      m,
      'invoice',
    );
    const without = await readAll(await tempFile('n.csv', Buffer.from(text)), m, 'invoice');
    expect([withBom.source.encoding, without.source.encoding]).toEqual(['utf-8-bom', 'utf-8']);
    expect(withBom.source.header).toBe(without.source.header);
    expect(withBom.docs.map((d) => d.request)).toEqual(without.docs.map((d) => d.request));
    expect(
      (withBom.docs[0].request as { CustomerParty: { Name: string } }).CustomerParty.Name,
    ).toBe('Ñandú Ltda.');
  });

  it('decodes latin1 when the mapping says so', async () => {
    const yaml = {
      ...(await import('yaml')).parse(
        await readFile(join(import.meta.dirname, '../../config/mappings/sales.csv.yaml'), 'utf8'),
      ),
    };
    yaml.format = { ...yaml.format, encoding: 'latin1' };
    const m = compileMapping(yaml, 'latin1.yaml');
    const file = await tempFile(
      'l.csv',
      iconv.encode(toCsv([sale('1', '1', { cliente_nombre: 'Peña' })]), 'latin1'),
    );
    const { source, docs } = await readAll(file, m, 'invoice');
    // read (and its retry file written) as Windows-1252, Latin-1's superset for printable characters
    expect(source.encoding).toBe('windows-1252');
    expect((docs[0].request as { CustomerParty: { Name: string } }).CustomerParty.Name).toBe(
      'Peña',
    );
  });

  it.each([
    [';', 'semicolon'],
    [',', 'comma'],
    ['\t', 'tab'],
  ])('sniffs the %j delimiter (%s) and maps the same request', async (delimiter) => {
    const rows = [
      sale('7', '1', { descripcion: 'Arroz, frijol; lenteja', precio_unitario: '1.234.567,50' }),
      sale('7', '2'),
    ];
    const file = await tempFile('d.csv', toCsv(rows, { delimiter }), 'windows-1252');
    const { source, docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(source.delimiter).toBe(delimiter);
    const req = docs[0].request as {
      Lines: { Item: { Description: string }; UnitPrice: string }[];
      Total: { PayableAmount: string };
    };
    expect(req.Lines[0].Item.Description).toBe('Arroz, frijol; lenteja');
    expect(req.Lines[0].UnitPrice).toBe('1234567.50');
    expect(req.Total.PayableAmount).toBe('1470325.33');
  });

  it('keeps delimiters and line breaks inside quoted fields; a record spanning lines is one row', async () => {
    const rows = [
      sale('1', '1', { descripcion: 'Servicio; transporte\r\nBogotá – Medellín' }),
      sale('1', '2'),
      sale('2', '1'),
    ];
    const file = await tempFile('q.csv', toCsv(rows), 'windows-1252');
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(docs[0].source.rows).toEqual([2, 3]);
    expect(docs[1].source.rows).toEqual([4]);
    expect(
      (docs[0].request as { Lines: { Item: { Description: string } }[] }).Lines[0].Item.Description,
    ).toBe('Servicio; transporte\r\nBogotá – Medellín');
  });

  it('reads LF files as well as CRLF, and header plus raws give back the rows', async () => {
    for (const newline of ['\n', '\r\n']) {
      const text = toCsv(
        [sale('1', '1', { descripcion: `a${newline}b` }), sale('2', '1'), sale('1', '2')],
        { newline },
      );
      const [header, first, firstRest, second, third] = text.split(newline);
      const file = await tempFile('n.csv', text);
      const { source, docs } = await readAll(file, await mapping('sales'), 'invoice');
      expect(docs.map((d) => d.source.rows)).toEqual([[2, 4], [3]]);
      expect(source.header).toBe(header + newline);
      expect(docs[0].raw).toBe(first + newline + firstRest + newline + third + newline);
      expect(docs[1].raw).toBe(second + newline);
    }
  });

  it('matches header names case- and space-insensitively and ignores extra columns', async () => {
    const rows = [sale('1', '1')].map((r) => ({ ...r, 'Columna Extra': 'x' }));
    const text = toCsv(rows).replace('prefijo;numero;fecha', '  PREFIJO ; Numero;Fecha ');
    const file = await tempFile('h.csv', text);
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(docs[0].problems).toEqual([]);
    expect((docs[0].request as { SeriePrefix: string }).SeriePrefix).toBe('SETP');
  });

  it('fails the whole file with EDOC_MAP_MISSING_COLUMN naming a missing required column', async () => {
    const rows = [sale('1', '1')].map(({ precio_unitario: _p, ...rest }) => rest);
    const file = await tempFile('m.csv', toCsv(rows));
    const err = await readAll(file, await mapping('sales'), 'invoice').catch((e: unknown) => e);
    expect(isEdocError(err, 'EDOC_MAP_MISSING_COLUMN')).toBe(true);
    expect((err as Error).message).toContain('"precio_unitario"');
    expect((err as { context: { column: string } }).context.column).toBe('precio_unitario');
  });

  it('requires motivo and ref_documento for a credit note but not for an invoice', async () => {
    const file = await tempFile('c.csv', toCsv([sale('1', '1')]));
    const err = await readAll(file, await mapping('sales'), 'credit-note').catch((e: unknown) => e);
    expect(isEdocError(err, 'EDOC_MAP_MISSING_COLUMN')).toBe(true);
    expect((err as { context: { columns: string[] } }).context.columns).toEqual([
      'motivo',
      'ref_documento',
    ]);
    const ok = await readAll(file, await mapping('sales'), 'invoice');
    expect(ok.docs).toHaveLength(1);
  });

  it('groups interleaved rows by key in order of first appearance, each with its source rows', async () => {
    const rows = [
      sale('3', '1'),
      sale('1', '1'),
      sale('3', '2'),
      sale('2', '1'),
      sale('1', '2'),
      sale('3', '3'),
      sale('2', '2'),
    ];
    const file = await tempFile('i.csv', toCsv(rows));
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(docs.map((d) => [d.index, d.key, d.source.rows])).toEqual([
      [0, 'SETP3', [2, 4, 7]],
      [1, 'SETP1', [3, 6]],
      [2, 'SETP2', [5, 8]],
    ]);
    expect((docs[0].request as { Lines: unknown[] }).Lines).toHaveLength(3);
  });

  it('skips blank lines but keeps counting rows, so row numbers match the spreadsheet', async () => {
    const text = toCsv([sale('1', '1'), sale('2', '1')]).replace(
      /\r\nSETP;2/,
      '\r\n\r\n;;;\r\nSETP;2',
    );
    const file = await tempFile('b.csv', text);
    const { docs } = await readAll(file, await mapping('sales'), 'invoice');
    expect(docs.map((d) => d.source.rows)).toEqual([[2], [5]]);
  });

  it('answers EDOC_READ_EMPTY for an empty file', async () => {
    const file = await tempFile('e.csv', '');
    const err = await readAll(file, await mapping('sales'), 'invoice').catch((e: unknown) => e);
    expect(isEdocError(err, 'EDOC_READ_EMPTY')).toBe(true);
  });

  it('reports a quote that is never closed as EDOC_MAP_CSV_SYNTAX', async () => {
    const file = await tempFile('s.csv', `${toCsv([sale('1', '1')])}SETP;2;"sin cerrar\r\n`);
    const err = await readAll(file, await mapping('sales'), 'invoice').catch((e: unknown) => e);
    expect(isEdocError(err, 'EDOC_MAP_CSV_SYNTAX')).toBe(true);
  });
});
