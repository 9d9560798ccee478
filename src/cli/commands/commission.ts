import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const commissionCommand: Command = {
  name: 'commission',
  summary: 'run the authority\'s commissioning test set: invoice (E8), payroll (E9) or pos (E7)',
  usage: 'edoc-bridge commission invoice|payroll|pos [--company ALIAS] [--test-id ID] [--count N] [--config FILE]',
  description: [
    'Asks the service to send the test set that enables the company for the given',
    'document family, and prints whether the company is now enabled. Exit code 0 when',
    'enabled, 1 when not.',
  ].join('\n'),
  examples: [
    'edoc-bridge commission invoice --company main --test-id 3f2a9c',
    'edoc-bridge commission pos --count 5',
  ],
  options: {
    company: { type: 'string', valueName: 'ALIAS', description: 'company (needed when several are configured)' },
    'test-id': { type: 'string', valueName: 'ID', description: 'test-set id assigned by the authority' },
    count: { type: 'string', valueName: 'N', description: 'test documents to send (pos only; default 1)' },
  },
  maxPositionals: 1,
  needsConfig: true,
  run: notAvailable('commission'),
};
