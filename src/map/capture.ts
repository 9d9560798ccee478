/**
 * Taking part of a cell: `capture` (a pattern with a group: prefix and number
 * in one cell, an id with its type letter, a full name into surname and given
 * names) and `split` (the n-th part of a cell cut at a separator), and a date
 * and time of day written in one cell (`18/11/2026 09:15`, `18/11/2026 9:15:00 p. m.`).
 */
import { erpTimeToIso } from './convert-date.js';

export interface CaptureSpec {
  /** The pattern as written in the mapping (for messages). */
  pattern: string;
  re: RegExp;
  /** Group name or number; default 1. */
  group: string | number;
}

export interface SplitSpec {
  on: string;
  /** 1-based part; negative counts from the end (-1 = the last). */
  part: number;
  /** The part and every part after it, joined again with the separator. */
  rest: boolean;
}

/** Longest pattern a mapping may give (patterns come from configuration, but stay bounded). */
export const MAX_PATTERN = 300;

/** Compiles a capture; throws a plain Error naming what is wrong (the loader wraps it). */
export function compileCapture(pattern: string, group: string | number | undefined): CaptureSpec {
  if (pattern.length > MAX_PATTERN)
    throw new Error(`the pattern is longer than ${MAX_PATTERN} characters`);
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch (err) {
    throw new Error(`not a valid pattern: ${(err as Error).message}`);
  }
  // nested quantifiers such as (a+)+ take exponential time on some cells: refused at load
  if (/\([^()]*[+*][^()]*\)[+*{]/.test(pattern))
    throw new Error(
      'a repeated group that itself repeats (like (a+)+) can take very long on some cells; write it without the nested repetition',
    );
  const g = group ?? 1;
  const groups = new RegExp(`${pattern}|`, 'u').exec('')!;
  const known =
    typeof g === 'number'
      ? Number.isInteger(g) && g >= 0 && g < groups.length
      : groups.groups !== undefined && g in groups.groups;
  if (!known) {
    throw new Error(`the pattern has no group ${typeof g === 'number' ? g : `"${g}"`}`);
  }
  return { pattern, re, group: g };
}

/** The captured part, '' when the group took nothing, undefined when the cell does not match. */
export function applyCapture(text: string, c: CaptureSpec): string | undefined {
  const m = c.re.exec(text);
  if (m === null) return undefined;
  const v = typeof c.group === 'number' ? m[c.group] : m.groups?.[c.group];
  return (v ?? '').trim();
}

/** The chosen part, '' when the cell has fewer parts. */
export function applySplit(text: string, s: SplitSpec): string {
  const parts = text
    .split(s.on)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const i = s.part > 0 ? s.part - 1 : parts.length + s.part;
  if (i < 0 || i >= parts.length) return '';
  return s.rest ? parts.slice(i).join(s.on) : parts[i];
}

const AM_PM = /^(.*?)\s*([ap])\.?\s*m\.?$/i;

/** A time of day, 24-hour or with a.m./p.m. (`9:15 p. m.` -> `21:15:00`); undefined when not one. */
export function timeOfDay(text: string): string | undefined {
  const m = AM_PM.exec(text.trim());
  if (m === null) return erpTimeToIso(text);
  const t = erpTimeToIso(m[1]);
  if (t === undefined) return undefined;
  const h = Number(t.slice(0, 2));
  if (h < 1 || h > 12) return undefined;
  const h24 = m[2].toLowerCase() === 'p' ? (h === 12 ? 12 : h + 12) : h === 12 ? 0 : h;
  return `${String(h24).padStart(2, '0')}${t.slice(2)}`;
}

/** `'18/11/2026 09:15'` -> ['18/11/2026', '09:15:00']; undefined when the cell is not a date and a time. */
export function splitDateTime(text: string): [string, string] | undefined {
  const m = /^(\S+)(?:\s+|T)(\d.*)$/.exec(text.trim());
  if (m === null) return undefined;
  const time = timeOfDay(m[2]);
  return time === undefined ? undefined : [m[1], time];
}
