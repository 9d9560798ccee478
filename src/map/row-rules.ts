/**
 * Compiles the mapping keys that describe rows as real exports hold them: `framing` (where the header is,
 * fill-down), `rows` (skip / lines / document conditions) and `concepts` (one row per concept). Errors are
 * EDOC_MAPPING_INVALID naming file and key, like the rest of the mapping.
 */
import { compileValue, mappingError, specColumns } from './compile-node.js';
import type { CompileContext } from './compile-node.js';
import { parseFieldPath } from './concepts.js';
import type { MappingFile } from './mapping-schema.js';
import type { Concepts, Framing, Mapping, RowRoles, ValueSpec } from './mapping-types.js';
import { compileCondition } from './row-condition.js';

type RowRules = Pick<Mapping, 'framing' | 'rows' | 'concepts'>;

export function compileRowRules(
  m: MappingFile,
  file: string,
  lookups: CompileContext['lookups'],
): RowRules {
  const out: RowRules = {};
  if (m.framing !== undefined) {
    if (m.framing.headerRow !== undefined && m.framing.findHeader !== undefined) {
      throw mappingError(file, 'framing', 'give headerRow or findHeader, not both');
    }
    const framing: Framing = {};
    if (m.framing.headerRow !== undefined) framing.headerRow = m.framing.headerRow;
    if (m.framing.findHeader !== undefined) framing.findHeader = m.framing.findHeader;
    if (m.framing.fillDown !== undefined) framing.fillDown = m.framing.fillDown;
    out.framing = framing;
  }
  if (m.rows !== undefined) {
    const rows: RowRoles = {};
    for (const role of ['skip', 'lines', 'document'] as const) {
      const input = m.rows[role];
      if (input !== undefined) rows[role] = compileCondition(input, `rows.${role}`, file);
    }
    if (rows.lines !== undefined && m.lines === undefined)
      throw mappingError(file, 'rows.lines', 'the mapping has no lines section');
    out.rows = rows;
  }
  if (m.concepts !== undefined) out.concepts = compileConcepts(m.concepts, file, lookups);
  return out;
}

function compileConcepts(
  input: NonNullable<MappingFile['concepts']>,
  file: string,
  lookups: CompileContext['lookups'],
): Concepts {
  const ctx: CompileContext = { file, lookups, inLines: false };
  const codes = new Map<string, [string, ValueSpec][]>();
  const reads = new Map<string, Set<string>>();
  for (const [code, fields] of Object.entries(input.codes)) {
    const key = code.trim().toLowerCase();
    const at = `concepts.codes.${code}`;
    if (codes.has(key)) throw mappingError(file, at, `code "${code}" is listed twice`);
    const pairs: [string, ValueSpec][] = [];
    for (const [path, spec] of Object.entries(fields)) {
      if (parseFieldPath(path) === undefined) {
        throw mappingError(
          file,
          `${at}.${path}`,
          'expected a request field path such as Devengados.Basico.SueldoTrabajado or Devengados.HEDs[0].Cantidad',
        );
      }
      pairs.push([path, compileValue(spec, `${at}.${path}`, ctx)]);
    }
    if (pairs.length === 0)
      throw mappingError(
        file,
        at,
        'a code needs at least one field (list codes carried nowhere under concepts.ignore)',
      );
    codes.set(key, pairs);
    const columns = new Set<string>();
    for (const [, spec] of pairs) specColumns(spec, columns);
    reads.set(key, new Set([...columns].map((c) => c.trim().toLowerCase())));
  }
  const ignore = new Set((input.ignore ?? []).map((c) => String(c).trim().toLowerCase()));
  for (const code of ignore)
    if (codes.has(code))
      throw mappingError(file, 'concepts.ignore', `code "${code}" is both mapped and ignored`);
  return { column: input.column, codes, ignore, amounts: input.amounts ?? [], reads };
}
