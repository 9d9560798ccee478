/**
 * A mapping's `route`: one export holding documents of several kinds (a mixed sales export with
 * `FV` invoices, `NC` credit notes and `ND` debit notes), each document sent as the kind its
 * column names. The kinds routed to must be among the mapping's `kinds`.
 *
 * ```yaml
 * route:
 *   column: TipoDoc
 *   values: { FV: invoice, NC: credit-note, ND: debit-note }
 * ```
 *
 * A document whose cell names no routed kind (blank, or a value not listed), or whose rows name two
 * kinds, is refused (EDOC_MAP_ROUTE) naming the value, the rows and the column: it is never sent as
 * the folder's kind by default.
 */
import { DOCUMENT_KINDS, isDocumentKind, type DocumentKind } from '../kinds/index.js';
import { excerpt } from '../policy/excerpt.js';
import type { Problem } from '../validate/problem.js';
import { mappingError } from './compile-node.js';
import type { RowView } from './eval-context.js';
import type { Route } from './mapping-types.js';

export interface RouteInput {
  column: string;
  values: Record<string, string>;
}

export function compileRoute(
  input: RouteInput | undefined,
  kinds: readonly string[],
  file: string,
): Route | undefined {
  if (input === undefined) return undefined;
  const values: Record<string, DocumentKind> = {};
  for (const [value, kind] of Object.entries(input.values)) {
    const key = value.trim().toLowerCase();
    const path = `route.values.${value}`;
    if (key === '')
      throw mappingError(
        file,
        'route.values',
        'an empty value routes nothing: list the values the column holds',
      );
    if (key in values)
      throw mappingError(
        file,
        path,
        `"${value}" is listed twice (values match case-insensitively)`,
      );
    if (!isDocumentKind(kind))
      throw mappingError(
        file,
        path,
        `unknown kind "${kind}" (one of ${DOCUMENT_KINDS.join(', ')})`,
      );
    if (!kinds.includes(kind))
      throw mappingError(
        file,
        path,
        `routes to ${kind}, which is not among the mapping's kinds (${kinds.join(', ')})`,
      );
    values[key] = kind;
  }
  if (Object.keys(values).length === 0) throw mappingError(file, 'route.values', 'lists no value');
  return Object.freeze({
    column: input.column,
    values,
    listed: Object.keys(input.values).map((v) => v.trim()),
  });
}

/** The kind a document's rows name, or why it cannot be told (a problem naming value, rows and column). */
export function routeKind(
  route: Route,
  rows: readonly RowView[],
): { kind: DocumentKind } | { problem: Problem } {
  const seen = new Map<string, { kind: DocumentKind | undefined; rows: number[]; text: string }>();
  for (const row of rows) {
    const text = row.get(route.column).trim();
    if (text === '') continue;
    const key = text.toLowerCase();
    const entry = seen.get(key) ?? { kind: route.values[key], rows: [], text };
    entry.rows.push(row.row);
    seen.set(key, entry);
  }
  const listed = route.listed.join(', ');
  const allRows = rows.map((r) => r.row);
  if (seen.size === 0) {
    return {
      problem: {
        code: 'EDOC_MAP_ROUTE',
        path: '',
        column: route.column,
        value: '',
        rows: allRows,
        message: `Column "${route.column}" is empty on row ${allRows.join(', ')}: it must name the document's kind (${listed})`,
      },
    };
  }
  const unknown = [...seen.values()].find((e) => e.kind === undefined);
  if (unknown !== undefined) {
    return {
      problem: {
        code: 'EDOC_MAP_ROUTE',
        path: '',
        column: route.column,
        value: excerpt(unknown.text),
        rows: unknown.rows,
        message: `Column "${route.column}" holds "${excerpt(unknown.text, 40)}" on row ${unknown.rows.join(', ')}, which the mapping routes to no kind (${listed})`,
      },
    };
  }
  const kinds = new Set([...seen.values()].map((e) => e.kind));
  if (kinds.size > 1) {
    const texts = [...seen.values()]
      .map((e) => `"${excerpt(e.text, 40)}" (row ${e.rows.join(', ')})`)
      .join(' and ');
    return {
      problem: {
        code: 'EDOC_MAP_ROUTE',
        path: '',
        column: route.column,
        value: excerpt([...seen.values()].map((e) => e.text).join(' | ')),
        rows: allRows,
        message: `The rows of one document name two kinds in column "${route.column}": ${texts}`,
      },
    };
  }
  return { kind: [...kinds][0]! };
}
