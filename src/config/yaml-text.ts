/**
 * The configuration file's text as data: every way the YAML can fail to give a plain tree is one
 * EDOC_CONFIG_INVALID naming the file (exit 2, which the systemd unit does not restart), never a
 * library's bare exception (exit 1, restarted in a loop): a syntax error, an alias bomb (more alias
 * expansions than MAX_ALIAS_COUNT allows), an alias that refers to itself (a cycle no setting can
 * be), nesting deeper than the parser's stack, a file too big to be a configuration.
 */
import { parseDocument } from 'yaml';
import { EdocError } from '../errors.js';
import { excerpt } from '../policy/excerpt.js';

/** A configuration with a thousand companies is about 300 KB. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/**
 * The bound on alias expansions (the yaml library counts each use of an anchor times the aliases inside it).
 * Its default of 100 refused a provider's 101st company sharing `rate: *r`; 5,000 takes a thousand companies
 * with a few shared anchors each and still refuses the "billion laughs" (test/config/unparsable.test.ts).
 */
const MAX_ALIAS_COUNT = 5_000;
/** Deeper than any setting (companies[0].rate.requestsPerSecond is 4). */
const MAX_DEPTH = 64;

function invalid(file: string, why: string, extra: Record<string, unknown> = {}): EdocError {
  return new EdocError(
    'EDOC_CONFIG_INVALID',
    `${file}${extra.line === undefined ? '' : `:${String(extra.line)}`}: not valid YAML: ${why}`,
    { file, ...extra },
  );
}

/** Refuses a file over MAX_CONFIG_BYTES before it is read. */
export function checkConfigSize(file: string, bytes: number): void {
  if (bytes > MAX_CONFIG_BYTES) {
    throw new EdocError(
      'EDOC_CONFIG_INVALID',
      `${file}: is ${bytes} bytes; a configuration file is at most ${MAX_CONFIG_BYTES} bytes (is this the right file?)`,
      { file, bytes },
    );
  }
}

/** The YAML text as plain data (merge keys resolved); EDOC_CONFIG_INVALID naming `file` when it is not. */
export function parseConfigYaml(text: string, file: string): unknown {
  checkConfigSize(file, Buffer.byteLength(text, 'utf8'));
  if (text.includes('\u0000'))
    throw invalid(file, 'the file holds binary data (NUL bytes), not text');
  const depth = flowDepth(text);
  if (depth.line !== undefined)
    throw invalid(file, `brackets nested more than ${MAX_DEPTH} levels deep`, { line: depth.line });
  let data: unknown;
  try {
    // Merge keys (`<<: *defaults`) let several companies share settings through an anchor.
    const doc = parseDocument(text, { merge: true });
    if (doc.errors.length > 0) {
      const first = doc.errors[0];
      const what = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      const line = first.linePos?.[0].line;
      throw new EdocError(
        'EDOC_CONFIG_INVALID',
        `${file}${first.linePos ? `:${line}:${first.linePos[0].col}` : ''}: not valid YAML: ${what}`,
        { file, line },
      );
    }
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    if (err instanceof EdocError) throw err;
    if (err instanceof ReferenceError && /alias/i.test(err.message)) {
      throw invalid(
        file,
        `aliases expand to too much data (more than ${MAX_ALIAS_COUNT} alias expansions): an alias bomb?`,
      );
    }
    if (err instanceof RangeError) throw invalid(file, 'nested too deeply');
    throw invalid(
      file,
      err instanceof Error ? err.message.split('\n')[0].slice(0, 120) : 'cannot be parsed',
    );
  }
  checkTree(data, file);
  return data;
}

/** An alias may not contain itself (a cycle), and nesting stays within MAX_DEPTH. */
function checkTree(data: unknown, file: string): void {
  const ancestors = new Set<object>();
  const walk = (value: unknown, where: string, depth: number): void => {
    if (value === null || typeof value !== 'object') return;
    if (ancestors.has(value))
      throw invalid(
        file,
        `${where || 'the top level'}: an alias refers to a node that contains it (a cycle)`,
        { path: where },
      );
    if (depth > MAX_DEPTH)
      throw invalid(file, `${where}: nested more than ${MAX_DEPTH} levels deep`, { path: where });
    ancestors.add(value);
    if (value instanceof Map || value instanceof Set)
      throw invalid(file, `${where}: a complex mapping key is not a setting`, { path: where });
    for (const [key, item] of Object.entries(value)) {
      // a key is the file's own text: shown short, like every quoted value
      const name = excerpt(key, 40);
      walk(
        item,
        Array.isArray(value) ? `${where}[${key}]` : where === '' ? name : `${where}.${name}`,
        depth + 1,
      );
    }
    ancestors.delete(value);
  };
  walk(data, '', 0);
}

/**
 * The first line where `[` and `{` nest past MAX_DEPTH, outside quotes and comments; checked before
 * the parser sees the text: 100,000 brackets exhaust its stack and, under load, the regular
 * expression memory of the process (a fatal error no catch can stop).
 */
function flowDepth(text: string): { line?: number } {
  let depth = 0;
  let line = 1;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\n') {
      line += 1;
      if (quote === "'") continue;
    }
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end - 1;
    } else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > MAX_DEPTH) return { line };
    } else if ((c === ']' || c === '}') && depth > 0) depth -= 1;
  }
  return {};
}
