/**
 * Which companies the running daemon has paused (the service refused their credentials: 401), kept in the
 * state folder (`paused.json`) so `edoc-bridge status` shows them beside the daemon with the reason and the
 * fix, as the log line and the console do. The daemon rewrites it at start, at each pause and after each
 * reload; it names its pid, so status trusts it only while that daemon holds the state folder.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeStateFile } from '../storage/state-file.js';

export const PAUSES_FILE = 'paused.json';

/** What the operator does about a paused company (the same words as the log line and the console). */
export const PAUSE_FIX =
  "fix the company's apiKey (or apiKeyFile) and id in the configuration, then reload the daemon " +
  '(systemctl reload edoc-bridge, or SIGHUP); its documents wait and are sent after the reload';

export interface CompanyPause {
  company: string;
  code: 'EDOC_SERVICE_UNAUTHORIZED';
  /** Since when (ISO 8601). */
  since: string;
  /** The service's reason, as the log line gives it. */
  reason: string;
  fix: string;
}

export interface StoredPauses {
  pid: number;
  savedAt: number;
  companies: CompanyPause[];
}

/** One company's pause as stored, from when it began and the service's reason (kept short). */
export function companyPause(company: string, since: number, reason: string): CompanyPause {
  return {
    company,
    code: 'EDOC_SERVICE_UNAUTHORIZED',
    since: new Date(since).toISOString(),
    reason: reason.slice(0, 200),
    fix: PAUSE_FIX,
  };
}

/** Writes the file whole (temp file, rename): a reader never sees half of it. Owner-only, like the ledger. */
export async function savePauses(
  stateDir: string,
  companies: readonly CompanyPause[],
  now = Date.now(),
): Promise<void> {
  const file = path.join(stateDir, PAUSES_FILE);
  const data: StoredPauses = { pid: process.pid, savedAt: now, companies: [...companies] };
  await writeStateFile(file, data);
}

/** The paused companies the daemon with this pid recorded; [] when it recorded none (or another process wrote the file). */
export function loadPauses(stateDir: string, daemonPid: number): CompanyPause[] {
  try {
    const data = JSON.parse(
      readFileSync(path.join(stateDir, PAUSES_FILE), 'utf8'),
    ) as Partial<StoredPauses>;
    return data.pid === daemonPid && Array.isArray(data.companies) ? data.companies : [];
  } catch {
    return [];
  }
}
