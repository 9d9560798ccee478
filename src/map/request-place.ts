/**
 * Where a field of a mapped request came from in the export: the column (or the few columns) the mapping
 * reads it from and the row that gave it. The validators judge the request and name a request path
 * (`Lines[1].Quantity`, `CustomerParty.Identification.DocumentNumber`); with this, their problems on a
 * mapped document name the export's column and row, as the mapping's own problems do. A field the engine
 * computes (line and document totals, tax amounts) or a constant has no column: its problem keeps the path.
 */
import type { Problem } from '../validate/problem.js';
import { specColumns } from './compile-node.js';
import { parseFieldPath } from './concepts.js';
import type { Mapping, MappingNode } from './mapping-types.js';

export interface RequestPlace {
  /** The column, or the columns joined with `, ` (a date and its time, a name in two parts). */
  column: string;
  rows: number[];
}

/** A request path -> where it came from, undefined when no column of the export gave it. */
export type PlaceOf = (path: string) => RequestPlace | undefined;

/** At most this many columns are named for one field; a field made of more is left at its path. */
const MAX_COLUMNS = 3;

type Segment = string | number;

export interface PlaceParts {
  mapping: Mapping;
  request: Record<string, unknown>;
  /** The row the document fields were read from. */
  documentRow: number;
  /** The row of each line, in the request's order. */
  lineRows: number[][];
  /** Fields set by concept rows (map/concepts.ts): request path -> its row and the columns read. */
  concepts?: ReadonlyMap<string, { row: number; columns: string[] }>;
}

export function placeFinder(parts: PlaceParts): PlaceOf {
  return (path) => placeOf(parts, path);
}

function placeOf(parts: PlaceParts, path: string): RequestPlace | undefined {
  if (path === '') return undefined;
  const fromConcept = parts.concepts?.get(path);
  if (fromConcept !== undefined) return named(fromConcept.columns, [fromConcept.row]);
  const segments = parseFieldPath(path);
  if (segments === undefined) return undefined;
  const { mapping, request } = parts;
  if (
    mapping.lines !== undefined &&
    segments[0] === mapping.linesField &&
    typeof segments[1] === 'number'
  ) {
    const rows = parts.lineRows[segments[1]];
    const line = (request[mapping.linesField] as unknown[] | undefined)?.[segments[1]];
    if (rows === undefined) return undefined;
    return named(columnsAt(mapping.lines, line, segments, 2), rows);
  }
  return named(columnsAt(mapping.document, request, segments, 0), [parts.documentRow]);
}

function named(columns: string[] | undefined, rows: number[]): RequestPlace | undefined {
  if (columns === undefined || columns.length === 0 || columns.length > MAX_COLUMNS)
    return undefined;
  return { column: columns.join(', '), rows };
}

/**
 * The columns of the mapping node at `segments[i…]`. `built` is the part of the request that node built:
 * a list whose items the mapping left out (an absent optional item) no longer lines up with the
 * mapping's items, so a path through it is not placed.
 */
function columnsAt(
  node: MappingNode,
  built: unknown,
  segments: Segment[],
  i: number,
): string[] | undefined {
  if (node.type === 'value')
    return i === segments.length ? [...specColumns(node.spec, new Set())] : undefined;
  if (i >= segments.length) return undefined;
  const s = segments[i];
  if (node.type === 'array') {
    if (typeof s !== 'number' || !Array.isArray(built)) return undefined;
    if (built.length !== node.items.length || node.items[s] === undefined) return undefined;
    return columnsAt(node.items[s], built[s], segments, i + 1);
  }
  if (typeof s !== 'string' || typeof built !== 'object' || built === null) return undefined;
  const child = node.entries.find(([name]) => name === s)?.[1];
  if (child === undefined) return undefined;
  return columnsAt(child, (built as Record<string, unknown>)[s], segments, i + 1);
}

/** The validators' problems of a mapped document, each named by its column and row where one gave it. */
export function placed(problems: Problem[], place: PlaceOf | undefined): Problem[] {
  if (place === undefined) return problems;
  return problems.map((p) => {
    if (p.column !== undefined) return p;
    const at = place(p.path);
    return at === undefined ? p : { ...p, column: at.column, rows: p.rows ?? at.rows };
  });
}
