import type { CompanyConfig, Config } from '../../config/schema.js';
import { lockHolder } from '../../ledger/lock.js';
import { openLedger } from '../../ledger/open.js';
import { colombiaToday, isDate } from '../../policy/dates.js';
import { ReceivedPuller, type PageProgress, type PullResult } from '../../received/puller.js';
import {
  formatWindow,
  monthSlices,
  scheduledWindow,
  type DateWindow,
} from '../../received/window.js';
import { openService, type OpenedService } from '../../root/service.js';
import { usageError, type CliIO, type Command, type ParsedArgs } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK, EXIT_SERVICE } from '../exit-codes.js';
import { pullThroughDaemon } from '../received-beside-daemon.js';
import { counted } from '../table.js';
import { holderCommand } from './status.js';

function pickCompanies(config: Readonly<Config>, alias: string | undefined): CompanyConfig[] {
  if (alias === undefined) return [...config.companies];
  const company = config.companies.find((c) => c.alias === alias);
  if (company === undefined) {
    throw usageError(
      `--company '${alias}' is not configured; configured: ${config.companies.map((c) => c.alias).join(', ')}`,
    );
  }
  return [company];
}

/** The explicit window of --from/--to (--to defaults to today), or undefined to pull from each cursor. */
function explicitWindow(args: ParsedArgs, today: string): DateWindow | undefined {
  const from = args.string('from');
  const to = args.string('to');
  if (from === undefined && to === undefined) return undefined;
  if (from === undefined) throw usageError('--to needs --from');
  for (const [name, value] of [
    ['--from', from],
    ['--to', to],
  ] as const) {
    if (value !== undefined && !isDate(value))
      throw usageError(`${name} must be a date as yyyy-MM-dd, got '${value}'`);
  }
  const window = { from, to: to ?? today };
  if (window.from > window.to) throw usageError(`--from ${window.from} is after --to ${window.to}`);
  return window;
}

function progressLine(p: PageProgress): string {
  const pages =
    p.totalPages === 0 && p.total === 0 && p.newDocs + p.seenBefore === 0
      ? 'no documents'
      : p.recheck
        ? `re-check of page 1 (${counted(p.total, 'document')})`
        : `page ${p.page}/${Math.max(p.page, p.totalPages)} (${counted(p.total, 'document')})`;
  const reread = p.pass > 1 ? `, re-read ${p.pass}` : '';
  return `${p.company} ${formatWindow(p.window)} ${pages}${reread}: ${p.newDocs} new, ${p.seenBefore} seen before`;
}

function summaryLine(r: PullResult): string {
  const state = r.complete ? 'done' : `stopped (${r.stoppedBy ?? 'incomplete'})`;
  return (
    `${r.company} ${formatWindow(r.window)} ${state}: ${r.newDocs} new, ${r.seenBefore} seen before, ` +
    `${counted(r.pages, 'page')}, ${counted(r.errors.length, 'error')}; cursor ${r.cursor ?? 'not set'}`
  );
}

function exitCode(results: readonly PullResult[]): number {
  if (results.some((r) => r.stoppedBy === 'unauthorized' || r.stoppedBy === 'unreachable'))
    return EXIT_SERVICE;
  if (results.some((r) => !r.complete || r.errors.length > 0)) return EXIT_NOT_ALL_SUCCEEDED;
  return EXIT_OK;
}

