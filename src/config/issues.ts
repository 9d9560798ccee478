import type { z } from 'zod';
import { formatIssuePath } from '../service/schemas/common.js';
import { closest } from './suggest.js';

export interface ConfigProblem {
  /** Key path such as `companies[0].rate.requestsPerSecond`; empty for the whole file. */
  path: string;
  message: string;
}

type PathKey = PropertyKey;

interface DefLike {
  type: string;
  shape?: Record<string, SchemaLike>;
  element?: SchemaLike;
  innerType?: SchemaLike;
  in?: SchemaLike;
  valueType?: SchemaLike;
}
interface SchemaLike {
  _zod: { def: unknown };
}

function unwrap(schema: SchemaLike): DefLike {
  let def = schema._zod.def as DefLike;
  for (let guard = 0; guard < 20; guard += 1) {
    const next = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!next) break;
    def = next._zod.def as DefLike;
  }
  return def;
}

/** The keys the schema accepts for the object at `path`, by walking the schema itself. */
export function keysAt(schema: SchemaLike, path: readonly PathKey[]): string[] {
  let def = unwrap(schema);
  for (const key of path) {
    const next = def.type === 'object' ? def.shape?.[String(key)]
      : def.type === 'array' ? def.element
        : def.type === 'record' ? def.valueType : undefined;
    if (!next) return [];
    def = unwrap(next);
  }
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

function valueAt(data: unknown, path: readonly PathKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * Turns zod issues into one problem per key: where (the key path) and what is
 * wrong, in words an operator can act on. Values are never echoed: one of them
 * could be an API key.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], data: unknown, schema: SchemaLike): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const valid = keysAt(schema, issue.path);
      for (const key of issue.keys) {
        const suggestion = closest(key, valid);
        const hint = suggestion ? `did you mean "${suggestion}"?` : valid.length > 0 ? `valid keys: ${valid.join(', ')}` : '';
        problems.push({ path: formatIssuePath([...issue.path, key]), message: `unknown key "${key}"${hint ? ` (${hint})` : ''}` });
      }
      continue;
    }
    let message = issue.message.replace(/^Invalid (input|option): /, '');
    if (issue.code === 'invalid_type' && valueAt(data, issue.path) === undefined) message = `is required (${message.replace(/, received undefined$/, '')})`;
    problems.push({ path: formatIssuePath(issue.path), message });
  }
  return problems;
}
