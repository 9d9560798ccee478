import { z } from 'zod';
import { EdocError, isEdocError } from '../../errors.js';
import { openLedger, type LedgerLocation } from '../../ledger/open.js';
import type { LedgerPort } from '../../ledger/port.js';
import { activeRange, RANGE_KINDS, rangeState } from '../../ranges/range-math.js';
import { colombiaToday } from '../../policy/dates.js';
import { numberingRangeSchema, type NumberingRange } from '../../service/schemas/numbering.js';
import type { CliIO, Command, ParsedArgs } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import { buildRangeRequest } from '../range-request.js';
import {
  openSession,
  pickCompany,
  resultData,
  throwIfUnreachable,
  type ServiceSession,
} from '../service-session.js';
import { renderTable, type Column } from '../table.js';

const CREATE_OPTIONS = [
  'type',
  'prefix',
  'authorization',
  'from',
  'to',
  'valid-from',
  'valid-to',
  'current',
  'name',
] as const;

interface ShownRange {
  range: NumberingRange;
  flags: string[];
  /** With what the ledger used of it (list only). */
  use?: { lastUsed?: number; numbersLeft: number; daysLeft: number };
}

/** Why a listed range needs a look: the list may carry a ValidDateTo before ValidDateFrom (spec), or one already past. */
export function rangeFlags(range: NumberingRange, today: string): string[] {
  const from = range.ValidDateFrom.slice(0, 10);
  const to = range.ValidDateTo.slice(0, 10);
  const flags: string[] = [];
  if (to < from) flags.push('ends before it starts');
  if (to < today) flags.push('expired');
  return flags;
}

const COLUMNS: readonly Column<ShownRange>[] = [
  { header: 'PREFIX', value: (r) => r.range.Prefix },
  { header: 'FROM', value: (r) => r.range.FromNumber, align: 'right' },
  { header: 'TO', value: (r) => r.range.ToNumber, align: 'right' },
  { header: 'RESOLUTION', value: (r) => r.range.ResolutionNumber },
  { header: 'RESOLUTION DATE', value: (r) => r.range.ResolutionDate ?? '-' },
  { header: 'VALID FROM', value: (r) => r.range.ValidDateFrom },
  { header: 'VALID TO', value: (r) => r.range.ValidDateTo },
  { header: 'TYPE', value: (r) => r.range.ResolutionType ?? '-' },
  // what the ledger used of each range: the last number, the numbers and days left
  {
    header: 'LAST USED',
    value: (r) => (r.use?.lastUsed === undefined ? '-' : String(r.use.lastUsed)),
    align: 'right',
  },
  {
    header: 'NUMBERS LEFT',
    value: (r) => (r.use === undefined ? '-' : String(r.use.numbersLeft)),
    align: 'right',
  },
  {
    header: 'DAYS LEFT',
    value: (r) => (r.use === undefined ? '-' : String(r.use.daysLeft)),
    align: 'right',
  },
  { header: 'CHECK', value: (r) => (r.flags.length === 0 ? 'ok' : `! ${r.flags.join(', ')}`) },
];

function readRanges(data: unknown): NumberingRange[] {
  const parsed = z.array(numberingRangeSchema).safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EdocError(
      'EDOC_SERVICE_BAD_RESPONSE',
      `the service answered ranges that do not follow the spec (ResultData${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message})`,
    );
  }
  return parsed.data;
}

function printServiceMessages(io: CliIO, heading: string, messages: readonly string[]): void {
  io.err(heading);
  for (const message of messages) io.err(`  - ${message}`);
}

