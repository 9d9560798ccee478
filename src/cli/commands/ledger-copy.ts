/**
 * `edoc-bridge ledger copy`: the command-line side of ledger/sql/copy-ledger.ts — where from and to
 * (the options, else the configuration's paths.state and ledger.url), progress on stderr, the summary
 * on stdout. The URL is shown only as `postgres://user@host:port/db`, never with its password.
 */
import type { CopyProgress, CopyReport } from '../../ledger-copy/copy-ledger.js';
import { isEdocError } from '../../errors.js';
import { copyLedger } from '../../ledger-copy/copy-ledger.js';
import type { CliIO, ParsedArgs } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_OK } from '../exit-codes.js';
import { renderTable } from '../table.js';

/** Off a terminal (a log, a pipe): one progress line this often, the first after as long. */
const PLAIN_PROGRESS_MS = 5_000;
/** On a terminal: the bar is redrawn at most this often. */
const BAR_MS = 100;

const count = (n: number): string => n.toLocaleString('en-US');

/** Progress as a bar on a terminal, as a line every few seconds elsewhere; nothing for a copy that is over quickly. */
function progressPrinter(io: CliIO): { update: (p: CopyProgress) => void; clear: () => void } {
  // io.progress draws only on a terminal (and does nothing elsewhere); the plain lines are for everywhere else
  const terminal = process.stderr.isTTY === true;
  const every = terminal ? BAR_MS : PLAIN_PROGRESS_MS;
  let next = Date.now() + every;
  let drawn = false;
  // an empty status line: the bar erased, and what is printed next takes its place
  const clear = (): void => {
    if (drawn) io.progress('');
  };
  const update = (p: CopyProgress): void => {
    const now = Date.now();
    if (now < next) return;
    next = now + every;
    const percent = p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100);
    const text = `${p.phase === 'copy' ? 'copying' : 'verifying'} ${p.table}: ${count(p.done)} of ${count(p.total)} rows (${percent}%)`;
    if (terminal) {
      io.progress(text);
      drawn = true;
    } else io.err(`edoc-bridge ledger copy: ${text}`);
  };
  return { update, clear };
}

function printSummary(io: CliIO, report: CopyReport): void {
  io.out(
    `Copied the SQLite ledger ${report.from} (schema version ${report.sqliteVersion}) into the PostgreSQL ledger ${report.to}` +
      (report.pgSchema.from === report.pgSchema.to
        ? ` (schema version ${report.pgSchema.to}):`
        : ` (schema migrated from version ${report.pgSchema.from} to ${report.pgSchema.to}):`),
  );
  for (const line of renderTable(report.tables, [
    { header: 'table', value: (t) => t.name },
    { header: 'rows', value: (t) => count(t.rows), align: 'right' },
    { header: 'checksum', value: (t) => t.checksum.slice(0, 16) },
  ]))
    io.out(`  ${line}`);
  const rate = report.seconds > 0 ? Math.round(report.rows / report.seconds) : report.rows;
  io.out(
    `${report.tables.length} tables, ${count(report.rows)} rows in ${report.seconds.toFixed(1)} s (${count(rate)} rows/s); ` +
      "every table's row count and checksum agree on both sides.",
  );
}

export async function runLedgerCopy(args: ParsedArgs, io: CliIO): Promise<number> {
  let from = args.string('from');
  let to = args.string('to');
  if (from === undefined || to === undefined) {
    // only what is not given comes from the configuration (a copy on a machine without one names both)
    const config = await io.config();
    from ??= config.paths.state;
    to ??= config.ledger.url;
    if (to === undefined)
      throw usageError(
        'where to? give --to postgres://USER@HOST:PORT/DATABASE, or set ledger.url in the configuration',
      );
  }
  const progress = progressPrinter(io);
  let report: CopyReport;
  try {
    report = await copyLedger({
      from,
      to,
      env: io.env,
      forceSnapshot: args.flag('force-snapshot'),
      onProgress: progress.update,
    });
  } catch (err) {
    progress.clear();
    // the URL's checks speak of ledger.url; given on the command line, it is --to (the URL itself is never quoted)
    if (
      args.string('to') !== undefined &&
      isEdocError(err, 'EDOC_CONFIG_INVALID') &&
      err.context.path === 'ledger.url'
    ) {
      throw usageError(err.message.replace(/^ledger\.url/, '--to'));
    }
    throw err;
  }
  progress.clear();
  if (report.runningDaemon !== undefined) {
    const d = report.runningDaemon;
    io.err(
      `note: this is a snapshot of the ledger of a running edoc-bridge (pid ${d.pid}, started ${d.startedAt}): what it does from now on ` +
        'is not in the copy; stop it and copy again (into an empty database) before the cluster takes over.',
    );
  }
  printSummary(io, report);
  return EXIT_OK;
}
