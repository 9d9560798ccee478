/**
 * Walks a compiled field tree on one row. Empty values, objects and lists are
 * left out of the request, so an optional column that is absent or empty never
 * produces a `""` field.
 */
import type { MappingNode } from './mapping-types.js';
import { evaluateValue } from './evaluate-value.js';
import type { EvalContext, RowView } from './eval-context.js';
import { conditionHolds } from './row-roles.js';

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function evaluateNode(
  node: MappingNode,
  row: RowView,
  ctx: EvalContext,
  path: string,
): unknown {
  if (node.type === 'value') return evaluateValue(node.spec, row, ctx, path);
  if (node.type === 'array') {
    const items = node.items
      .map((item, i) => evaluateNode(item, row, ctx, `${path}[${i}]`))
      .filter(isPresent);
    return items.length === 0 ? undefined : items;
  }
  if (node.kinds !== undefined && !node.kinds.includes(ctx.kind)) return undefined;
  if (node.when !== undefined && node.when.every((column) => row.get(column).trim() === ''))
    return undefined;
  if (node.whenIf !== undefined && !conditionHolds(node.whenIf, row, ctx, `${path}.$when`))
    return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, child] of node.entries) {
    const value = evaluateNode(child, row, ctx, path === '' ? name : `${path}.${name}`);
    if (isPresent(value)) out[name] = value;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
