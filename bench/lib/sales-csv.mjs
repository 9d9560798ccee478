// A sales CSV export in the reference layout (config/mappings/sales.csv.yaml):
// Windows-1252, `;`, CRLF, decimal comma, 3 rows per document, every 50th
// document with a row interleaved a few documents further down. Dated today
// (Colombia) so every document is valid whatever day the bench runs.
import { createWriteStream } from 'node:fs';
import iconv from 'iconv-lite';
import { colombiaToday } from './util.mjs';

const HEADER =
  'prefijo;numero;fecha;hora;vence;cliente_tipo_doc;cliente_doc;cliente_nombre;cliente_correo;linea;codigo;descripcion;cantidad;precio_unitario;iva';

/** Writes `rows` data rows (plus the header) to `file`; documents are numbered from `first`. */
export async function writeSalesCsv(file, rows, first = 990_000_000) {
  const { erp } = colombiaToday();
  const out = createWriteStream(file);
  // Encoded in chunks: a write per row would make generating 1,000,000 rows slower than reading them.
  let pending = '';
  const write = async (text, force = false) => {
    pending += text;
    if (!force && pending.length < 1 << 16) return;
    const ok = out.write(iconv.encode(pending, 'windows-1252'));
    pending = '';
    if (!ok) await new Promise((r) => out.once('drain', r));
  };
  await write(`${HEADER}\r\n`);
  const row = (doc, line) => {
    const rate = ['19', '5', '0', ''][(doc + line) % 4];
    return `SETP;${first + doc};${erp};09:15:00;${erp};31;800.197.268-4;Compañía Ñandú S.A.S. ${doc};compras${doc}@andina.example;${line};77020${line};"Artículo ${line}; café ""premium""";${line + 1};1.234,5${line};${rate}\r\n`;
  };
  let written = 0;
  let doc = 0;
  let held;
  while (written < rows) {
    for (let line = 1; line <= 3 && written < rows; line += 1) {
      if (doc % 50 === 0 && line === 3) {
        held = row(doc, line); // written a few documents later: interleaved rows
        continue;
      }
      await write(row(doc, line));
      written += 1;
    }
    if (held !== undefined && doc % 50 === 5) {
      await write(held);
      written += 1;
      held = undefined;
    }
    doc += 1;
  }
  if (held !== undefined) await write(held);
  await write('', true);
  await new Promise((r) => out.end(r));
  return { documents: doc };
}
