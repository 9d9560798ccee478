/**
 * `edoc-bridge ranges create`: registers a numbering range (E11) after every local check, then shows
 * it as E10 lists it.
 */
import { z } from 'zod';
import { colombiaToday } from '../../policy/dates.js';
import { numberingRangeSchema, type NumberingRange } from '../../service/schemas/numbering.js';
import type { CliIO, ParsedArgs } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import { buildRangeRequest } from '../range-request.js';
import {
  openSession,
  pickCompany,
  resultData,
  throwIfUnreachable,
  type ServiceSession,
} from '../service-session.js';
import { renderTable } from '../table.js';
import { withUse } from './ranges-list.js';
import { COLUMNS, printServiceMessages, rangeFlags, readRanges } from './ranges-shown.js';

export async function create(args: ParsedArgs, io: CliIO): Promise<number> {
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
