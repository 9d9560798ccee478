import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const submitCommand: Command = {
  name: 'submit',
  summary: 'submit one file in the foreground; the exit code is the outcome',
  usage: 'edoc-bridge submit FILE --kind KIND [--company ALIAS] [--dry-run] [--config FILE]',
  description: [
    'Reads FILE (.json, .jsonl, .csv, .txt) as documents of KIND, submits them and writes',
    'the result next to the other outbox results. Exit code 0 when every document was',
    'accepted (or was a duplicate), 1 when some did not succeed, 3 when the service could',
    'not be reached or refused the key.',
    'KIND: invoice, credit-note, debit-note, payroll, support-document, support-adjustment, pos.',
  ].join('\n'),
  examples: [
    'edoc-bridge submit examples/ventas.csv --kind invoice',
    'edoc-bridge submit nomina.csv --kind payroll --company main --dry-run',
  ],
  options: {
    kind: { type: 'string', short: 'k', valueName: 'KIND', description: 'document kind of the file' },
    company: { type: 'string', valueName: 'ALIAS', description: 'company to submit for (needed when several are configured)' },
    'dry-run': { type: 'boolean', description: 'map and validate, print what would be sent, send nothing' },
  },
  maxPositionals: 1,
  needsConfig: true,
  run: notAvailable('submit'),
};
