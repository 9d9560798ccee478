/**
 * `edoc-bridge ranges list`: the company's active ranges (E10) as a table or JSON, each with what
 * the ledger used of it (read-only, beside a running daemon).
 */
import { isEdocError } from '../../errors.js';
import { openLedger, type LedgerLocation } from '../../ledger/open.js';
import type { LedgerPort } from '../../ledger/port.js';
import { activeRange, RANGE_KINDS, rangeState } from '../../ranges/range-math.js';
import { colombiaToday } from '../../policy/dates.js';
import type { CliIO, ParsedArgs } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';
import { openSession, resultData, throwIfUnreachable } from '../service-session.js';
import { renderTable } from '../table.js';
import {
  COLUMNS,
  printServiceMessages,
  rangeFlags,
  readRanges,
  type ShownRange,
} from './ranges-shown.js';

export async function list(args: ParsedArgs, io: CliIO): Promise<number> {
  const session = await openSession(io, args.string('company'));
  try {
    const { company, client } = session;
    const response = await client.listRanges(company, { nit: company.nit });
    throwIfUnreachable(response, company, session.service.baseUrl, 'listing the numbering ranges');
    if (response.outcome.kind !== 'accepted') {
      printServiceMessages(
        io,
        `edoc-bridge ranges list: the service did not list the ranges of company "${company.alias}" (HTTP ${response.httpStatus ?? '-'}, ${response.outcome.reason}):`,
        response.outcome.messages.length > 0
          ? response.outcome.messages
          : [response.rawBody.slice(0, 300)],
      );
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    const today = colombiaToday();
    const config = await io.config();
    const shown = await withUse(
      config,
      company.alias,
      today,
      readRanges(resultData(response.body)).map((range) => ({
        range,
        flags: rangeFlags(range, today),
      })),
    );
    const flagged = shown.filter((r) => r.flags.length > 0).length;
    if (args.flag('json')) {
      io.out(
        JSON.stringify(
          shown.map((r) => ({ ...r.range, flags: r.flags, ...r.use })),
          null,
          2,
        ),
      );
      return EXIT_OK;
    }
    io.out(
      `Numbering ranges of company ${company.alias} (id ${company.id}, NIT ${company.nit}), today ${today} in Colombia:`,
    );
    if (shown.length === 0) {
      io.out('No active numbering ranges.');
      return EXIT_OK;
    }
    for (const line of renderTable(shown, COLUMNS)) io.out(line);
    io.out(
      `${shown.length} range${shown.length === 1 ? '' : 's'}, ${flagged === 0 ? 'none' : flagged} flagged${flagged === 0 ? '' : ' (expired, or ending before they start)'}`,
    );
    return EXIT_OK;
  } finally {
    await session.close();
  }
}

/**
 * Numbers and days left of each range, from the ledger (read-only, beside a running daemon): the
 * highest number of the prefix used within the range. Without a ledger yet, nothing is used.
 */
export async function withUse(
  config: LedgerLocation,
  company: string,
  today: string,
  shown: ShownRange[],
): Promise<ShownRange[]> {
  let ledger: LedgerPort | undefined;
  try {
    ledger = await openLedger(config, { readOnly: true });
  } catch (err) {
    if (!isEdocError(err, 'EDOC_LEDGER_NOT_FOUND')) throw err;
  }
  try {
    const out: ShownRange[] = [];
    for (const r of shown) {
      const active = activeRange(r.range);
      if (active === undefined) {
        out.push(r);
        continue;
      }
      const lastUsed = await ledger?.highestNumberUsed(
        company,
        RANGE_KINDS,
        active.prefix,
        active.from,
        active.to,
      );
      const state = rangeState(company, active, lastUsed, today, Date.now());
      out.push({
        ...r,
        use: {
          ...(lastUsed === undefined ? {} : { lastUsed }),
          numbersLeft: state.numbersLeft,
          daysLeft: state.daysLeft,
        },
      });
    }
    return out;
  } finally {
    await ledger?.close();
  }
}
