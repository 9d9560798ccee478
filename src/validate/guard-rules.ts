/**
 * Guard rules more than one kind uses (their descriptors in src/kinds/ name them). `kindGuards`
 * (kind-guards.ts) runs a kind's guards.
 */
import { arr } from './access.js';
import { problem, type Problem } from './problem.js';

export const KIND = 'EDOC_VALIDATE_KIND' as const;

/** Any character at all counts: the service may read a blank reason as "has a value". */
export function present(value: unknown): boolean {
  return typeof value === 'string' ? value.length > 0 : value !== undefined && value !== null;
}

/**
 * The spec does not say which E1/E5 fields are required, so the schemas require none; but a document
 * without a single line is no business document — an empty `{}` would otherwise be issued under the
 * company's next number. (Our own rule, documented in README "Decisions".)
 */
export function linesGuard(kind: string, r: Record<string, unknown>): Problem[] {
  const lines = arr(r.Lines);
  return lines === undefined || lines.length === 0
    ? [
        problem(
          KIND,
          'Lines',
          `A ${kind} needs at least one entry in Lines; an empty document is not sent`,
        ),
      ]
    : [];
}
