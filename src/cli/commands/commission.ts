import { posCommissioningRecordSchema } from '../../service/schemas/pos.js';
import type { ServiceResponse } from '../../service/client.js';
import type { CliIO, Command, ParsedArgs } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';
import {
  openSession,
  resultData,
  throwIfUnreachable,
  type ServiceSession,
} from '../service-session.js';

type Family = 'invoice' | 'payroll' | 'pos';

const FAMILIES: Record<Family, { op: string; label: string }> = {
  invoice: { op: 'E8', label: 'electronic invoicing' },
  payroll: { op: 'E9', label: 'electronic payroll' },
  pos: { op: 'E7', label: 'POS equivalent documents' },
};

function parseCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw usageError(`--count must be a whole number of at least 1, got '${text}'`);
  }
  return Number(text);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** E8 / E9: an envelope whose ResultData says what happened; IsValid true = enabled (or already enabled). */
function reportEnvelope(
  io: CliIO,
  family: Family,
  response: ServiceResponse,
  session: ServiceSession,
): number {
  const { outcome } = response;
  const who = `company ${session.company.alias} (id ${session.company.id})`;
  const verdict = text(resultData(response.body));
  const messages = outcome.messages.filter((m) => m !== verdict);
  if (outcome.kind === 'accepted') {
    io.out(`ENABLED: ${who} is enabled for ${FAMILIES[family].label}.`);
    if (verdict) io.out(`Service: ${verdict}`);
    for (const warning of outcome.warnings) io.out(`  warning: ${warning}`);
    return EXIT_OK;
  }
  io.out(
    `NOT ENABLED: the ${family} commissioning of ${who} ended without enabling it (HTTP ${response.httpStatus ?? '-'}, ResultCode ${outcome.resultCode ?? '-'}).`,
  );
  if (verdict) io.out(`Service: ${verdict}`);
  for (const message of messages) io.out(`  - ${message}`);
  if (!verdict && messages.length === 0) io.out(`  - ${outcome.reason}`);
  return EXIT_NOT_ALL_SUCCEEDED;
}

/** E7: the POS commissioning record, one detalle line per test document. */
function reportPos(io: CliIO, response: ServiceResponse, session: ServiceSession): number {
  const who = `company ${session.company.alias} (id ${session.company.id})`;
  const record = posCommissioningRecordSchema.safeParse(response.body);
  if (!record.success) {
    io.out(
      `NOT ENABLED: the pos commissioning of ${who} did not complete (HTTP ${response.httpStatus ?? '-'}).`,
    );
    const messages =
      response.outcome.messages.length > 0
        ? response.outcome.messages
        : [response.outcome.raw ?? response.outcome.reason];
    for (const message of messages) io.out(`  - ${message}`);
    return EXIT_NOT_ALL_SUCCEEDED;
  }
  const r = record.data;
  io.out(
    r.habilitado
      ? `ENABLED: ${who} is enabled for ${FAMILIES.pos.label}.`
      : `NOT ENABLED: the pos commissioning of ${who} ended without enabling it.`,
  );
  io.out(`Service: ${r.mensaje}`);
  io.out(
    `Test documents: ${r.solicitados} requested, ${r.aceptados} accepted, ${r.rechazados} rejected`,
  );
  for (const line of r.detalle) io.out(`  ${line}`);
  return r.habilitado ? EXIT_OK : EXIT_NOT_ALL_SUCCEEDED;
}

async function commission(family: Family, args: ParsedArgs, io: CliIO): Promise<number> {
  const count = parseCount(args.string('count'));
  if (count !== undefined && family !== 'pos')
    throw usageError(
      `--count applies to commission pos only (the ${family} test set is fixed by the authority)`,
    );
  const testId = args.string('test-id');
  const session = await openSession(io, args.string('company'));
  try {
    const { client, company } = session;
    const input = testId === undefined ? {} : { testId };
    const response =
      family === 'invoice'
        ? await client.commissionInvoice(company, input)
        : family === 'payroll'
          ? await client.commissionPayroll(company, input)
          : await client.commissionPos(company, {
              ...input,
              ...(count === undefined ? {} : { cantidad: count }),
            });
    throwIfUnreachable(
      response,
      company,
      session.service.baseUrl,
      `running the ${family} commissioning (${FAMILIES[family].op})`,
    );
    return family === 'pos'
      ? reportPos(io, response, session)
      : reportEnvelope(io, family, response, session);
  } finally {
    await session.close();
  }
}

export const commissionCommand: Command = {
  name: 'commission',
  summary: "run the authority's commissioning test set: invoice (E8), payroll (E9) or pos (E7)",
  usage: 'edoc-bridge commission invoice|payroll|pos [--company ALIAS] [--test-id ID] [--count N]',
  description: [
    'Asks the service to send the test set that enables the company for one document family',
    '(the authority\'s "habilitación") and prints its verdict. For pos it also prints how many',
    'test documents were accepted and rejected, and one line per document. Running it again for',
    'a company already enabled answers that it is enabled.',
    '',
    'Exit codes: 0 the company is enabled, 1 the process ended without enabling it,',
    '2 usage or configuration error, 3 service unreachable or credentials refused.',
  ].join('\n'),
  examples: [
    'edoc-bridge commission invoice --company main --test-id 3f2a9c71-0d4e-4b8a-9f1e-2c7d5b6a8e90',
    'edoc-bridge commission payroll --test-id 7c1d2e3f',
    'edoc-bridge commission pos --count 5',
  ],
  options: {
    company: {
      type: 'string',
      valueName: 'ALIAS',
      description: 'company (needed when several are configured)',
    },
    'test-id': {
      type: 'string',
      valueName: 'ID',
      description: 'test-set id assigned by the authority',
    },
    count: {
      type: 'string',
      valueName: 'N',
      description: "test documents to send (pos only; the service's default is 1)",
    },
  },
  maxPositionals: 1,
  needsConfig: true,
  async run(args, io) {
    const family = args.positionals[0];
    if (family === 'invoice' || family === 'payroll' || family === 'pos')
      return commission(family, args, io);
    throw usageError(
      family === undefined
        ? 'say which test set: commission invoice, payroll or pos'
        : `unknown test set "${family}": use invoice, payroll or pos`,
    );
  },
};
