/**
 * How a spreadsheet cell reaches the mapping, the same for .xlsx and .xls:
 * - text cells: their text, as typed (`00123` keeps its zeros);
 * - numeric cells: the number in the mapping's own `format.decimal`, no thousands separator, at
 *   most 15 significant digits (Excel's own precision: `0.1+0.2` is `0.3`), never an exponent
 *   (`1234567,5` with decimal comma) — so the mapping's number rules read it exactly;
 * - numeric cells with a date format (Excel serial dates): the day in the mapping's `format.date`
 *   pattern (`05/03/2026` with `dd/MM/yyyy`), followed by ` HH:mm:ss` when the cell has a time of
 *   day or its format shows one (midnight under `dd/mm/yyyy hh:mm` is `05/03/2026 00:00:00`); a time
 *   alone (a serial below 1) as `HH:mm:ss`;
 * - numeric cells with a percent format: the percentage shown, with its sign (`0.19` shown `19%`
 *   reaches the mapping as `19%`), as a CSV saved from the sheet writes it: read as the bare fraction, a
 *   `10%` discount would be a tenth of one per cent;
 * - booleans `TRUE` / `FALSE`, errors as Excel shows them (`#N/A`), a formula its last computed value.
 * - numeric cells with a zero-padded format (`00000`): a whole number with the zeros shown (`00123`);
 * - numeric cells whose format shows a currency other than the peso (`[$USD] #,##0.00`): the number after
 *   that currency (`USD 1234,5`), as a CSV saved from the sheet writes it: no amount reads it;
 * Nothing is formatted by a locale, and no other display format (`$ 1.234,50`) is applied.
 */
import type { MappingFormat } from '../map/mapping-types.js';

/** `1234567.5` -> `'1234567.5'` (or `'1234567,5'`), 15 significant digits, no exponent. */
export function numberText(value: number, decimal: string): string {
  if (!Number.isFinite(value)) return '#NUM!';
  if (value === 0) return '0';
  const plain = plainDecimal(Number(value.toPrecision(15)));
  return decimal === '.' ? plain : plain.replace('.', decimal);
}

