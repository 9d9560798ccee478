/**
 * Every mapping the configuration names is loaded and compiled with the
 * configuration itself (at start and on SIGHUP), so that a misspelt path or a
 * broken mapping refuses the configuration, naming the key, instead of
 * surfacing when the first file of that kind arrives.
 */
import { EdocError, isEdocError } from '../errors.js';
import { loadMapping } from '../map/load-mapping.js';
import type { Mapping } from '../map/mapping-types.js';
import type { Config } from './schema.js';

/** Every `lookup(table, key, column)` of a mapping names a configured table and one of its columns. */
function checkMasterReferences(mapping: Mapping, tables: Config['masterData']['tables']): void {
  for (const [table, columns] of Object.entries(mapping.masterTables ?? {})) {
    const t = Object.hasOwn(tables, table) ? tables[table] : undefined;
    if (t === undefined) {
      const known = Object.keys(tables);
      throw new EdocError(
        'EDOC_MAPPING_INVALID',
        `Mapping ${mapping.file}: lookup() reads master table "${table}", which is not configured ` +
          `under masterData.tables (${known.length === 0 ? 'none is' : `configured: ${known.join(', ')}`})`,
        { file: mapping.file },
      );
    }
    for (const column of columns) {
      if (column !== t.key && !t.columns.includes(column)) {
        throw new EdocError(
          'EDOC_MAPPING_INVALID',
          `Mapping ${mapping.file}: lookup() reads column "${column}" of master table "${table}", ` +
            `which masterData.tables.${table}.columns does not list (${[t.key, ...t.columns].join(', ')})`,
          { file: mapping.file },
        );
      }
    }
  }
}

/**
 * Every kind a mapping's `route` sends documents as is enabled: a disabled kind is one this installation
 * does not send (issued elsewhere, or not at all), so a routed document of that kind must not go either.
 */
function checkRoutedKinds(mapping: Mapping, kinds: Config['kinds']): void {
  if (mapping.route === undefined) return;
  for (const value of mapping.route.listed) {
    const kind = mapping.route.values[value.toLowerCase()];
    if (kind !== undefined && !kinds[kind].enabled) {
      throw new EdocError(
        'EDOC_MAPPING_INVALID',
        `Mapping ${mapping.file}: route sends "${value}" documents as ${kind}, which is not enabled ` +
          `(kinds.${kind}.enabled: false): enable it, or leave "${value}" out of route.values ` +
          '(such documents are then refused, EDOC_MAP_ROUTE)',
        { file: mapping.file },
      );
    }
  }
}

/** Throws EDOC_CONFIG_MAPPING for the first configured mapping that does not load (kinds in configuration order). */
export async function checkMappings(
  config: Pick<Config, 'kinds'> & Partial<Pick<Config, 'masterData'>>,
  file: string,
): Promise<void> {
  const checked = new Map<string, Promise<unknown>>();
  for (const [kind, settings] of Object.entries(config.kinds) as [string, { mapping?: string }][]) {
    const mapping = settings.mapping;
    if (mapping === undefined) continue;
    let loading = checked.get(mapping);
    if (loading === undefined) {
      loading = loadMapping(mapping);
      checked.set(mapping, loading);
    }
    try {
      checkMasterReferences((await loading) as Mapping, config.masterData?.tables ?? {});
      if ((settings as { enabled?: boolean }).enabled !== false)
        checkRoutedKinds((await loading) as Mapping, config.kinds);
    } catch (err) {
      const key = `kinds.${kind}.mapping`;
      const reason = isEdocError(err) ? err.message : String(err);
      throw new EdocError(
        'EDOC_CONFIG_MAPPING',
        `${file}: ${key}: ${reason}`,
        { file, path: key, mapping },
        { cause: err },
      );
    }
  }
}
