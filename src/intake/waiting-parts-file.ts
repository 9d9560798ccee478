/**
 * The parts of exports in two files that wait longer than their mapping's `parts.waitMs` for their
 * partner (intake/part-sets.ts), kept in the state folder (`waiting-parts.json`) so `edoc-bridge
 * status` lists them beside the daemon. Written whole when the list changes; it names the daemon's
 * pid, so status trusts it only while that daemon holds the state folder.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeStateFile } from '../storage/state-file.js';

export const WAITING_PARTS_FILE = 'waiting-parts.json';

export interface StoredWaitingPart {
  company: string;
  kind: string;
  /** The part's file name. */
  file: string;
  /** The part it waits for: `header` or `lines`. */
  waitsFor: string;
  /** Since when (ISO 8601). */
  since: string;
}

interface Stored {
  pid: number;
  parts: StoredWaitingPart[];
}

export async function saveWaitingParts(
  stateDir: string,
  parts: readonly StoredWaitingPart[],
): Promise<void> {
  const file = path.join(stateDir, WAITING_PARTS_FILE);
  const data: Stored = { pid: process.pid, parts: [...parts] };
  await writeStateFile(file, data);
}

/** What the daemon with this pid recorded; [] when nothing (or another process wrote the file). */
export function loadWaitingParts(stateDir: string, daemonPid: number): StoredWaitingPart[] {
  try {
    const data = JSON.parse(
      readFileSync(path.join(stateDir, WAITING_PARTS_FILE), 'utf8'),
    ) as Partial<Stored>;
    return data.pid === daemonPid && Array.isArray(data.parts) ? data.parts : [];
  } catch {
    return [];
  }
}