/** A JS number as plain decimal digits (`1e-7` -> `0.0000001`, `1e21` -> `1000000000000000000000`). */
function plainDecimal(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m === null) return s;
  const [, sign, lead, frac = '', expText] = m;
  const exp = Number(expText);
  const digits = lead + frac;
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  return exp >= frac.length
    ? `${sign}${digits}${'0'.repeat(exp - frac.length)}`
    : `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** A numeric cell with a percent format as the sheet shows it: `0.19` -> `'19%'` (`'12,5%'`). */
export function percentText(value: number, decimal: string): string {
  return `${numberText(value * 100, decimal)}%`;
}

const DAY_MS = 86_400_000;
/** Day 0 of the 1900 system as Excel counts from serial 61 on (1900-03-01); 1904 system: 1904-01-01 is 0. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/**
 * An Excel serial date -> date (and time) text in the mapping's pattern. Excel's 1900 system counts
 * 1900-02-29, a day that never was (serial 60): serials below 61 are one day off the plain count.
 * `clock`: the cell's format shows a time of day, so midnight (a whole serial) keeps its `00:00:00`.
 */
export function serialDateText(
  serial: number,
  date1904: boolean,
  pattern: string,
  clock = false,
): string | undefined {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return undefined; // 9999-12-31
  // whole seconds, cut and not rounded (to the millisecond first, against float noise): 23:59:59.999 of
  // the 18th, an ERP's end-of-day stamp, is the day Excel shows, the 18th, not midnight of the 19th
  const seconds = Math.floor(Math.round(serial * DAY_MS) / 1000);
  let days = Math.floor(seconds / 86_400);
  const time = seconds - days * 86_400;
  const hms = `${pad(Math.floor(time / 3600))}:${pad(Math.floor((time % 3600) / 60))}:${pad(time % 60)}`;
  // a time of day alone (`09:15:00`): day 0 is no date in either system (1900-01-00, or 1904-01-01 for
  // which a Mac workbook's time cells stand), and a time column must read as one
  if (days === 0) return hms;
  if (!date1904 && days === 60) return undefined; // 1900-02-29 does not exist
  if (!date1904 && days < 60) days += 1;
  const d = new Date((date1904 ? EPOCH_1904 : EPOCH_1900) + days * DAY_MS);
  const text = renderDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), pattern);
  // a receipt at 00:00:00 is a whole serial: under a date-and-time format it is a time, as the sheet
  // shows it (`21/11/2026 00:00`), not a bare date whose time would be missing
  return time === 0 && !clock ? text : `${text} ${hms}`;
}

/**
 * A cell stored as an ISO 8601 date (`t="d"`, `2026-03-04T14:24:00`, what some writers save instead of a
 * serial) -> the same text a serial date cell gives: the day in the mapping's pattern, with ` HH:mm:ss`
 * when it holds a time of day or `clock` (its format shows one; fractions of a second cut). Undefined
 * when it is no calendar date.
 */
export function isoDateText(iso: string, pattern: string, clock = false): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?Z?)?$/.exec(
    iso.trim(),
  );
  if (m === null) return undefined;
  const [y, mo, d, h = 0, mi = 0, sec = 0] = m
    .slice(1)
    .map((t) => (t === undefined ? 0 : Number(t)));
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d)
    return undefined;
  if (h > 23 || mi > 59 || sec > 59) return undefined;
  const text = renderDate(y, mo, d, pattern);
  return h + mi + sec === 0 && !clock ? text : `${text} ${pad(h)}:${pad(mi)}:${pad(sec)}`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Renders with the tokens map/convert-date.ts reads: dd d MM M yyyy yy. */
function renderDate(y: number, mo: number, d: number, pattern: string): string {
  return pattern.replace(/yyyy|yy|dd|d|MM|M/g, (t) => {
    switch (t) {
      case 'yyyy':
        return pad(y, 4);
      case 'yy':
        // the year in full: a date cell knows its century, and two digits would lose it (1965 read back as
        // 2065); map/convert-date.ts reads four digits under `yy` as that year
        return pad(y, 4);
      case 'dd':
        return pad(d);
      case 'd':
        return String(d);
      case 'MM':
        return pad(mo);
      default:
        return String(mo);
    }
  });
}

/** Built-in number formats that are dates or times (ECMA-376 18.8.30, and the locale ids 27-36, 50-58). */
const DATE_FORMAT_IDS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51,
  52, 53, 54, 55, 56, 57, 58,
]);

/** The first section of a number format code without literals, escapes, fills and brackets. */
function formatSection(code: string): string {
  return code
    .split(';')[0]
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/_./g, '')
    .replace(/\[(?:h+|m+|s+)\]/gi, 'h')
    .replace(/\[[^\]]*\]/g, '');
}

/** True when a number format shows the number as a percentage (built-in 9 `0%`, 10 `0.00%`, or a `%` in the code). */
export function isPercentFormat(id: number, code: string | undefined): boolean {
  if (code === undefined) return id === 9 || id === 10;
  return formatSection(code).includes('%');
}

/**
 * The width a number format pads whole numbers to with leading zeros (`00000`: 5), 0 for any other
 * format. A code or an id kept as a number with such a format shows its zeros (`00123`), and a CSV
 * saved from the sheet writes them: read without them, `00123` would be another product or party.
 */
export function zeroPadWidth(code: string | undefined): number {
  const section = code === undefined ? '' : formatSection(code).trim();
  return /^0{2,}$/.test(section) ? section.length : 0;
}

/** A whole number as a zero-padded format shows it (`123` with `00000`: `'00123'`); any other number as numberText. */
export function paddedText(value: number, width: number, decimal: string): string {
  const text = numberText(value, decimal);
  const m = /^(-?)(\d+)$/.exec(text);
  return m === null ? text : `${m[1]}${m[2].padStart(width, '0')}`;
}

/** The peso's marks in a number format: Colombia writes `$`; `COP` and `COL$` name it. */
const PESO = /^(?:\$|COP|COL\$|COP ?\$|\$ ?COP)$/i;
/** Codes of other currencies a format may write as text (`"USD" #,##0.00`). */
const CODES =
  /(?:^|[^A-Za-z])(USD|EUR|GBP|MXN|BRL|PEN|CLP|ARS|VES|CAD|AUD|JPY|CHF|CNY)(?![A-Za-z])/;

