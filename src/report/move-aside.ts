/**
 * The same input name dropped again once the earlier file finished reuses its outbox names (ERPs
 * reuse daily names). Before the new file's first report is written there, the earlier file's report
 * set moves to the archive beside its original — `archive/<archived original's name>.result.json`,
 * `.errors.csv`, `.retry.<ext>` — byte for byte, never overwriting anything, and the ledger records
 * the new place, where later rewrites of that report (resolve, retry) go. Order: hard links in the
 * archive (here), then the ledger (the caller, src/daemon/file-reports.ts); the new report then takes
 * the outbox names (renamed over them, a companion it does not have removed), so a reader never finds
 * NAME.result.json missing. A crash between any two steps is repaired by running it again (links to
 * the very same files count as done).
 */
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import type { FileRow } from '../ledger/types.js';
import { placeExclusive } from './archive.js';
import { fsyncDir } from './atomic-write.js';
import { outputNames, sanitizeName } from '../policy/outbox-names.js';

/** The stem of a moved-aside report set: its original's archived name, else its name and finishing time. */
function asideStem(file: FileRow): string {
  if (file.archivedPath !== null && file.archivedPath !== '')
    return sanitizeName(path.basename(file.archivedPath));
  const at = new Date(file.finishedAt ?? file.startedAt)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `${file.reportName}.${at}`;
}

function outputPaths(dir: string, stem: string, inputName: string): string[] {
  const names = outputNames(stem, inputName);
  return [names.result, names.errors, names.retry].map((n) => path.join(dir, n));
}

async function statOrUndefined(file: string): Promise<fs.Stats | undefined> {
  try {
    return await fsp.lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Each destination is absent, or already a link to its source (a run that died half-way). */
async function free(
  dests: readonly string[],
  sources: readonly (fs.Stats | undefined)[],
): Promise<boolean> {
  for (const [i, dest] of dests.entries()) {
    const there = await statOrUndefined(dest);
    const src = sources[i];
    if (
      there !== undefined &&
      (src === undefined || there.ino !== src.ino || there.dev !== src.dev)
    )
      return false;
  }
  return true;
}

/** Where a moved-aside report set now lives: `<archiveDir>/<stem>.result.json` and companions. */
export interface ReportPlace {
  archiveDir: string;
  stem: string;
}

/**
 * Links the report set of `holder` (an earlier file holding outbox names in `outboxDir`) into
 * `<outboxDir>/archive/` under the first free stem, and returns that place for the caller to record
 * before it writes the new report. `withFiles` false: only a new place is needed (an older holder,
 * whose files were replaced before). `placeTaken` asks the ledger whether another report set was
 * recorded at a stem already.
 */
export async function moveReportSetAside(
  holder: FileRow,
  outboxDir: string,
  withFiles: boolean,
  placeTaken: (archiveDir: string, stem: string) => boolean | Promise<boolean>,
): Promise<ReportPlace> {
  const archiveDir = path.join(outboxDir, 'archive');
  const sources = outputPaths(outboxDir, holder.reportName, holder.name);
  const stats = withFiles
    ? await Promise.all(sources.map(statOrUndefined))
    : sources.map(() => undefined);
  await fsp.mkdir(archiveDir, { recursive: true });
  const base = asideStem(holder);
  for (let n = 1; n < 10_000; n++) {
    const stem = n === 1 ? base : `${base} (${n})`;
    if (await placeTaken(archiveDir, stem)) continue;
    const dests = outputPaths(archiveDir, stem, holder.name);
    if (!(await free(dests, stats))) continue;
    let placed = true;
    for (const [i, src] of stats.entries()) {
      if (src !== undefined && !(await placeExclusive(sources[i], dests[i], src))) placed = false;
    }
    if (!placed) continue; // something appeared there meanwhile: the next name
    await fsyncDir(archiveDir);
    return { archiveDir, stem };
  }
  throw new EdocError(
    'EDOC_REPORT_WRITE',
    `No free archive name for the report ${base}.result.json in ${archiveDir}.`,
    { file: holder.name, archiveDir },
  );
}

/** A failure to move `holder`'s report set, as EDOC_REPORT_WRITE (an EdocError passes through). */
export function moveAsideError(holder: FileRow, err: unknown): EdocError {
  if (err instanceof EdocError) return err;
  return new EdocError(
    'EDOC_REPORT_WRITE',
    `Could not move the earlier report ${holder.reportName}.result.json to the archive: ` +
      `${(err as Error).message}`,
    { file: holder.name, errno: (err as NodeJS.ErrnoException).code },
    { cause: err },
  );
}
