/**
 * What the range watch last knew, kept in the state folder (`ranges.json`) so `edoc-bridge status`
 * shows it beside a running daemon without reading E10 itself: status needs no API key, and asking
 * the service from a read-only command would spend the company's rate behind the daemon's back.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import { delay } from '../rate/company-rate.js';
import { writeStateFile } from '../storage/state-file.js';
import type { RangeState } from './range-state.js';

export const RANGES_FILE = 'ranges.json';

export interface CompanyRead {
  company: string;
  /** When E10 was last read for it (epoch ms). */
  readAt?: number;
  /** Why the last read failed, when it did (no key, no body: a code and a reason). */
  error?: string;
  errorAt?: number;
}

export interface StoredRanges {
  savedAt: number;
  companies: CompanyRead[];
  ranges: RangeState[];
}

/** Writes the file whole (temp file, rename): a reader never sees half of it. Owner-only, like the ledger. */
export async function saveRanges(stateDir: string, data: StoredRanges): Promise<void> {
  const file = path.join(stateDir, RANGES_FILE);
  await writeStateFile(file, data);
}

/** The stored ranges, or undefined when no daemon stored any yet (or the file is not ours to read). */
export function loadRanges(stateDir: string): StoredRanges | undefined {
  try {
    const data = JSON.parse(
      readFileSync(path.join(stateDir, RANGES_FILE), 'utf8'),
    ) as Partial<StoredRanges>;
    if (
      !Array.isArray(data.ranges) ||
      !Array.isArray(data.companies) ||
      typeof data.savedAt !== 'number'
    )
      return undefined;
    return data as StoredRanges;
  } catch {
    return undefined;
  }
}

/** The shortest time between two writes of ranges.json. */
const SAVE_GAP_MS = 1000;

/**
 * Writes ranges.json, at most one write queued behind the one under way: the queued one takes the
 * states as they are when it starts, so a burst of recomputations (every company of a node touched
 * within a second) costs a write or two, not one whole-file write per company.
 */
export class RangeFileWriter {
  private saving: Promise<void> = Promise.resolve();
  /** A write waits behind the one under way (it reads the states when it starts). */
  private queued = false;
  /** When the last write began (wall clock). */
  private savedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
    /** Aborted at close: the last write goes at once. */
    private readonly closing: AbortSignal,
  ) {}

  save(stored: () => StoredRanges): void {
    if (this.queued) return;
    this.queued = true;
    this.saving = this.saving
      .then(async () => {
        // at most one write a second (the file holds every company: rewriting it for each company's
        // recomputation costs a node of hundreds of companies a whole-file write per company a second)
        const gap = this.savedAt + SAVE_GAP_MS - Date.now();
        if (gap > 0) await delay(gap, this.closing);
        this.queued = false;
        this.savedAt = Date.now();
        return saveRanges(this.dir, stored());
      })
      .catch((err: unknown) => {
        this.logger.warn(
          { err, state: this.dir },
          'could not keep the numbering ranges for edoc-bridge status',
        );
      });
  }

  /** Resolves when the writes queued so far ended. */
  saved(): Promise<void> {
    return this.saving;
  }
}
