/**
 * A mapping after loading: the YAML's shape, checked and compiled into a tree
 * that the engine walks per document. See docs/mappings.md for the language.
 */
import type { DocumentKind } from '../kinds/index.js';
import type { CaptureSpec, SplitSpec } from './capture.js';
import type { ExprNode } from './expr/parse-expression.js';

export type Conversion =
  | 'text'
  | 'decimal'
  | 'number'
  | 'integer'
  | 'date'
  | 'datetime'
  | 'time'
  | 'id-number'
  | 'percent'
  | 'fraction';

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
  | {
      type: 'object';
      entries: [string, MappingNode][];
      when?: string[];
      kinds?: string[];
      whenIf?: RowCondition;
    }
  | { type: 'array'; items: MappingNode[] };

export interface MappingFormat {
  delimiter: ';' | ',' | '\t' | 'auto';
  encoding: 'utf-8' | 'windows-1252' | 'latin1' | 'auto';
  decimal: ',' | '.';
  thousands: '.' | ',' | ' ' | '';
  /** ERP date pattern with dd d MM M yyyy yy (e.g. `dd/MM/yyyy`). */
  date: string;
  /** Spreadsheets (.xlsx / .xls): the sheet to read, by name; absent: the first worksheet. */
  sheet?: string;
  /**
   * Columns whose numbers have three decimals (`1,375` kilograms): their cells are read as written, never
   * taken for whole amounts grouped in the other convention (map/column-numbers.ts).
   */
  threeDecimals?: string[];
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

/** `route`: a column whose value (trimmed, lower-cased key) names the kind each document is sent as. */
export interface Route {
  column: string;
  values: Record<string, DocumentKind>;
  /** The values as the mapping spells them (for messages). */
  listed: string[];
}

/** A condition on the cells of one row (compiled and evaluated in row-condition.ts). */
export type RowCondition =
  | { test: 'equals'; column: string; values: string[] }
  | { test: 'empty' | 'filled' | 'zero' | 'nonZero'; column: string }
  | { test: 'compare'; column: string; op: 'gt' | 'ge' | 'lt' | 'le'; than: string }
  | { test: 'matches'; column: string; pattern: RegExp }
  | { test: 'not'; of: RowCondition }
  | { test: 'all' | 'any'; of: RowCondition[] };

/** Where the header is and how rows are completed before grouping (map/row-rules.ts, read/csv-framing.ts). */

/** The two files of an export in parts (map/parts.ts). */
export type PartName = 'header' | 'lines';

export interface Part {
  /** The name rule as written (`Documents{set}.csv`). */
  file: string;
  /** The join column of this part. */
  key: string;
  /** Rows from the top that are header rows (the first names the columns). */
  headerRows: number;
  /** The rule compiled: the whole name, `{set}` captured. */
  pattern: RegExp;
}

export interface Parts {
  header: Part;
  lines: Part;
  waitMs: number;
}

export interface Framing {
  /** The header is this row (1-based, as a spreadsheet shows it); the rows above are title lines. */
  headerRow?: number;
  /** The header is the first row holding all these column names (within the first 100 rows). */
  findHeader?: string[];
  /** On a row without a document key, these columns (and the key's) take their blank cells from the row above. */
  fillDown?: string[];
}

/** Row roles: conditions on cells (map/row-condition.ts). */
export interface RowRoles {
  /** Rows ignored before grouping: footers, totals, cancelled receipts. */
  skip?: RowCondition;
  /** Of a document's rows, those that are lines (default: every row, or every row but the document row). */
  lines?: RowCondition;
  /** The one row of a document that supplies its document-level values (default: its first row). */
  document?: RowCondition;
}

/** One row per concept: a code column and, per code, the request fields that row sets (map/concepts.ts). */
export interface Concepts {
  column: string;
  /** Lower-cased code -> [request path, value] pairs, evaluated on the concept's row. */
  codes: Map<string, [string, ValueSpec][]>;
  /** Lower-cased codes that are known and carried nowhere. */
  ignore: Set<string>;
  /** The export's amount columns (earned, deducted): a concept row may fill only those its code reads. */
  amounts: string[];
  /** Lower-cased code -> the columns (lower-cased) its fields read. */
  reads: Map<string, Set<string>>;
}

export interface Mapping {
  /** The YAML file it was loaded from (for error messages). */
  file: string;
  name: string;
  kinds: string[];
  format: MappingFormat;
  /** Key alternatives: the first whose cells are all non-empty groups the row. */
  key: string[][];
  /**
   * The ERP gives one key to several documents over time (a counter that restarts): a document the service
   * numbers is then not refused because a document with its key was issued before. Absent: a key is one
   * document, and one the service numbers is issued once per company and kind (ledger/erp-keys.ts).
   */
  keyRepeats?: true;
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
  /** One export, several kinds: the column naming each document's kind (map/route-kind.ts). */
  route?: Route;
  framing?: Framing;
  /** An export in two files (header + lines) joined on a key (map/parts.ts). */
  parts?: Parts;
  rows?: RowRoles;
  concepts?: Concepts;
  /** Figures the export states and the engine compares with its own (map/guards/). */
  reconcile?: Reconcile;
  /** The default guards, as this mapping sets them. */
  guards: Guards;
  /** The master-data tables its expressions read (`lookup(table, key, column)`): table -> columns. */
  masterTables?: Record<string, string[]>;
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
