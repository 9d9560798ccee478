/**
 * The mappings the intake maps with, each file loaded once and shared by every kind that names it; a load
 * that failed is forgotten (the next file tries again), and a reload clears them all.
 */
import type { Config } from '../config/schema.js';
import type { DocumentKind } from '../kinds/index.js';
import { loadMapping } from '../map/load-mapping.js';
import type { Mapping } from '../map/mapping-types.js';

export class MappingCache {
  private readonly loaded = new Map<string, Promise<Mapping>>();

  /** The kind's mapping in `config`; undefined when the kind has none (JSON input only). */
  of(config: Readonly<Config>, kind: DocumentKind): Promise<Mapping | undefined> {
    const file = config.kinds[kind].mapping;
    if (file === undefined) return Promise.resolve(undefined);
    let loading = this.loaded.get(file);
    if (!loading) {
      loading = loadMapping(file);
      this.loaded.set(file, loading);
      loading.catch(() => this.loaded.delete(file));
    }
    return loading;
  }

  clear(): void {
    this.loaded.clear();
  }
}
