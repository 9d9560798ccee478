/**
 * A document in the wrong inbox folder. The folder says which kind the bridge
 * sends a document as; the document's own content may say otherwise (a
 * ReasonCredit, a reference to a corrected document, an ERP's document-type
 * column, a note's prefix). Sent anyway, E1 would issue a credit note's export
 * as an invoice — a legal document under the wrong number series. So each
 * such sign is a `KindSignal`, and a document with a signal that excludes its
 * folder's kind is invalid before anything is sent.
 *
 * Signals come from two places: the request itself (request-kind-signals.ts,
 * JSON and JSONL inputs) and the mapping's `kindCheck` (map/kind-check.ts, CSV
 * columns a mapping does not carry into the request).
 */
import { KIND_LABELS, type DocumentKind } from '../kinds/names.js';
import type { Problem } from './problem.js';

export interface KindSignal {
  /** Where the sign is: a request path (`ReasonCredit`) or a CSV column (`motivo`). */
  field: string;
  /** What it holds, as text (shortened in messages). */
  value: string;
  /** The kinds the document can be, going by this sign alone. */
  kinds: readonly DocumentKind[];
  /** CSV: the rows holding the sign (the header is row 1). */
  rows?: number[];
  /** CSV: the field is a column of the export, not a request path. */
  column?: boolean;
  /** JSON: the fields whose presence is the sign, when there are several (`Trabajador`, `Devengados`). */
  fields?: string[];
}

/** `['credit-note', 'debit-note']` -> `a credit note or a debit note`. */
export function kindNames(kinds: readonly DocumentKind[]): string {
  return kinds.map((k) => KIND_LABELS[k]).join(' or ');
}

/** `['credit-note', 'debit-note']` -> `the credit-note or the debit-note folder`. */
function folderNames(kinds: readonly DocumentKind[]): string {
  return `${kinds.map((k) => `the ${k}`).join(' or ')} folder`;
}

/** Values are quoted short: in the message, and in the report's value column. */
const MESSAGE_VALUE = 40;
const REPORT_VALUE = 100;

function clip(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function shown(value: string): string {
  return JSON.stringify(clip(value, MESSAGE_VALUE));
}

/** `rows 2-3: ` / `row 4: ` / '' (JSON: the report's source column names the lines). */
function placeOf(rows: readonly number[] | undefined): string {
  if (rows === undefined || rows.length === 0) return '';
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const consecutive = sorted.every((r, i) => i === 0 || r === sorted[i - 1] + 1);
  const list =
    sorted.length > 1 && consecutive
      ? `${sorted[0]}-${sorted[sorted.length - 1]}`
      : sorted.join(', ');
  return `${sorted.length === 1 ? 'row' : 'rows'} ${list}: `;
}

function describe(signal: KindSignal): string {
  if (signal.column === true) return `${shown(signal.value)} in column "${signal.field}"`;
  if (signal.fields !== undefined && signal.fields.length > 0) return `${signal.fields.join(', ')}`;
  return `${signal.field} ${shown(signal.value)}`;
}

/**
 * The problems of a document in `folder` given its signals: one per signal that
 * excludes the folder's kind, saying where the document belongs — the kinds
 * every signal agrees on. When the signals contradict one another there is no
 * folder to name: the export must be corrected (EDOC_VALIDATE_KIND).
 */
export function judgeKindSignals(folder: DocumentKind, signals: readonly KindSignal[]): Problem[] {
  const against = signals.filter((s) => !s.kinds.includes(folder));
  if (against.length === 0) return [];
  let belongs: DocumentKind[] = [...against[0].kinds];
  for (const s of signals) belongs = belongs.filter((k) => s.kinds.includes(k));
  return against.map((s) => {
    const verb = s.fields !== undefined && s.fields.length > 1 ? 'make' : 'makes';
    const says = `${placeOf(s.rows)}${describe(s)} ${verb} this ${kindNames(s.kinds)}, not ${KIND_LABELS[folder]}`;
    const others = signals.filter((o) => !o.kinds.some((k) => s.kinds.includes(k)));
    const message =
      belongs.length > 0
        ? `${says}; it is not sent: drop it in ${folderNames(belongs)} instead of the ${folder} folder`
        : `${says}, but ${others.map(describe).join(' and ')} ${others.length > 1 ? 'say' : 'says'} ${kindNames([...new Set(others.flatMap((o) => o.kinds))])}; it is not sent: correct the document`;
    const p: Problem = {
      code: belongs.length > 0 ? 'EDOC_VALIDATE_WRONG_FOLDER' : 'EDOC_VALIDATE_KIND',
      path: s.column === true ? '' : s.field,
      message,
    };
    if (s.column === true) p.column = s.field;
    if (s.column === true || s.fields === undefined) p.value = clip(s.value, REPORT_VALUE);
    if (s.rows !== undefined) p.rows = [...s.rows];
    return p;
  });
}
