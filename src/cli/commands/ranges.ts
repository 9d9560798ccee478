/** `edoc-bridge ranges`: list the active numbering ranges (E10) or register one (E11). */
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { create } from './ranges-create.js';
import { list } from './ranges-list.js';

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
