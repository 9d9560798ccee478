import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const retryCommand: Command = {
  name: 'retry',
  summary: 're-queue failed or in-doubt work: one input file or one document',
  usage: 'edoc-bridge retry (--file NAME | --document KEY) [--company ALIAS] [--config FILE]',
  description: [
    'Puts the documents of an input file that did not succeed (failed, in-doubt), or one',
    'document by its key (prefix + number), back in the queue of the running daemon.',
    'Re-queueing an in-doubt document is the operator\'s decision that it was not issued.',
  ].join('\n'),
  examples: [
    'edoc-bridge retry --file ventas-2026-11-03.csv',
    'edoc-bridge retry --document SETP990000123 --company main',
  ],
  options: {
    file: { type: 'string', valueName: 'NAME', description: 'input file name as shown in the outbox' },
    document: { type: 'string', valueName: 'KEY', description: 'document key (prefix + number)' },
    company: { type: 'string', valueName: 'ALIAS', description: 'company of the file or document' },
  },
  needsConfig: true,
  run: notAvailable('retry'),
};
