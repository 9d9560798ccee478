/**
 * Loads a mapping YAML file: parse, check against the mapping schema, compile
 * the field trees. Every error is EDOC_MAPPING_INVALID naming file and key.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { EdocError } from '../errors.js';
import { compileNode, compileValue, mappingError } from './compile-node.js';
import { compileDatePattern } from './convert-date.js';
import { masterReferences } from './master-tables.js';
import type { CompileContext } from './compile-node.js';
import { isKnownDerivation } from './derive/registry.js';
import { compileKindCheck } from './kind-check.js';
import { compileGuards, compileReconcile } from './guards/compile-guards.js';
import { mappingFileSchema } from './mapping-schema.js';
import { compileRoute } from './route-kind.js';
import { compileParts } from './parts.js';
import { compileRowRules } from './row-rules.js';
import { objectColonHint, valueAt, yamlColonHint } from './yaml-hint.js';
import type { Derive, Mapping, MappingFormat } from './mapping-types.js';

const ENCODINGS: Record<string, MappingFormat['encoding']> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  latin1: 'latin1',
  'iso-8859-1': 'latin1',
  auto: 'auto',
};

export async function loadMapping(path: string): Promise<Mapping> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new EdocError(
      'EDOC_MAPPING_INVALID',
      `Mapping ${path} cannot be read: ${(err as Error).message}`,
      { file: path },
      { cause: err },
    );
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    const at = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw mappingError(
      path,
      '',
      `not valid YAML: ${(err as Error).message}${yamlColonHint(text, at?.line, at?.col)}`,
    );
  }
  return compileMapping(data, path);
}

/** Checks and compiles mapping data already parsed from YAML (also used by tests). */
export function compileMapping(data: unknown, file: string): Mapping {
  const parsed = mappingFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw mappingError(
      file,
      issue.path.map(String).join('.'),
      `${issue.message}${objectColonHint(valueAt(data, issue.path))}`,
    );
  }
  const m = parsed.data;
  try {
    compileDatePattern(m.format.date);
  } catch (err) {
    throw mappingError(file, 'format.date', (err as Error).message);
  }
  const lookups: Record<string, Record<string, string>> = {};
  for (const [name, table] of Object.entries(m.lookups)) {
    lookups[name] = Object.fromEntries(
      Object.entries(table).map(([k, v]) => [k.trim().toLowerCase(), String(v)]),
    );
  }
  const docCtx: CompileContext = { file, lookups, inLines: false };
  const lineCtx: CompileContext = { file, lookups, inLines: true };
  const key = (Array.isArray(m.key[0]) ? m.key : [m.key]) as string[][];
  const derive: Derive[] = [];
  const deriveList = m.derive === undefined ? [] : Array.isArray(m.derive) ? m.derive : [m.derive];
  deriveList.forEach((d, i) => {
    const name = typeof d === 'string' ? d : d.name;
    if (!isKnownDerivation(name))
      throw mappingError(file, `derive[${i}]`, `unknown derivation "${name}"`);
    const inputs = typeof d === 'string' ? {} : (d.inputs ?? {});
    const lineInputs = Object.fromEntries(
      Object.entries(inputs).map(([input, spec]) => [
        input,
        compileValue(spec, `derive[${i}].inputs.${input}`, lineCtx),
      ]),
    );
    derive.push({ name, lineInputs });
  });
  const mapping: Mapping = {
    file,
    name: m.name,
    kinds: m.kinds,
    format: {
      delimiter: m.format.delimiter === 'tab' ? '\t' : m.format.delimiter,
      encoding: ENCODINGS[m.format.encoding],
      decimal: m.format.decimal,
      thousands: m.format.thousands,
      date: m.format.date,
      ...(m.format.sheet === undefined ? {} : { sheet: m.format.sheet }),
      ...(m.format.threeDecimals === undefined ? {} : { threeDecimals: m.format.threeDecimals }),
    },
    key,
    ...(m.keyRepeats ? { keyRepeats: true as const } : {}),
    lookups,
    document: compileNode(m.document, 'document', docCtx),
    derive,
    guards: compileGuards(m.guards),
  };
  Object.assign(mapping, compileRowRules(m, file, lookups));
  const reconcile = compileReconcile(m.reconcile);
  if (reconcile !== undefined) mapping.reconcile = reconcile;
  const kindCheck = compileKindCheck(m.kindCheck, file);
  if (kindCheck !== undefined) mapping.kindCheck = kindCheck;
  const route = compileRoute(m.route, m.kinds, file);
  if (route !== undefined) mapping.route = route;
  const parts = compileParts(m.parts, file, m.framing);
  if (parts !== undefined) mapping.parts = parts;
  if (m.lines !== undefined) {
    mapping.linesField = m.lines.field;
    mapping.lines = compileNode(m.lines.fields, 'lines.fields', lineCtx);
    if (m.lines.key !== undefined) mapping.lineKey = m.lines.key;
  }
  const master = masterReferences(mapping);
  if (Object.keys(master).length > 0) mapping.masterTables = master;
  return Object.freeze(mapping);
}
