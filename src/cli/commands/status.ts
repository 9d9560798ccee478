import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const statusCommand: Command = {
  name: 'status',
  summary: 'ledger summary: documents per status, in-doubt documents, last received pull',
  usage: 'edoc-bridge status [--company ALIAS] [--json] [--config FILE]',
  description: 'Reads the ledger in the state folder (also while the daemon runs) and prints a summary.',
  examples: [
    'edoc-bridge status',
    'edoc-bridge status --company main --json',
  ],
  options: {
    company: { type: 'string', valueName: 'ALIAS', description: 'only this company' },
    json: { type: 'boolean', description: 'print JSON instead of a table' },
  },
  needsConfig: true,
  run: notAvailable('status'),
};
