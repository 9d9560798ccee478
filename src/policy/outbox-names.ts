/** Outbox names of an input file: the ledger fixes a file's stem when it records it, the report stage writes under it. */
import { createHash } from 'node:crypto';
import path from 'node:path';

/** Room left for `.result.json`, `.retry.jsonl`, ` (99)` and a temp prefix inside the usual 255-byte limit. */
const MAX_STEM_BYTES = 180;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

function truncateBytes(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * A safe single path component from an untrusted name: no separators, no `..`, no control or
 * reserved characters, not hidden, not a reserved device name; unicode letters are kept. Names
 * too long are cut and get a hash suffix so two long names stay distinct.
 */
export function sanitizeName(name: string): string {
  let s = [...name.normalize('NFC')]
    .filter((ch) => {
      const c = ch.codePointAt(0) ?? 0;
      return c >= 0x20 && (c < 0x7f || c > 0x9f);
    })
    .join('')
    .replace(/[/\\<>:"|?*]/g, '_')
    .replace(/\.{2,}/g, '_')
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  if (s === '') s = 'file';
  if (WINDOWS_RESERVED.test(s.split('.')[0])) s = `_${s}`;
  if (Buffer.byteLength(s) > MAX_STEM_BYTES) {
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
    s = `${truncateBytes(s, MAX_STEM_BYTES - 9).replace(/[.\s]+$/, '')}~${hash}`;
  }
  return s;
}

/** The extension of an input name, lowercased, without the dot ('' when none). */
export function inputExtension(name: string): string {
  return path
    .extname(path.basename(name.replace(/\\/g, '/')))
    .slice(1)
    .toLowerCase();
}

const SPREADSHEETS = new Set(['xlsx', 'xlsm', 'xls']);

/** `NAME` of an input `NAME.ext`, made safe for the outbox. */
export function outputStem(inputName: string): string {
  const base = path.basename(inputName.replace(/\\/g, '/'));
  const ext = path.extname(base);
  return sanitizeName(
    ext.length > 0 && ext.length < base.length ? base.slice(0, -ext.length) : base,
  );
}

export interface OutputNames {
  result: string;
  errors: string;
  retry: string;
}

/** The outbox file names of one input file, from its recorded report stem and its extension. */
export function outputNames(stem: string, inputName: string): OutputNames {
  const input = inputExtension(inputName);
  // a spreadsheet's retry file is CSV with the sheet's columns (read/sheet-source.ts)
  const ext = SPREADSHEETS.has(input) ? 'csv' : sanitizeName(input || 'txt');
  return {
    result: `${stem}.result.json`,
    errors: `${stem}.errors.csv`,
    retry: `${stem}.retry.${ext}`,
  };
}

/** The columns of the outbox's `NAME.errors.csv` (report/errors-csv.ts), in order. */
export const ERRORS_CSV_COLUMNS = [
  'index',
  'key',
  'status',
  'source',
  'code',
  'field',
  'value',
  'message',
] as const;
