import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const receivedCommand: Command = {
  name: 'received',
  summary: 'pull documents received from suppliers (E12), e.g. to backfill a period',
  usage: 'edoc-bridge received pull [--from DATE --to DATE] [--company ALIAS] [--config FILE]',
  description: [
    'Writes each received document to outbox/received/<company>/ once. Without --from/--to',
    'it pulls from the saved cursor (minus received.lookbackDays) to today. DATE: yyyy-MM-dd.',
  ].join('\n'),
  examples: [
    'edoc-bridge received pull',
    'edoc-bridge received pull --from 2026-01-01 --to 2026-03-31 --company main',
  ],
  options: {
    from: { type: 'string', valueName: 'DATE', description: 'first document date to pull' },
    to: { type: 'string', valueName: 'DATE', description: 'last document date to pull (the whole day)' },
    company: { type: 'string', valueName: 'ALIAS', description: 'only this company' },
  },
  maxPositionals: 1,
  needsConfig: true,
  run: notAvailable('received'),
};
