/**
 * Rows of one document -> its request, or its problems. Document fields come
 * from the first row and every row must agree on the columns they read; line
 * fields come from each row; then the mapping's derivations run. A document
 * with any problem gets no request (it is reported `invalid`).
 */
import { isEdocError } from '../errors.js';
import { excerpt, quoted } from '../policy/excerpt.js';
import type { DocumentKind } from '../kinds/index.js';
import type { Problem } from '../validate/problem.js';
import { judgeKindSignals } from '../validate/wrong-folder.js';
import { columnsOf, specColumns } from './compile-node.js';
import { evaluateNode } from './evaluate-node.js';
import type { CompanyInfo, EvalContext, RowView } from './eval-context.js';
import { evaluateValue } from './evaluate-value.js';
import type { DeriveLine } from './derive/registry.js';
import { getDerivation } from './derive/registry.js';
import { mappingKindSignals } from './kind-check.js';
import { applyConcepts } from './concepts.js';
import { conditionHolds, rowRoles } from './row-roles.js';
import type { KindCheck, Mapping, Route } from './mapping-types.js';
import type { ColumnNumbers } from './column-numbers.js';
import type { MasterTables } from './master-tables.js';
import { defaultGuards } from './guards/default-guards.js';
import { reconcile } from './guards/reconcile.js';
import { placeFinder, type PlaceOf } from './request-place.js';

export interface BuiltDocument {
  request?: Record<string, unknown>;
  problems: Problem[];
  /** Where each request field came from (the validators' problems are named by it). */
  place?: PlaceOf;
}

const documentColumnsCache = new WeakMap<Mapping, string[]>();

function documentColumns(mapping: Mapping): string[] {
  let cols = documentColumnsCache.get(mapping);
  if (cols === undefined) {
    cols = [...columnsOf(mapping.document)];
    documentColumnsCache.set(mapping, cols);
  }
  return cols;
}

function checkConsistency(mapping: Mapping, rows: RowView[], problems: Problem[]): void {
  if (rows.length < 2) return;
  for (const column of documentColumns(mapping)) {
    const first = rows[0].get(column).trim();
    // the rows agree on nearly every column of nearly every document: ask without building a list first
    if (rows.every((r) => r.get(column).trim() === first)) continue;
    const differing = rows.filter((r) => r.get(column).trim() !== first);
    if (differing.length === 0) continue;
    const values = [...new Set([first, ...differing.map((r) => r.get(column).trim())])];
    problems.push({
      code: 'EDOC_MAP_INCONSISTENT',
      path: '',
      column,
      value: excerpt(values.join(' | ')),
      rows: [rows[0].row, ...differing.map((r) => r.row)],
      message: `The rows of this document disagree on column "${column}" (${excerpt(values.map((v) => quoted(v)).join(' vs '), 200)}); a document-level column must repeat the same value on every row`,
    });
  }
}

/** Several numbers in one rate cell (`19/5`, `19+5`, `19 5`): a line carries one VAT rate only. */
const SEVERAL_RATES = /\d\s*%?\s*(?:[/+|&]|\s)\s*\d/;

function rateColumns(mapping: Mapping): string[] {
  const out = new Set<string>();
  for (const d of mapping.derive)
    for (const spec of Object.values(d.lineInputs))
      if (spec.as === 'percent') specColumns(spec, out);
  return [...out];
}

function checkLineRates(mapping: Mapping, rows: RowView[], problems: Problem[]): Set<number> {
  const bad = new Set<number>();
  const columns = rateColumns(mapping);
  for (const row of rows) {
    for (const column of columns) {
      const text = row.get(column).trim();
      if (SEVERAL_RATES.test(text)) {
        bad.add(row.row);
        problems.push({
          code: 'EDOC_MAP_MULTIPLE_VAT',
          path: '',
          column,
          value: excerpt(text),
          rows: [row.row],
          message: `Column "${column}" holds several rates (${quoted(text)}); a line carries one VAT rate only — split it into one row per rate`,
        });
      }
    }
  }
  if (mapping.lineKey === undefined) return bad;
  const byLine = new Map<string, RowView[]>();
  for (const row of rows) {
    const id = row.get(mapping.lineKey).trim();
    if (id === '') continue;
    byLine.set(id, [...(byLine.get(id) ?? []), row]);
  }
  for (const [id, same] of byLine) {
    if (same.length < 2) continue;
    const rates = [...new Set(same.map((r) => columns.map((c) => r.get(c).trim()).join('/')))];
    const multiple = rates.length > 1;
    problems.push({
      code: multiple ? 'EDOC_MAP_MULTIPLE_VAT' : 'EDOC_MAP_INCONSISTENT',
      path: '',
      column: multiple ? columns.join(',') : mapping.lineKey,
      value: excerpt(multiple ? rates.join(' | ') : id),
      rows: same.map((r) => r.row),
      message: multiple
        ? `Line ${excerpt(id)} appears on several rows with different VAT rates (${excerpt(rates.join(', '), 200)}); a line carries one VAT rate only`
        : `Line ${excerpt(id)} appears on several rows; each line of a document needs its own "${mapping.lineKey}"`,
    });
  }
  return bad;
}

