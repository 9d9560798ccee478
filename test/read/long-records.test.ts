/**
 * Issue 12, items 8 and 9 at the read stage: a record longer than read.maxRecordBytes is a clear
 * file-level error that quotes none of it; what the readers and the mapping quote of the input is a
 * short excerpt; a stop signal ends a read in the middle of a long record.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import { openSource } from '../../src/read/open-source.js';
import { all, COMPANY, edocError, removeDir, tempDir } from './read-helpers.js';

const SALES = path.join(import.meta.dirname, '../../config/mappings/sales.csv.yaml');
const HEADER =
  'prefijo;numero;fecha;hora;vence;cliente_tipo_doc;cliente_doc;cliente_nombre;cliente_correo;linea;codigo;descripcion;cantidad;precio_unitario;iva';
const row = (numero: string, cells: { descripcion?: string; cantidad?: string } = {}): string =>
  `SETP;${numero};01/11/2026;09:15:00;01/11/2026;31;800197268;Cliente;c@example.com;1;7702;${cells.descripcion ?? 'corto'};${cells.cantidad ?? '1'};1.000,00;19\r\n`;

describe('records longer than read.maxRecordBytes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });
  const write = async (name: string, text: string): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  it('a header record over the cap: EDOC_READ_RECORD_TOO_LARGE naming the file, row 1 and the limit, quoting nothing', async () => {
    const file = await write('cabecera.csv', `${'zzzz;'.repeat(100_000)}\r\n${row('1')}`);
    const err = await edocError(
      openSource(file, 'invoice', {
        company: COMPANY,
        mapping: await loadMapping(SALES),
        maxRecordBytes: 64 * 1024,
      }),
      'EDOC_READ_RECORD_TOO_LARGE',
    );
    expect(err.context).toMatchObject({ file, row: 1, maxBytes: 65_536 });
    expect(err.message).toBe(
      `${file}: record 1 is longer than 65,536 bytes (read.maxRecordBytes); the file is not read`,
    );
  });

  it('a data record over the cap fails the file before any document is handed out, naming its row', async () => {
    const text = `${HEADER}\r\n${row('1')}${row('2')}${row('3', { descripcion: `"${'y'.repeat(300_000)}"` })}${row('4')}`;
    const file = await write('fila.csv', text);
    const opened = await openSource(file, 'invoice', {
      company: COMPANY,
      mapping: await loadMapping(SALES),
      maxRecordBytes: 64 * 1024,
    });
    const err = await edocError(all(opened.documents), 'EDOC_READ_RECORD_TOO_LARGE');
    expect(err.context).toMatchObject({ file, row: 4 });
    expect(err.message).not.toContain('yyyy');
  });

  it('a record just under the cap is read, and its raw text is whole', async () => {
    const description = 'w'.repeat(60_000);
    const file = await write(
      'bajo.csv',
      `${HEADER}\r\n${row('1', { descripcion: description })}${row('2')}`,
    );
    const opened = await openSource(file, 'invoice', {
      company: COMPANY,
      mapping: await loadMapping(SALES),
      maxRecordBytes: 64 * 1024,
    });
    const docs = await all(opened.documents);
    expect(docs).toHaveLength(2);
    expect(docs[0].raw).toBe(row('1', { descripcion: description }));
    expect(docs[1].raw).toBe(row('2'));
  });

  it('a JSONL line and a JSON element over the cap are file-level errors naming the line and the setting', async () => {
    const jsonl = await write('largo.jsonl', `{"a":1}\n{"b":"${'q'.repeat(100_000)}"}\n`);
    const e1 = await edocError(
      openSource(jsonl, 'invoice', { company: COMPANY, maxRecordBytes: 64 * 1024 }),
      'EDOC_READ_JSON',
    );
    expect(e1.message).toBe('line 2 is longer than 65536 characters (read.maxRecordBytes)');
    const json = await write('largo.json', `[{"a":1},{"b":"${'q'.repeat(300_000)}"}]`);
    const e2 = await edocError(
      openSource(json, 'invoice', { company: COMPANY, maxRecordBytes: 64 * 1024 }),
      'EDOC_READ_JSON',
    );
    expect(e2.message).toContain(
      'a document is longer than 65536 characters (read.maxRecordBytes)',
    );
    expect(e2.message).not.toContain('qqqq');
  });

  it('a stop signal ends the read in the middle of a long record', async () => {
    const file = await write(
      'parar.csv',
      `${HEADER}\r\n${row('1', { descripcion: `"${'s'.repeat(8 << 20)}"` })}`,
    );
    const controller = new AbortController();
    const opened = await openSource(file, 'invoice', {
      company: COMPANY,
      mapping: await loadMapping(SALES),
      signal: controller.signal,
    });
    const reading = all(opened.documents);
    controller.abort();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('what the readers and the mapping quote of the input', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('a bad JSONL line: the problem does not repeat the line (the JSON parser quotes it)', async () => {
    const file = path.join(dir, 'clave.jsonl');
    await writeFile(file, 'sk_live_9fQ2xLm7Rt4ZpW8vNc3Kd6HyBj1SgAe5\n');
    const docs = await all((await openSource(file, 'invoice', { company: COMPANY })).documents);
    expect(docs[0].problems).toEqual([
      {
        code: 'EDOC_READ_JSON',
        path: '',
        message: "line 1 is not valid JSON: Unexpected token 's'",
      },
    ]);
  });

  it('a 1 MB cell that is not a number: value and message carry a 60-character excerpt and the length', async () => {
    const file = path.join(dir, 'celda.csv');
    await writeFile(file, `${HEADER}\r\n${row('1', { cantidad: 'n'.repeat(1 << 20) })}`);
    const docs = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping: await loadMapping(SALES) }))
        .documents,
    );
    const problem = docs[0].problems.find((p) => p.column === 'cantidad');
    expect(problem?.value).toBe(`${'n'.repeat(60)}… (1,048,576 characters)`);
    expect(problem?.message.length).toBeLessThan(300);
  });

  it('a header without the required columns: `found` lists at most 400 characters of it', async () => {
    const file = path.join(dir, 'otra.csv');
    await writeFile(file, `${'columna;'.repeat(200_000)}\r\n`);
    const err = await edocError(
      openSource(file, 'invoice', { company: COMPANY, mapping: await loadMapping(SALES) }),
      'EDOC_MAP_MISSING_COLUMN',
    );
    expect(err.message.length).toBeLessThan(1_000);
    expect(err.message).toMatch(/found: columna, columna, .*… \(1,799,998 characters\)\)$/);
  });
});
