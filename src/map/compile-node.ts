/**
 * Turns the YAML field trees into `MappingNode`s, checking every node and
 * naming the exact key path in errors (`document.CustomerParty.Name.as`).
 */
import { EdocError } from '../errors.js';
import type { MappingNode, ValueSpec } from './mapping-types.js';
import { VALUE_SOURCE_KEYS, valueSpecSchema } from './mapping-schema.js';
import type { DocumentKind } from '../kinds/index.js';
import { compileCondition, conditionColumns } from './row-condition.js';
import { objectColonHint } from './yaml-hint.js';
import { compileValueParts } from './compile-value-parts.js';
import { expressionColumns } from './expr/parse-expression.js';

export interface CompileContext {
  file: string;
  lookups: Record<string, Record<string, string>>;
  /** Line trees allow `position`; document trees do not. */
  inLines: boolean;
}

export function mappingError(file: string, path: string, message: string): EdocError {
  return new EdocError(
    'EDOC_MAPPING_INVALID',
    `Mapping ${file}: ${path === '' ? '' : `${path}: `}${message}`,
    { file, field: path },
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValueSpecInput(value: Record<string, unknown>): boolean {
  return VALUE_SOURCE_KEYS.some((k) => k in value);
}

function toList(value: unknown, path: string, ctx: CompileContext): string[] {
  if (typeof value === 'string' && value !== '') return [value];
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => typeof v === 'string' && v !== '')
  )
    return value as string[];
  throw mappingError(
    ctx.file,
    path,
    `expected a name or a non-empty list of names${objectColonHint(value)}`,
  );
}

export function compileValue(
  input: unknown,
  path: string,
  ctx: CompileContext,
  asDefault = false,
): ValueSpec {
  if (typeof input === 'string' || typeof input === 'number') {
    // A bare string is a column reference, except as a default where it is a constant.
    return asDefault
      ? { const: String(input), as: 'text', required: false }
      : { column: String(input), as: 'text', required: false };
  }
  if (!isPlainObject(input))
    throw mappingError(ctx.file, path, 'expected a column name or a value spec');
  const parsed = valueSpecSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = [path, ...issue.path.map(String)].filter((p) => p !== '').join('.');
    throw mappingError(ctx.file, where, issue.message);
  }
  const v = parsed.data;
  const sources = VALUE_SOURCE_KEYS.filter((k) => v[k] !== undefined);
  if (sources.length !== 1) {
    throw mappingError(
      ctx.file,
      path,
      `a value takes exactly one of ${VALUE_SOURCE_KEYS.join(', ')} (found ${sources.join(', ') || 'none'})`,
    );
  }
  if (v.position === true && !ctx.inLines)
    throw mappingError(ctx.file, `${path}.position`, 'position is only available in line fields');
  if (v.lookup !== undefined && ctx.lookups[v.lookup] === undefined) {
    throw mappingError(
      ctx.file,
      `${path}.lookup`,
      `no lookup table named "${v.lookup}" under lookups`,
    );
  }
  if (v.time !== undefined && v.as !== 'datetime')
    throw mappingError(ctx.file, `${path}.time`, 'time is only allowed with as: datetime');
  const spec: ValueSpec = { as: v.as ?? 'text', required: v.required ?? false };
  if (v.column !== undefined) spec.column = v.column;
  if (v.const !== undefined) spec.const = String(v.const);
  if (v.company !== undefined) spec.company = v.company;
  if (v.position !== undefined) spec.position = true;
  if (v.concat !== undefined)
    spec.concat = v.concat.map((item, i) => compileValue(item, `${path}.concat[${i}]`, ctx, false));
  if (v.separator !== undefined) spec.separator = v.separator;
  if (v.time !== undefined) spec.time = v.time;
  if (v.lookup !== undefined) spec.lookup = v.lookup;
  if (v.kinds !== undefined) spec.kinds = v.kinds;
  if (v.default !== undefined) spec.default = compileValue(v.default, `${path}.default`, ctx, true);
  compileValueParts(v, spec, path, (key, message) => mappingError(ctx.file, key, message));
  return spec;
}

