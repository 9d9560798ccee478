import { stdSerializers } from 'pino';

export const REDACTED = '[redacted]';

/** Deeper than this, values are replaced: a secret must not hide below the limit. */
const MAX_DEPTH = 12;
const SECRET_WORDS = ['secret', 'token', 'password', 'passwd', 'apikey', 'authorization', 'cookie'];

/**
 * `x-api-key`, `apiKey`, `api_key` and every key named like a secret. Keys that
 * name a file holding one (`apiKeyFile`, `tokenFile`) are paths, not secrets.
 */
export function isSecretKey(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[-_\s]/g, '');
  if (normalized.endsWith('file') || normalized.endsWith('path')) return false;
  return SECRET_WORDS.some((word) => normalized.includes(word));
}

function isWalkable(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null || Array.isArray(value)) return true;
  // Class instances are walked like JSON.stringify would see them, unless they serialize themselves.
  return typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) value = stdSerializers.err(value);
  const obj = value as object;
  if (!isWalkable(obj)) return obj;
  if (seen.has(obj)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(obj);
  let result: unknown;
  if (Array.isArray(obj)) {
    result = obj.map((item) => walk(item, depth + 1, seen));
  } else {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(obj)) {
      copy[key] =
        isSecretKey(key) && item !== undefined && item !== null
          ? REDACTED
          : walk(item, depth + 1, seen);
    }
    result = copy;
  }
  seen.delete(obj);
  return result;
}

/** A copy of `value` with every secret-named key, at any depth, replaced by "[redacted]". Errors become plain objects. */
export function redactDeep<T>(value: T): T {
  return walk(value, 0, new WeakSet()) as T;
}