/**
 * The currency other than the peso that a number format shows (`[$USD] #,##0.00`, `#,##0.00 [$€-C0A]`,
 * `"US$"#,##0.00`, `#,##0.00 €`); undefined for `$`, `COP` and formats showing none.
 */
export function foreignCurrency(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  const section = code.split(';')[0];
  // `[$USD]`, `[$€-C0A]`: the mark before the locale (`[$-240A]` is a locale alone)
  for (const m of section.matchAll(/\[\$([^\]-]*)[^\]]*\]/g)) {
    const mark = m[1].trim();
    if (mark !== '' && !PESO.test(mark)) return mark;
  }
  const quoted = [...section.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  const bare = section
    .replace(/"[^"]*"/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/[_*]./g, '')
    .replace(/\\(.)/g, '$1');
  for (const text of [...quoted, bare]) {
    const t = text.trim();
    if (PESO.test(t)) continue;
    const sign = /[^\P{Sc}$]|[A-Za-z]+\$|\$[A-Za-z]+/u.exec(t) ?? CODES.exec(t);
    if (sign !== null) return sign[1] ?? sign[0];
  }
  return undefined;
}

/**
 * How a number format shows a number beyond its digits, as a CSV saved from the sheet writes it: zeros
 * padding a whole number (`00000`: width 5), or a currency other than the peso. Undefined for any other.
 */
export type NumberLook = { pad: number } | { currency: string };

export function numberLook(code: string | undefined): NumberLook | undefined {
  const pad = zeroPadWidth(code);
  if (pad > 0) return { pad };
  const currency = foreignCurrency(code);
  return currency === undefined ? undefined : { currency };
}

/**
 * A number as its look shows it: `00123`, or with its currency (`USD 1234,5`), which no amount reads:
 * a price in dollars is refused naming its cell, never issued as that many pesos.
 */
export function lookedText(value: number, look: NumberLook, decimal: string): string {
  if ('pad' in look) return paddedText(value, look.pad, decimal);
  return `${look.currency} ${numberText(value, decimal)}`;
}

/** True when a number format shows a date or time: a built-in date id, or a code with d, m, y, h or s outside quotes and brackets. */
export function isDateFormat(id: number, code: string | undefined): boolean {
  if (code === undefined) return DATE_FORMAT_IDS.has(id);
  // the first section only (`positive;negative;zero;text`), without literals, escapes and [Red]/[$-409]
  const section = formatSection(code);
  if (/^general$/i.test(section.trim())) return false;
  return /[dmyhs]/i.test(section.replace(/e[+-]/gi, ''));
}

/**
 * True when a date format shows a time of day beside the day (built-in 22 `m/d/yy h:mm`, or a code with
 * both a day part and h or s: `dd/mm/yyyy hh:mm`). A time-only format (`hh:mm`) is not one: its cells are
 * times (day 0) whatever this says.
 */
export function showsTimeOfDay(id: number, code: string | undefined): boolean {
  if (code === undefined) return id === 22;
  const section = formatSection(code).replace(/e[+-]/gi, '');
  return /[dy]/i.test(section) && /[hs]/i.test(section);
}

export type SheetFormat = Pick<MappingFormat, 'decimal' | 'date'>;

/** One cell as a CSV field: quoted when it holds the delimiter, a quote or a line break. */
export function csvField(value: string, delimiter: string): string {
  return value.includes(delimiter) || /["\r\n]/.test(value)
    ? `"${value.replace(/"/g, '""')}"`
    : value;
}

/** The cells of a row as one CSV line with CRLF (the retry file of a spreadsheet is CSV). */
export function csvLine(cells: string[], delimiter: string): string {
  return `${cells.map((c) => csvField(c, delimiter)).join(delimiter)}\r\n`;
}
