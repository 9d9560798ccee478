/**
 * What every reader (JSON, JSONL, CSV) hands to the rest of the pipeline: one
 * `SourceDocument` per document of the input file, streamed, so memory does not
 * grow with the file.
 */
import path from 'node:path';
import type { DocumentKind } from '../kinds/index.js';
import type { Problem } from '../validate/problem.js';
import type { PlaceOf } from '../map/request-place.js';

export type { Problem } from '../validate/problem.js';

export interface SourceDocument {
  /** 0-based position of the document in its file. */
  index: number;
  /**
   * Where the document came from.
   * - CSV: `rows` lists every row of the document (the header is row 1).
   * - JSON: `lines` is the inclusive 1-based range `[first, last]` of the array
   *   element (or top-level object), collapsed to `[first]` when it fits on one line.
   * - JSONL: `lines` is `[line]`.
   */
  source: { rows?: number[]; lines?: number[] };
  /** The service request; absent when it could not be built (see `problems`). */
  request?: unknown;
  /** Reading / mapping problems; a document with problems is reported `invalid`. */
  problems: Problem[];
  /** The original text of this document, exactly as in the file (for the retry file). */
  raw: string;
  /** The kind the mapping routed it to (`route`); absent: the folder's kind. */
  kind?: DocumentKind;
  /** `request` is exactly `JSON.parse(raw)` (JSON and JSONL inputs): the ledger stores the text once. */
  requestFromRaw?: boolean;
  /**
   * A mapped document: where each request field came from, so the validators' problems name the export's
   * column and row (map/request-place.ts). Stays on the thread that read the file.
   */
  place?: PlaceOf;
}

/** `xlsx` / `xls`: spreadsheets, read as rows of CSV (their retry file is CSV). */
export type SourceFormat = 'json' | 'jsonl' | 'csv' | 'xlsx' | 'xls';

const FORMATS: Record<string, SourceFormat> = {
  '.json': 'json',
  '.jsonl': 'jsonl',
  '.csv': 'csv',
  '.txt': 'csv',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
  '.xls': 'xls',
};

/** The format a file is read as, by its extension (any case); undefined for an unsupported one. */
export function formatOf(file: string): SourceFormat | undefined {
  return FORMATS[path.extname(file).toLowerCase()];
}

export interface OpenedSource {
  format: SourceFormat;
  /** CSV and spreadsheets: the header line as found in the file, or the header row as CSV (for the retry file). */
  header?: string;
  /** The text encoding the file was decoded with, e.g. `utf-8`, `windows-1252`. */
  encoding: string;
  documents: AsyncIterable<SourceDocument>;
}
