/**
 * Which names in an inbox folder are never documents. Hidden files (editors,
 * rsync and sync clients write their temporaries as dot files; Excel its `~$` owner files) and the
 * `*.part` / `*.tmp` staging names an exporter writes before renaming the
 * finished file into place.
 */
import path from 'node:path';

const STAGING_SUFFIXES = ['.part', '.tmp'] as const;

/** Dot files, and `~$Libro.xlsx`: the owner file Excel keeps beside a workbook open in a shared folder. */
export function isHiddenName(file: string): boolean {
  const base = path.basename(file);
  return base.startsWith('.') || base.startsWith('~$');
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