export function compileNode(input: unknown, path: string, ctx: CompileContext): MappingNode {
  if (Array.isArray(input)) {
    if (input.length === 0) throw mappingError(ctx.file, path, 'an empty list produces nothing');
    return {
      type: 'array',
      items: input.map((item, i) => compileNode(item, `${path}[${i}]`, ctx)),
    };
  }
  if (isPlainObject(input) && !isValueSpecInput(input)) {
    const node: MappingNode = { type: 'object', entries: [] };
    for (const [name, child] of Object.entries(input)) {
      const childPath = path === '' ? name : `${path}.${name}`;
      // `$when: { column: horas, nonZero: true }`: a condition (row-condition.ts) instead of a list of columns
      if (name === '$when' && isPlainObject(child))
        node.whenIf = compileCondition(child, childPath, ctx.file);
      else if (name === '$when') node.when = toList(child, childPath, ctx);
      else if (name === '$kinds') node.kinds = toList(child, childPath, ctx);
      else if (name.startsWith('$'))
        throw mappingError(ctx.file, childPath, 'unknown directive (use $when or $kinds)');
      else node.entries.push([name, compileNode(child, childPath, ctx)]);
    }
    if (node.entries.length === 0)
      throw mappingError(ctx.file, path, 'an object needs at least one field');
    return node;
  }
  return { type: 'value', spec: compileValue(input, path, ctx) };
}

/** Every column a node reads (for header checks and the consistency check of document fields). */
export function columnsOf(node: MappingNode, out: Set<string> = new Set()): Set<string> {
  if (node.type === 'value') specColumns(node.spec, out);
  else if (node.type === 'array') for (const item of node.items) columnsOf(item, out);
  else {
    for (const c of node.when ?? []) out.add(c);
    if (node.whenIf !== undefined) conditionColumns(node.whenIf, out);
    for (const [, child] of node.entries) columnsOf(child, out);
  }
  return out;
}

export function specColumns(spec: ValueSpec, out: Set<string>): Set<string> {
  if (spec.column !== undefined) out.add(spec.column);
  if (spec.time !== undefined) out.add(spec.time);
  if (spec.expr !== undefined) expressionColumns(spec.expr, out);
  for (const part of spec.concat ?? []) specColumns(part, out);
  if (spec.default !== undefined) specColumns(spec.default, out);
  return out;
}

/** Columns that must be in the header for `kind`: columns of required values without a default. */
export function requiredColumnsOf(
  node: MappingNode,
  kind: DocumentKind,
  out: Set<string> = new Set(),
): Set<string> {
  if (node.type === 'value') {
    const s = node.spec;
    if (
      s.required &&
      s.default === undefined &&
      (s.kinds === undefined || s.kinds.includes(kind)) &&
      s.column !== undefined
    )
      out.add(s.column);
  } else if (node.type === 'array') {
    for (const item of node.items) requiredColumnsOf(item, kind, out);
  } else if (
    (node.kinds === undefined || node.kinds.includes(kind)) &&
    node.when === undefined &&
    node.whenIf === undefined
  ) {
    for (const [, child] of node.entries) requiredColumnsOf(child, kind, out);
  }
  return out;
}

/**
 * Columns an expression names, in the values that apply to `kind` and have no default: the header must
 * hold them, since a missing column reads as blank and `coalesce([Valor Descuentos], 0)` with a misspelt
 * name would be a discount silently left out.
 */
export function expressionColumnsOf(
  node: MappingNode,
  kind: DocumentKind,
  out: Set<string> = new Set(),
): Set<string> {
  if (node.type === 'value') {
    const s = node.spec;
    if (
      s.expr !== undefined &&
      s.default === undefined &&
      (s.kinds === undefined || s.kinds.includes(kind))
    )
      expressionColumns(s.expr, out);
  } else if (node.type === 'array') {
    for (const item of node.items) expressionColumnsOf(item, kind, out);
  } else if (node.kinds === undefined || node.kinds.includes(kind)) {
    for (const [, child] of node.entries) expressionColumnsOf(child, kind, out);
  }
  return out;
}
