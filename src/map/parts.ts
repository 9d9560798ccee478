/**
 * A mapping's `parts`: an export written as two files, a header file and a lines file (SAP Business
 * One's Data Transfer Workbench templates `Documents` + `Document_Lines`), joined on a key column.
 *
 * ```yaml
 * parts:
 *   header: { file: "Documents{set}.csv", key: RecordKey, headerRows: 2 }
 *   lines: { file: "Document_Lines{set}.csv", key: ParentKey, headerRows: 2 }
 *   waitMs: 600000
 * ```
 *
 * `{set}` stands for the part of the name the files of one set share (it may be empty:
 * `Documents.csv` + `Document_Lines.csv`); without it each name is matched exactly. Names are
 * compared without regard to case. `headerRows`: the first row names the columns, the rows after it
 * up to `headerRows` are header rows too (the DTW writes the database column names on row 2).
 * `waitMs`: how long one part may wait for its partner before a warning (it keeps waiting).
 */
import path from 'node:path';
import { mappingError } from './compile-node.js';
import type { Part, PartName, Parts } from './mapping-types.js';

export type { Part, PartName, Parts } from './mapping-types.js';

export const PART_NAMES: readonly PartName[] = ['header', 'lines'];

export interface PartsInput {
  header: { file: string; key: string; headerRows?: number };
  lines: { file: string; key: string; headerRows?: number };
  waitMs?: number;
}

const SET = '{set}';
const DELIMITED = new Set(['.csv', '.txt']);
export const DEFAULT_PART_WAIT_MS = 600_000;

function compileRule(file: string, where: string, rule: string): RegExp {
  if (rule.includes('/') || rule.includes('\\'))
    throw mappingError(file, where, 'a part is named by its file name only (no folder)');
  const pieces = rule.split(SET);
  if (pieces.length > 2) throw mappingError(file, where, `"${SET}" may stand once in the name`);
  if (!DELIMITED.has(path.extname(rule).toLowerCase()))
    throw mappingError(file, where, 'a part is a delimited file: its name ends in .csv or .txt');
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${pieces.map(escape).join('(.*)')}$`, 'iu');
}

export function compileParts(
  input: PartsInput | undefined,
  file: string,
  framing: { headerRow?: number; findHeader?: string[] } | undefined,
): Parts | undefined {
  if (input === undefined) return undefined;
  if (framing?.headerRow !== undefined || framing?.findHeader !== undefined)
    throw mappingError(
      file,
      'framing',
      'an export in parts finds each part’s header by parts.<part>.headerRows, not framing.headerRow / findHeader',
    );
  const part = (name: PartName): Part => {
    const p = input[name];
    return {
      file: p.file,
      key: p.key,
      headerRows: p.headerRows ?? 1,
      pattern: compileRule(file, `parts.${name}.file`, p.file),
    };
  };
  const header = part('header');
  const lines = part('lines');
  if (header.file.includes(SET) !== lines.file.includes(SET))
    throw mappingError(file, 'parts', `both part names carry "${SET}", or neither does`);
  if (header.file.toLowerCase() === lines.file.toLowerCase())
    throw mappingError(file, 'parts', 'the header and lines files need different names');
  return { header, lines, waitMs: input.waitMs ?? DEFAULT_PART_WAIT_MS };
}

/** Which part a file name is, and the set it belongs to (`{set}`'s text, '' without one); undefined: none. */
export function partOf(parts: Parts, name: string): { part: PartName; set: string } | undefined {
  for (const part of PART_NAMES) {
    const m = parts[part].pattern.exec(name);
    if (m !== null) return { part, set: m[1] ?? '' };
  }
  return undefined;
}

/** The file name of a part of a set. */
export function partFileName(parts: Parts, part: PartName, set: string): string {
  return parts[part].file.replace(SET, set);
}

/**
 * The name a set is known by (its ledger row, its result.json): the header file's name without its
 * extension, `+`, and the lines file's name: `Documents+Document_Lines.csv`, reported as
 * `Documents+Document_Lines.result.json`.
 */
export function setName(headerFile: string, linesFile: string): string {
  const header = path.basename(headerFile);
  const ext = path.extname(header);
  return `${ext.length > 0 && ext.length < header.length ? header.slice(0, -ext.length) : header}+${path.basename(linesFile)}`;
}

export interface GroupedSets {
  sets: { set: string; header: string; lines: string }[];
  /** Files that are no part, or a part whose partner is not among the files. */
  alone: { file: string; reason: 'not-a-part' | PartName }[];
}

/** The given files grouped into sets by the part rules (`edoc-bridge validate`), in the order their first part came. */
export function groupSets(parts: Parts, files: readonly string[]): GroupedSets {
  const bySet = new Map<string, Partial<Record<PartName, string>>>();
  const alone: GroupedSets['alone'] = [];
  for (const file of files) {
    const found = partOf(parts, path.basename(file));
    if (found === undefined) {
      alone.push({ file, reason: 'not-a-part' });
      continue;
    }
    const key = `${path.dirname(file)}\0${found.set.toLowerCase()}`;
    const entry = bySet.get(key) ?? {};
    entry[found.part] = file;
    bySet.set(key, entry);
  }
  const sets: GroupedSets['sets'] = [];
  for (const entry of bySet.values()) {
    if (entry.header !== undefined && entry.lines !== undefined)
      sets.push({
        set: setName(entry.header, entry.lines),
        header: entry.header,
        lines: entry.lines,
      });
    else if (entry.header !== undefined) alone.push({ file: entry.header, reason: 'header' });
    else if (entry.lines !== undefined) alone.push({ file: entry.lines, reason: 'lines' });
  }
  return { sets, alone };
}

/**
 * The two files of a set from its ledger row (its path is the header file's, its name `setName`'s),
 * or undefined for a row of one file (whose name is its path's file name).
 */
export function setFilesOfRow(row: {
  path: string;
  name: string;
}): { header: string; lines: string } | undefined {
  const header = path.basename(row.path);
  if (row.name === header) return undefined;
  const prefix = `${setName(header, '')}`;
  if (!row.name.startsWith(prefix) || row.name.length === prefix.length) return undefined;
  return {
    header: row.path,
    lines: path.join(path.dirname(row.path), row.name.slice(prefix.length)),
  };
}
