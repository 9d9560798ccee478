import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'map and validate one file; print the requests and the problems, send nothing',
  usage: 'edoc-bridge validate FILE --kind KIND [--company ALIAS] [--config FILE]',
  description: [
    'Turns FILE into service requests with the mapping configured for KIND and checks',
    'them against the wire schema and the business rules. Exit code 0 when every',
    'document is valid, 1 when some are not, 2 when the file or mapping cannot be used.',
  ].join('\n'),
  examples: [
    'edoc-bridge validate examples/ventas.csv --kind invoice',
    'edoc-bridge validate nomina.csv --kind payroll',
  ],
  options: {
    kind: { type: 'string', short: 'k', valueName: 'KIND', description: 'document kind of the file' },
    company: { type: 'string', valueName: 'ALIAS', description: 'company whose data completes the requests' },
  },
  maxPositionals: 1,
  needsConfig: true,
  run: notAvailable('validate'),
};
