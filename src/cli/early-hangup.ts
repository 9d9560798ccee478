/**
 * A hold on SIGHUP for `run`, taken by bin/edoc-bridge.js before the program loads (so this file imports
 * only command-name.ts, which imports nothing).
 *
 * Loading the program takes some hundreds of milliseconds on a loaded machine (a measured 650–880 ms),
 * and until `run` listens for SIGHUP, the signal's default action ends the process: silently, with an
 * empty log, and systemd counts a death by SIGHUP as a clean exit, so `Restart=on-failure` does not
 * start it again. logrotate's `systemctl reload` after a rotation is such a SIGHUP. Held here, a
 * hangup that comes meanwhile is counted, and `run` reloads once it has started (the configuration
 * may have been read before the signal).
 */
import { splitCommand } from './command-name.js';

let early = 0;
const count = (): void => {
  early += 1;
};

/** bin/edoc-bridge.js, first thing: for `run`, a SIGHUP before run's own handler is counted, not fatal. */
export function holdEarlyHangups(argv: readonly string[]): void {
  if (splitCommand(argv).name === 'run') process.on('SIGHUP', count);
}

/** `run`, once its own handler listens: how many hangups came before it (the hold ends here). */
export function takeEarlyHangups(): number {
  process.off('SIGHUP', count);
  const n = early;
  early = 0;
  return n;
}
