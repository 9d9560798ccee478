/**
 * A mapping after loading: the YAML's shape, checked and compiled into a tree
 * that the engine walks per document. See docs/mappings.md for the language.
 */
import type { DocumentKind } from '../kinds/index.js';
import type { CaptureSpec, SplitSpec } from './capture.js';
import type { ExprNode } from './expr/parse-expression.js';

export type Conversion = 'text' | 'decimal' | 'number' | 'integer' | 'date' | 'datetime' | 'time' | 'id-number' | 'percent' | 'fraction';

export type CompanyValue = 'nit' | 'alias' | 'check-digit' | 'identification';

/** One value: where it comes from, how it is converted, and what happens when it is empty. */
export interface ValueSpec {
  column?: string;
  const?: string;
  concat?: ValueSpec[];
  separator?: string;
  company?: CompanyValue;
  /** The line's 1-based position within its document (line fields only). */
  position?: true;
  as: Conversion;
  /** datetime only: the column holding the time of day (`HH:mm:ss` / `HH:mm`), default 00:00:00. */
  time?: string;
  lookup?: string;
  default?: ValueSpec;
  required: boolean;
  kinds?: string[];
  /** An expression over columns (map/expr/), with its text for messages. */
  expr?: ExprNode;
  exprText?: string;
  /** Part of the cell: a pattern's group, or the n-th part at a separator. */
  capture?: CaptureSpec;
  split?: SplitSpec;
}

export type MappingNode =
  | { type: 'value'; spec: ValueSpec }
  | { type: 'object'; entries: [string, MappingNode][]; when?: string[]; kinds?: string[] }
  | { type: 'array'; items: MappingNode[] };

export interface MappingFormat {
  delimiter: ';' | ',' | '\t' | 'auto';
  encoding: 'utf-8' | 'windows-1252' | 'latin1' | 'auto';
  decimal: ',' | '.';
  thousands: '.' | ',' | ' ' | '';
  /** ERP date pattern with dd d MM M yyyy yy (e.g. `dd/MM/yyyy`). */
  date: string;
}

export interface Derive {
  name: string;
  /** Named per-line inputs of the derivation (e.g. `vat: iva`), evaluated on each line's row. */
  lineInputs: Record<string, ValueSpec>;
}

/** One `kindCheck` entry: a column and the kinds its cells show (see map/kind-check.ts). */
export interface KindCheck {
  column: string;
  /** Any non-blank cell shows one of these kinds. */
  filled?: DocumentKind[];
  /** A cell equal to a key (trimmed, lower-cased) shows one of its kinds; other cells show nothing. */
  values?: Record<string, DocumentKind[]>;
}

export interface Mapping {
  /** The YAML file it was loaded from (for error messages). */
  file: string;
  name: string;
  kinds: string[];
  format: MappingFormat;
  /** Key alternatives: the first whose cells are all non-empty groups the row. */
  key: string[][];
  lookups: Record<string, Record<string, string>>;
  document: MappingNode;
  /** Field under which lines go (e.g. `Lines`); absent for one-row documents such as payroll. */
  linesField?: string;
  lines?: MappingNode;
  /** Column whose equal values within a document denote the same line (a repeated line). */
  lineKey?: string;
  derive: Derive[];
  /** What the export's own columns say about a document's kind (absent: nothing is checked). */
  kindCheck?: KindCheck[];
  /** Figures the export states and the engine compares with its own (map/guards/). */
  reconcile?: Reconcile;
  /** The default guards, as this mapping sets them. */
  guards: Guards;
}

/** A figure: `total`, `net`, `gross`, `discount`, `withholding`, or `tax:01` (a tax category). */
export type Figure = string;

export interface Reconcile {
  /** Cents a stated figure may differ from the computed one (default 0). */
  tolerance: number;
  document: [Figure, string][];
  lines: [Figure, string][];
}

export interface Guards {
  /** Allowed VAT rates, canonical (`'19'`, `'0'`, `'5'`). */
  vatRates: string[];
  zeroLines: 'invalid' | 'allow';
  negative: 'invalid' | 'allow';
}