async function pull(args: ParsedArgs, io: CliIO): Promise<number> {
  const action = args.positionals[0];
  if (action !== 'pull')
    throw usageError(
      action === undefined
        ? 'say what to do: received pull'
        : `unknown action '${action}'; use: received pull`,
    );
  const config = await io.config();
  const companies = pickCompanies(config, args.string('company'));
  const today = colombiaToday();
  const window = explicitWindow(args, today);
  // beside a running daemon (SQLite: it holds the state folder) the pull goes through it: one rate, one writer
  const holder = config.ledger.url === undefined ? lockHolder(config.paths.state) : undefined;
  const command = holder ? holderCommand(holder.pid) : undefined;
  if (holder && (command === undefined || command === 'run'))
    return pullThroughDaemon(config, io, companies, window !== undefined, holder.pid);
  const logger = await io.logger();
  const ledger = await openLedger(config, { env: io.env });
  const controller = new AbortController();
  const stopOn = (signal: 'SIGINT' | 'SIGTERM') =>
    io.onSignal(signal, () => {
      io.err(
        `edoc-bridge received: ${signal}; stopping after the current page (the cursor stays where it was)`,
      );
      controller.abort();
    });
  stopOn('SIGINT');
  stopOn('SIGTERM');
  let reached: OpenedService | undefined;
  try {
    reached = await openService(config, { logger });
    const { service, client } = reached;
    if (service.embedded) {
      io.out(
        'service.baseUrl is embedded: pulling from the bundled emulator, not the real service.',
      );
      logger.warn(
        { baseUrl: service.baseUrl },
        'received pull uses the embedded emulator, not the real service',
      );
    }
    const puller = new ReceivedPuller({ ledger, client, config, logger, today: () => today });
    const results: PullResult[] = [];
    for (const company of companies) {
      if (controller.signal.aborted) break;
      const w =
        window ??
        scheduledWindow({
          cursor: await ledger.getCursor(company.alias),
          lookbackDays: config.received.lookbackDays,
          startDate: config.received.startDate,
          today,
        });
      const months = monthSlices(w).length;
      io.out(
        `${company.alias}: pulling ${formatWindow(w)} (${months} ${months === 1 ? 'month' : 'months'})`,
      );
      const result = await puller.pullCompany(company, w, {
        signal: controller.signal,
        onPage: (p) => io.out(progressLine(p)),
      });
      for (const e of result.errors)
        io.err(
          `${company.alias}: ${e.code}${e.doc === undefined ? '' : ` ${e.doc}`}: ${e.message}`,
        );
      if (result.stoppedBy === 'unauthorized') {
        io.err(
          `${company.alias}: the service refused the API key of this company (401); fix companies[].apiKey`,
        );
        logger.error(
          { company: company.alias, code: 'EDOC_SERVICE_UNAUTHORIZED' },
          'received pull refused: the service refused the API key',
        );
      }
      io.out(summaryLine(result));
      results.push(result);
    }
    return exitCode(results);
  } finally {
    await reached?.close();
    await ledger.close();
  }
}

export const receivedCommand: Command = {
  name: 'received',
  summary: 'pull documents received from suppliers (E12), e.g. to backfill a period',
  usage: 'edoc-bridge received pull [--from DATE [--to DATE]] [--company ALIAS] [--config FILE]',
  description: [
    'Writes each received document to outbox/received/<company>/<yyyy-mm>/ once and adds it to',
    'outbox/received/<company>/received.csv; documents seen before are not written again.',
    'Without --from/--to it pulls from the saved cursor (minus received.lookbackDays) to today,',
    'like the daemon. DATE: yyyy-MM-dd; --to defaults to today. Long windows are read a month at a',
    'time; the cursor moves forward only over months read completely and joined to it.',
    'Exit codes: 0 all written, 1 some errors, 2 usage or configuration, 3 service unreachable or key refused.',
  ].join('\n'),
  examples: [
    'edoc-bridge received pull',
    'edoc-bridge received pull --from 2026-01-01 --to 2026-03-31 --company main',
  ],
  options: {
    from: { type: 'string', valueName: 'DATE', description: 'first document date to pull' },
    to: {
      type: 'string',
      valueName: 'DATE',
      description: 'last document date to pull (the whole day); default today',
    },
    company: { type: 'string', valueName: 'ALIAS', description: 'only this company' },
  },
  maxPositionals: 1,
  needsConfig: true,
  run: pull,
};
