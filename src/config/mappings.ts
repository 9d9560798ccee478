/**
 * Every mapping the configuration names is loaded and compiled with the
 * configuration itself (at start and on SIGHUP), so that a misspelt path or a
 * broken mapping refuses the configuration, naming the key, instead of
 * surfacing when the first file of that kind arrives.
 */
import { EdocError, isEdocError } from '../errors.js';
import { loadMapping } from '../map/load-mapping.js';
import type { Config } from './schema.js';

/** Throws EDOC_CONFIG_MAPPING for the first configured mapping that does not load (kinds in configuration order). */
export async function checkMappings(config: Pick<Config, 'kinds'>, file: string): Promise<void> {
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
      await loading;
    } catch (err) {
      const key = `kinds.${kind}.mapping`;
      const reason = isEdocError(err) ? err.message : String(err);
      throw new EdocError('EDOC_CONFIG_MAPPING', `${file}: ${key}: ${reason}`, { file, path: key, mapping }, { cause: err });
    }
  }
}