async function list(args: ParsedArgs, io: CliIO): Promise<number> {
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
async function withUse(
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

async function create(args: ParsedArgs, io: CliIO): Promise<number> {
  const config = await io.config();
  // Validated before anything is started or sent: a bad command line never reaches the service.
  const company = pickCompany(config, args.string('company'));
  const built = buildRangeRequest(
    {
      prefix: args.string('prefix'),
      authorization: args.string('authorization'),
      from: args.string('from'),
      to: args.string('to'),
      validFrom: args.string('valid-from'),
      validTo: args.string('valid-to'),
      type: args.string('type'),
      current: args.string('current'),
      name: args.string('name'),
    },
    company.nit,
  );
  if (!built.ok) {
    const count = built.problems.length;
    printServiceMessages(
      io,
      `edoc-bridge ranges create: ${count} problem${count === 1 ? '' : 's'}, nothing was sent (see edoc-bridge ranges --help):`,
      built.problems,
    );
    return EXIT_USAGE;
  }
  const session = await openSession(io, company.alias);
  try {
    const response = await session.client.createRange(company, built.request);
    const what = `registering range ${built.request.Prefix} ${built.request.AuthorizationNumber}`;
    if (response.outcome.kind === 'transient' && response.outcome.delivery !== 'not-sent') {
      // A create that may have reached the service can have saved the range: say how to find out before retrying.
      io.err(
        'the range may or may not have been saved: check with edoc-bridge ranges list before trying again',
      );
    }
    throwIfUnreachable(response, company, session.service.baseUrl, what);
    if (response.outcome.kind !== 'accepted') {
      const messages =
        response.outcome.messages.length > 0
          ? response.outcome.messages
          : [response.outcome.reason];
      printServiceMessages(
        io,
        `edoc-bridge ranges create: the service refused the range (HTTP ${response.httpStatus ?? '-'}, ${messages.length} message${messages.length === 1 ? '' : 's'}):`,
        messages,
      );
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    const ranges = readRanges(resultData(response.body));
    if (args.flag('json')) {
      io.out(JSON.stringify(ranges, null, 2));
      return EXIT_OK;
    }
    io.out(`Range registered for company ${company.alias} (id ${company.id}, NIT ${company.nit}):`);
    const today = colombiaToday();
    // The create answer echoes the DocumentType sent ("Invoice") where the list has the authority's code (spec):
    // show the range as `ranges list` will, and the echo only when the list cannot be had.
    const listed = await registeredAsListed(
      session,
      built.request.Prefix,
      built.request.AuthorizationNumber,
    );
    const shown = listed.length > 0 ? listed : ranges;
    const rows = await withUse(
      config,
      company.alias,
      today,
      shown.map((range) => ({ range, flags: rangeFlags(range, today) })),
    );
    for (const line of renderTable(rows, COLUMNS)) io.out(line);
    if (listed.length === 0)
      io.out("(TYPE as sent; edoc-bridge ranges list shows the authority's code)");
    return EXIT_OK;
  } finally {
    await session.close();
  }
}

/** The ranges E10 lists with this prefix and resolution number; [] when the list cannot be had. */
async function registeredAsListed(
  session: ServiceSession,
  prefix: string,
  resolution: string,
): Promise<NumberingRange[]> {
  const { company, client } = session;
  const response = await client.listRanges(company, { nit: company.nit });
  if (response.outcome.kind !== 'accepted') return [];
  const parsed = z.array(numberingRangeSchema).safeParse(resultData(response.body));
  return parsed.success
    ? parsed.data.filter((r) => r.Prefix === prefix && r.ResolutionNumber === resolution)
    : [];
}

export const rangesCommand: Command = {
  name: 'ranges',
  summary: 'numbering ranges: list the active ones (E10) or register one (E11)',
  usage: [
    'edoc-bridge ranges list [--company ALIAS] [--json]',
    '       edoc-bridge ranges create --type TYPE --prefix PREFIX --authorization NUMBER --from N --to N',
    '                                 --valid-from DATE --valid-to DATE [--current N] [--name NAME]',
    '                                 [--company ALIAS] [--json]',
  ].join('\n'),
  description: [
    "list asks the service for the company's active ranges (by the NIT in the configuration) and",
    'prints them as a table, with the last number of each that the ledger used, the numbers left',
    'after it and the days left (today in Colombia). A range whose validity ends before it starts,',
    'or has already ended, is flagged in the CHECK column and counted on the last line. --json prints',
    'the ranges as the service sent them, each with a "flags" array, numbersLeft, daysLeft and',
    'lastUsed (when the ledger used one).',
    '',
    'create registers a range. TYPE: Invoice, CreditNote, DebitNote, ContingencyInvoice,',
    'SupportDocument, Pos. DATE: yyyy-MM-dd (from 00:00:00 of --valid-from to 23:59:59 of',
    "--valid-to) or yyyy-MM-ddTHH:mm:ss. The company's NIT is sent with the request. Every local",
    'problem is printed at once and nothing is sent (exit 2); every message of a refusal by the',
    'service is printed at once (exit 1).',
    '',
    'Exit codes: 0 done, 1 the service refused, 2 usage or configuration error,',
    '3 service unreachable or credentials refused.',
  ].join('\n'),
  examples: [
    'edoc-bridge ranges list',
    'edoc-bridge ranges list --company main --json',
    'edoc-bridge ranges create --company main --type Invoice --prefix FE --authorization 18764000001 \\\n' +
      '    --from 1 --to 5000 --valid-from 2026-01-01 --valid-to 2027-12-31',
    'edoc-bridge ranges create --type CreditNote --prefix NC --authorization 18764000002 --from 1 --to 999 \\\n' +
      '    --current 120 --valid-from 2026-01-01T00:00:00 --valid-to 2026-12-31T23:59:59 --name "Credit notes 2026"',
  ],
  options: {
    company: {
      type: 'string',
      valueName: 'ALIAS',
      description: 'company (needed when several are configured)',
    },
    json: { type: 'boolean', description: 'print JSON instead of a table' },
    type: { type: 'string', valueName: 'TYPE', description: 'document type of the range (create)' },
    prefix: { type: 'string', valueName: 'PREFIX', description: 'numbering prefix (create)' },
    authorization: {
      type: 'string',
      valueName: 'NUMBER',
      description: 'resolution number (create)',
    },
    from: { type: 'string', valueName: 'N', description: 'first number (create)' },
    to: { type: 'string', valueName: 'N', description: 'last number (create)' },
    'valid-from': { type: 'string', valueName: 'DATE', description: 'validity start (create)' },
    'valid-to': { type: 'string', valueName: 'DATE', description: 'validity end (create)' },
    current: {
      type: 'string',
      valueName: 'N',
      description: 'current consecutive; default the first number (create)',
    },
    name: {
      type: 'string',
      valueName: 'NAME',
      description: 'reference name, no effect on registration (create)',
    },
  },
  maxPositionals: 1,
  needsConfig: true,
  async run(args, io) {
    const action = args.positionals[0];
    if (action === 'list') {
      const misplaced = CREATE_OPTIONS.find((name) => args.values[name] !== undefined);
      if (misplaced !== undefined)
        throw usageError(`--${misplaced} belongs to ranges create, not ranges list`);
      return list(args, io);
    }
    if (action === 'create') return create(args, io);
    throw usageError(
      action === undefined
        ? 'say what to do: ranges list or ranges create'
        : `unknown action "${action}": use ranges list or ranges create`,
    );
  },
};
