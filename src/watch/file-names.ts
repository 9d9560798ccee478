/**
 * Which names in an inbox folder are never documents. Hidden files (editors,
 * rsync and sync clients write their temporaries as dot files) and the
 * `*.part` / `*.tmp` staging names an exporter writes before renaming the
 * finished file into place.
 */
import path from 'node:path';

const STAGING_SUFFIXES = ['.part', '.tmp'] as const;

export function isHiddenName(file: string): boolean {
  return path.basename(file).startsWith('.');
}

export function isStagingName(file: string): boolean {
  const lower = file.toLowerCase();
  return STAGING_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** `x.json.part` -> `x.json`; a name without a staging suffix is returned as is. */
export function withoutStagingSuffix(file: string): string {
  const lower = file.toLowerCase();
  for (const suffix of STAGING_SUFFIXES) {
    if (lower.endsWith(suffix)) return file.slice(0, file.length - suffix.length);
  }
  return file;
}
