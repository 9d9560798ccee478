import type { z } from 'zod';
import { formatIssuePath } from '../service/schemas/common.js';
import { isSecretKey } from '../log/redact.js';
import { excerpt } from '../policy/excerpt.js';
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
    const next =
      def.type === 'object'
        ? def.shape?.[String(key)]
        : def.type === 'array'
          ? def.element
          : def.type === 'record'
            ? def.valueType
            : undefined;
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
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  data: unknown,
  schema: SchemaLike,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  let secrets: string[] | undefined;
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const valid = keysAt(schema, issue.path);
      secrets ??= secretValues(data);
      for (const key of issue.keys) problems.push(unknownKey(issue.path, key, valid, secrets));
      continue;
    }
    let message = issue.message.replace(/^Invalid (input|option): /, '');
    if (issue.code === 'invalid_type' && valueAt(data, issue.path) === undefined)
      message = `is required (${message.replace(/, received undefined$/, '')})`;
    problems.push({ path: formatIssuePath(issue.path), message });
  }
  return problems;
}

/** Longest unknown key name echoed; longer ones are cut (policy/excerpt.ts). */
const KEY_CHARS = 40;

/**
 * An unknown key, named where it is safe to: a key pasted in the wrong place may be an API key, so
 * one that looks like a secret (see looksLikeSecret) is described by its length only, at its parent's path.
 */
function unknownKey(
  at: readonly PathKey[],
  key: string,
  valid: readonly string[],
  secrets: readonly string[],
): ConfigProblem {
  const choices = valid.length > 0 ? `valid keys: ${valid.join(', ')}` : '';
  if (looksLikeSecret(key, secrets)) {
    return {
      path: formatIssuePath(at),
      message: `an unknown key of ${key.length} characters, not shown: it looks like a secret${choices ? ` (${choices})` : ''}`,
    };
  }
  const suggestion = closest(key, valid);
  const hint = suggestion ? `did you mean "${suggestion}"?` : choices;
  const name = excerpt(key, KEY_CHARS);
  return {
    path: formatIssuePath([...at, name]),
    message: `unknown key "${name}"${hint ? ` (${hint})` : ''}`,
  };
}

function entropyBitsPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/**
 * Setting names are short words (`requestsPerSecond`: 17 characters, 3.4 bits per character); API keys
 * are long, random, and mix letters with digits. Also any key holding a value given under a secret-named
 * key (`apiKey: …`) elsewhere in the file.
 */
export function looksLikeSecret(key: string, secrets: readonly string[] = []): boolean {
  if (key.length > KEY_CHARS) return true;
  if (secrets.some((s) => key.includes(s))) return true;
  const digits = key.replace(/\D/g, '').length;
  const letters = key.replace(/[^A-Za-z]/g, '').length;
  if (key.length >= 16 && digits >= 3 && letters >= 3) return true;
  return key.length >= 20 && entropyBitsPerChar(key) >= 4;
}

/** String values under secret-named keys anywhere in the raw data (at least 4 characters). */
function secretValues(data: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object' || depth > 12) return;
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' && item.length >= 4 && isSecretKey(key)) out.push(item);
      else walk(item, depth + 1);
    }
  };
  walk(data, 0);
  return out;
}
