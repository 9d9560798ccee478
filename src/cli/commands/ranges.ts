import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const rangesCommand: Command = {
  name: 'ranges',
  summary: 'numbering ranges: list the active ones (E10) or register one (E11)',
  usage: [
    'edoc-bridge ranges list [--company ALIAS] [--json]',
    '       edoc-bridge ranges create --company ALIAS --type TYPE --prefix PREFIX --authorization NUMBER',
    '                                 --from N --to N --valid-from DATETIME --valid-to DATETIME',
    '                                 [--current N] [--name NAME]',
  ].join('\n'),
  description: [
    'TYPE: Invoice, CreditNote, DebitNote, ContingencyInvoice, SupportDocument, Pos.',
    'DATETIME: yyyy-MM-ddTHH:mm:ss.',
  ].join('\n'),
  examples: [
    'edoc-bridge ranges list --company main',
    'edoc-bridge ranges create --company main --type Invoice --prefix SETP --authorization 18760000001 \\\n'
      + '    --from 990000000 --to 995000000 --valid-from 2026-01-01T00:00:00 --valid-to 2027-01-01T23:59:59',
  ],
  options: {
    company: { type: 'string', valueName: 'ALIAS', description: 'company (needed when several are configured)' },
    json: { type: 'boolean', description: 'print JSON instead of a table (list)' },
    type: { type: 'string', valueName: 'TYPE', description: 'document type of the range (create)' },
    prefix: { type: 'string', valueName: 'PREFIX', description: 'numbering prefix (create)' },
    authorization: { type: 'string', valueName: 'NUMBER', description: 'resolution number (create)' },
    from: { type: 'string', valueName: 'N', description: 'first number (create)' },
    to: { type: 'string', valueName: 'N', description: 'last number (create)' },
    'valid-from': { type: 'string', valueName: 'DATETIME', description: 'validity start (create)' },
    'valid-to': { type: 'string', valueName: 'DATETIME', description: 'validity end (create)' },
    current: { type: 'string', valueName: 'N', description: 'current consecutive; default the first number (create)' },
    name: { type: 'string', valueName: 'NAME', description: 'reference name (create)' },
  },
  maxPositionals: 1,
  needsConfig: true,
  run: notAvailable('ranges'),
};