export function buildDocument(
  mapping: Mapping,
  rows: RowView[],
  kind: DocumentKind,
  company: CompanyInfo,
  master?: MasterTables,
  numbers?: ColumnNumbers,
): BuiltDocument {
  // A document the export shows to be of another kind is reported as that alone, and never built.
  if (mapping.kindCheck !== undefined) {
    // a routed document: its route column is a sign too, so a contradiction names it ("correct the document")
    const checks =
      mapping.route === undefined
        ? mapping.kindCheck
        : [...mapping.kindCheck, routeCheck(mapping.route)];
    const elsewhere = judgeKindSignals(kind, mappingKindSignals(checks, rows));
    if (elsewhere.length > 0) return { problems: elsewhere };
  }
  const problems: Problem[] = [];
  const docCtx: EvalContext = {
    mapping,
    kind,
    company,
    rows: rows.map((r) => r.row),
    problems,
    ...(master === undefined ? {} : { master }),
    ...(numbers === undefined ? {} : { numbers }),
  };
  // `rows:` rules pick the document row and the line rows (row-roles.ts); without them: first row, every row
  const roles = rowRoles(mapping, rows, docCtx);
  checkConsistency(mapping, roles.consistencyRows, problems);
  const request = (evaluateNode(mapping.document, roles.documentRow, docCtx, '') ?? {}) as Record<
    string,
    unknown
  >;
  const lines: DeriveLine[] = [];
  if (mapping.lines !== undefined && mapping.linesField !== undefined) {
    const severalRates = checkLineRates(mapping, roles.lineRows, problems);
    const when = mapping.lines.type === 'object' ? mapping.lines.when : undefined;
    const whenIf = mapping.lines.type === 'object' ? mapping.lines.whenIf : undefined;
    const optional = when !== undefined || whenIf !== undefined;
    roles.lineRows.forEach((row) => {
      // `$when` on the line fields: a row without line data (an annulment note's only row) is no line.
      if (when !== undefined && when.every((column) => row.get(column).trim() === '')) return;
      if (
        whenIf !== undefined &&
        !conditionHolds(whenIf, row, { ...docCtx, rows: [row.row] }, `${mapping.linesField}.$when`)
      )
        return;
      const i = lines.length;
      const ctx: EvalContext = {
        ...docCtx,
        rows: [row.row],
        position: i + 1,
        rounded: new Map(),
      };
      const path = `${mapping.linesField}[${i}]`;
      const fields = (evaluateNode(mapping.lines!, row, ctx, path) ?? {}) as Record<
        string,
        unknown
      >;
      const inputs: Record<string, unknown> = {};
      // A cell already reported as holding several rates is not reported again as a bad number.
      for (const d of severalRates.has(row.row) ? [] : mapping.derive) {
        for (const [name, spec] of Object.entries(d.lineInputs))
          inputs[name] = evaluateValue(spec, row, ctx, `${path}(${name})`);
      }
      const line: DeriveLine = { fields, inputs, rows: [row.row] };
      for (const [at, exact] of ctx.rounded!)
        if (at.startsWith(`${path}.`)) (line.exact ??= {})[at.slice(path.length + 1)] = exact;
      lines.push(line);
    });
    if (lines.length > 0 || !optional) request[mapping.linesField] = lines.map((l) => l.fields);
  }
  const concepts =
    mapping.concepts === undefined
      ? undefined
      : applyConcepts(mapping.concepts, rows, request, docCtx);
  if (problems.length > 0) return { problems };
  for (const d of mapping.derive) {
    try {
      getDerivation(d.name)({
        request,
        lines,
        linesField: mapping.linesField ?? 'Lines',
        ctx: docCtx,
      });
    } catch (err) {
      // A sum beyond the safe range of cents: this document cannot be built, the rest of the file can.
      if (!isEdocError(err)) throw err;
      const code = /^EDOC_(MAP)_/.test(err.code) ? err.code : 'EDOC_MAP_BAD_NUMBER';
      problems.push({
        code,
        path: '',
        rows: docCtx.rows,
        message: `${d.name}: ${excerpt(err.message, 200)}`,
        ...(err.context.value === undefined ? {} : { value: excerpt(err.context.value) }),
      });
    }
  }
  if (problems.length > 0) return { problems };
  // what the mapping computed is checked before anything is sent: the default guards, then the export's own figures
  problems.push(
    ...defaultGuards(mapping, lines),
    ...reconcile(mapping, rows, request, lines, numbers),
  );
  if (problems.length > 0) return { problems };
  const place = placeFinder({
    mapping,
    request,
    documentRow: roles.documentRow.row,
    lineRows: lines.map((l) => l.rows),
    ...(concepts === undefined ? {} : { concepts }),
  });
  return { request, problems, place };
}

/** A route as a `kindCheck` entry: each listed value shows its kind. */
function routeCheck(route: Route): KindCheck {
  return {
    column: route.column,
    values: Object.fromEntries(
      Object.entries(route.values).map(([value, kind]) => [value, [kind]]),
    ),
  };
}
