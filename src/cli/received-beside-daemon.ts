/**
 * `edoc-bridge received pull` while a daemon holds the state folder: the pull goes through the daemon, so
 * its requests take the company's one rate (the daemon's) and its cursor and files have one writer. The
 * daemon pulls every company at once from its saved cursor on SIGHUP (as on a reload); this command asks
 * for that, waits until the daemon recorded a newer pull for each company asked for, and prints it.
 * A window (--from/--to) cannot be handed over: one line says what to do instead.
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import type { LedgerPort } from '../ledger/port.js';
import type { CliIO } from './command.js';
import { pullSummary } from './commands/status.js';
import { openShared } from './document-match.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from './exit-codes.js';

/** How long to wait for the daemon's pulls (a backlog of pages takes a while). */
const WAIT_MS = 120_000;
const POLL_MS = 250;

async function lastPulls(
  ledger: LedgerPort | undefined,
): Promise<Map<string, { at: number; data: unknown }>> {
  const summary = ledger === undefined ? undefined : await ledger.statusSummary();
  return new Map((summary?.lastPulls ?? []).map((p) => [p.company, { at: p.at, data: p.data }]));
}

export async function pullThroughDaemon(
  config: Readonly<Config>,
  io: CliIO,
  companies: readonly CompanyConfig[],
  windowGiven: boolean,
  pid: number,
  waitMs = WAIT_MS,
): Promise<number> {
  const what = `the daemon (pid ${pid}) holds the state folder ${config.paths.state}`;
  if (windowGiven) {
    throw new EdocError(
      'EDOC_LEDGER_LOCKED',
      `${what} and pulls from the saved cursor itself; a pull of --from/--to needs the state folder: ` +
        'stop the daemon, run this command, then start the daemon again',
      { stateDir: config.paths.state, pid },
    );
  }
  if (!config.received.enabled) {
    throw new EdocError(
      'EDOC_LEDGER_LOCKED',
      `${what}, and received.enabled is false: it does not pull. Stop the daemon to pull ` +
        'by hand, or set received.enabled: true and reload it',
      { stateDir: config.paths.state, pid },
    );
  }
  const ledger = await openShared(config, io.env);
  try {
    const before = await lastPulls(ledger);
    process.kill(pid, 'SIGHUP');
    io.out(
      `${what}: asked it to pull received documents now, from each company's saved cursor (its log shows the pages)`,
    );
    const waiting = new Set(companies.map((c) => c.alias));
    for (const until = Date.now() + waitMs; waiting.size > 0 && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const now = await lastPulls(ledger);
      for (const alias of [...waiting]) {
        const pull = now.get(alias);
        if (pull === undefined || pull.at <= (before.get(alias)?.at ?? 0)) continue;
        waiting.delete(alias);
        io.out(
          `${alias}: pulled by the daemon at ${new Date(pull.at).toISOString()}${pullSummary(pull.data)}`,
        );
      }
    }
    if (waiting.size === 0) return EXIT_OK;
    io.err(
      `the daemon has not finished a pull for ${[...waiting].join(', ')} within ${Math.round(waitMs / 1000)} s; ` +
        'it goes on by itself: edoc-bridge status shows the last pull',
    );
    return EXIT_NOT_ALL_SUCCEEDED;
  } finally {
    await ledger?.close();
  }
}
