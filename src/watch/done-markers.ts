/**
 * The done-marker convention (Camel's `doneFileName`): an exporter writes the
 * data file, then an empty marker beside it (`ventas.csv.done`, or `ventas.done`
 * with `replaceExtension`); the data file is complete once its marker exists.
 * A marker is never an input. Configured in `watch.doneMarker`; off while it
 * has no suffixes.
 */
import path from 'node:path';
import { readdir } from 'node:fs/promises';
import { lstatOrGone } from './file-identity.js';
import { isHiddenName, isStagingName } from './file-names.js';

export interface DoneMarkerOptions {
  /** e.g. `['.done', '.ok']`; empty: the convention is off. @defaultValue [] */
  suffixes: readonly string[];
  /** `NAME.done` instead of `NAME.ext.done`. @defaultValue false */
  replaceExtension: boolean;
}

function stemOf(name: string): string {
  const ext = path.extname(name);
  return ext === '' ? name : name.slice(0, -ext.length);
}

export class DoneMarkers {
  private readonly suffixes: string[];

  constructor(
    private readonly options: DoneMarkerOptions = { suffixes: [], replaceExtension: false },
  ) {
    this.suffixes = options.suffixes.map((s) => s.toLowerCase());
  }

  get enabled(): boolean {
    return this.suffixes.length > 0;
  }

  private suffixOf(file: string): string | undefined {
    const lower = path.basename(file).toLowerCase();
    return this.suffixes.find((s) => lower.endsWith(s) && lower.length > s.length);
  }

  isMarker(file: string): boolean {
    return this.enabled && this.suffixOf(file) !== undefined;
  }

  /** The first marker of `file` that exists, or undefined. */
  async markerOf(file: string): Promise<string | undefined> {
    const base = this.options.replaceExtension ? stemOf(path.basename(file)) : path.basename(file);
    for (const suffix of this.options.suffixes) {
      const marker = path.join(path.dirname(file), `${base}${suffix}`);
      if ((await lstatOrGone(marker))?.isFile() === true) return marker;
    }
    return undefined;
  }

  /** The data files a marker stands for that exist now (regular files, not markers, hidden or staging names). */
  async dataFilesOf(marker: string): Promise<string[]> {
    const suffix = this.suffixOf(marker);
    if (suffix === undefined) return [];
    const dir = path.dirname(marker);
    const name = path.basename(marker).slice(0, -suffix.length);
    const candidates = this.options.replaceExtension
      ? (await readdir(dir).catch(() => [] as string[])).filter(
          (n) => n !== path.basename(marker) && stemOf(n) === name,
        )
      : [name];
    const out: string[] = [];
    for (const n of candidates) {
      const file = path.join(dir, n);
      if (isHiddenName(file) || isStagingName(file) || this.isMarker(file)) continue;
      if ((await lstatOrGone(file))?.isFile() === true) out.push(file);
    }
    return out;
  }
}
