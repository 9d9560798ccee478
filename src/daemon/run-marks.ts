/**
 * When the last run on this state folder (a daemon or `edoc-bridge submit`; SQLite ledger) sent its last
 * request, so this run's first request of each company waits one window of its rate past it: two runs
 * back to back (a restart, a crash restarted by systemd at once, a script submitting file after file)
 * must not put two windows' requests into one second at the service.
 *
 * `state/requests.json` says `running` while a run may send and `ended` (the time its senders had drained)
 * once it stopped cleanly. A run that finds `running` follows a run that died without stopping: it sent
 * until it died, which was before this process started (a restart — by systemd, by hand — starts the
 * process after the old one is gone, and a live one would hold the state folder's lock), so this
 * process's start stands in. A cluster node does not use it (the lease row's quiet_at does this
 * between nodes).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type { AppLogger } from '../log/logger.js';
import type { CompanyRates } from '../rate/company-rate.js';

export const RUN_MARKS_FILE = 'requests.json';

interface Marks {
  running?: { pid: number; at: number };
  ended?: number;
}

function file(stateDir: string): string {
  return path.join(stateDir, RUN_MARKS_FILE);
}

/**
 * The last moment (epoch ms) a previous run on this state folder may have started a request, or undefined
 * when none ran here: its clean end, or `startedAt` (this process's start) after a run that died. A mark
 * that cannot be read (torn by a crash) counts as a run that died.
 */
export function previousRunEnd(
  stateDir: string,
  now = Date.now(),
  startedAt = performance.timeOrigin,
): number | undefined {
  let text: string;
  try {
    text = readFileSync(file(stateDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const marks = JSON.parse(text) as Marks;
    if (marks.running === undefined && typeof marks.ended === 'number')
      return Math.min(marks.ended, now);
  } catch {
    // torn: as a run that died
  }
  return Math.min(startedAt, now);
}

/** This run may send from now on. Throws when the state folder cannot be written (the caller decides). */
export function markRunning(stateDir: string, now = Date.now()): void {
  writeFileSync(file(stateDir), `${JSON.stringify({ running: { pid: process.pid, at: now } })}\n`, {
    mode: 0o600,
  });
}

/** This run's requests have all ended (its senders drained): the next run waits one window past `now`. */
export function markEnded(stateDir: string, now = Date.now()): void {
  writeFileSync(file(stateDir), `${JSON.stringify({ ended: now })}\n`, { mode: 0o600 });
}

/**
 * At a run's start: no request of any company before one window past the last run's last request on this
 * state folder, and this run marked as sending. False when the mark could not be written (a state folder
 * that cannot be written is the storage watch's to report): the next run then reads what an earlier run
 * left there, if anything, and may wait less than it should.
 */
export function followLastRun(
  stateDir: string,
  rates: Pick<CompanyRates, 'previousRun'>,
  logger: AppLogger,
): boolean {
  const last = previousRunEnd(stateDir);
  if (last !== undefined) rates.previousRun(last - Date.now());
  try {
    markRunning(stateDir);
    return true;
  } catch (err) {
    logger.warn(
      { err, state: stateDir },
      'could not mark this run in the state folder: the next run waits a rate window at its start',
    );
    return false;
  }
}
