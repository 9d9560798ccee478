/**
 * What the range watch last knew, kept in the state folder (`ranges.json`) so `edoc-bridge status`
 * shows it beside a running daemon without reading E10 itself: status needs no API key, and asking
 * the service from a read-only command would spend the company's rate behind the daemon's back.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
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
