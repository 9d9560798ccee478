/**
 * ERP date patterns (`dd/MM/yyyy`, `yyyy-MM-dd`, `d.M.yy`…) -> the spec's
 * `yyyy-MM-dd`. Only real calendar days pass (31/02/2026 is an error).
 */
import { isValidDate } from '../service/schemas/common.js';

const TOKENS: [string, string, 'd' | 'M' | 'y' | 'yy'][] = [
  ['yyyy', '(\\d{4})', 'y'],
  // a `yy` year written in full (`1965`, as a spreadsheet's date cell is given: sheet-values.ts) is that year
  ['yy', '(\\d{4}|\\d{2})', 'yy'],
  ['dd', '(\\d{2})', 'd'],
  ['d', '(\\d{1,2})', 'd'],
  ['MM', '(\\d{2})', 'M'],
  ['M', '(\\d{1,2})', 'M'],
];

export interface DatePattern {
  re: RegExp;
  order: ('d' | 'M' | 'y' | 'yy')[];
}

const cache = new Map<string, DatePattern>();

/** Compiles a pattern; throws a plain Error naming what is wrong (the loader wraps it). */
export function compileDatePattern(pattern: string): DatePattern {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let re = '^';
  const order: DatePattern['order'] = [];
  let i = 0;
  while (i < pattern.length) {
    const token = TOKENS.find(([t]) => pattern.startsWith(t, i));
    if (token !== undefined) {
      re += token[1];
      order.push(token[2]);
      i += token[0].length;
    } else if (/[A-Za-z]/.test(pattern[i])) {
      throw new Error(
        `unknown letter "${pattern[i]}" in date pattern "${pattern}" (use dd, d, MM, M, yyyy, yy)`,
      );
    } else {
      re += pattern[i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  const letters = new Set(order.map((o) => (o === 'yy' ? 'y' : o)));
  if (letters.size !== 3 || order.length !== 3)
    throw new Error(`date pattern "${pattern}" needs exactly one day, one month and one year`);
  const compiled = { re: new RegExp(`${re}$`), order };
  cache.set(pattern, compiled);
  return compiled;
}

/** `'05/03/2026'` with `dd/MM/yyyy` -> `'2026-03-05'`; undefined when it does not match, is not a real day or is before 1900. */
export function erpDateToIso(text: string, pattern: string): string | undefined {
  const p = compileDatePattern(pattern);
  const m = p.re.exec(text.trim());
  if (m === null) return undefined;
  let d = 0;
  let mo = 0;
  let y = 0;
  p.order.forEach((part, idx) => {
    const n = Number(m[idx + 1]);
    if (part === 'd') d = n;
    else if (part === 'M') mo = n;
    else if (part === 'y' || m[idx + 1].length === 4) y = n;
    // a two-digit year in POSIX strptime's window: 69-99 are 1969-1999 (a hire or birth date), 00-68 2000-2068
    else y = n >= 69 ? 1900 + n : 2000 + n;
  });
  // a year before 1900 (`0026` under yyyy) is a typing slip, not a date an export means (Excel's own
  // dates begin in 1900): refused, never issued as the year 26
  if (y < 1900) return undefined;
  const iso = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  return isValidDate(iso) ? iso : undefined;
}

/** `'8:05'` / `'08:05:09'` -> `'08:05:09'` (seconds default 00); undefined when not a time of day. */
export function erpTimeToIso(text: string): string | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (m === null) return undefined;
  const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? '0')];
  if (h > 23 || mi > 59 || s > 59) return undefined;
  return `${String(h).padStart(2, '0')}:${m[2]}:${String(s).padStart(2, '0')}`;
}
