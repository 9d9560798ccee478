import { migrateLedger } from '../../ledger/sql/migrate-ledger.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_OK } from '../exit-codes.js';

const ACTIONS = ['migrate'] as const;

export const ledgerCommand: Command = {
  name: 'ledger',
  summary: 'the ledger itself: migrate creates or upgrades its schema (SQLite state folder, or PostgreSQL with ledger.url)',
  usage: 'edoc-bridge ledger migrate [--config FILE]',
  description: [
    'migrate: brings the ledger\'s schema to this version of edoc-bridge and prints from which',
    'version to which. With ledger.url, the PostgreSQL ledger (safe while nodes run: every node',
    'migrates under one lock, exactly once); without, the SQLite ledger in paths.state (created',
    'when missing; refused while a daemon holds the folder, which migrated it when it started).',
    'Exit 2 when the server refuses the credentials or the database does not exist, 3 when it',
    'cannot be reached.',
  ].join('\n'),
  examples: ['edoc-bridge ledger migrate', 'PGPASSWORD=… edoc-bridge ledger migrate --config /etc/edoc-bridge/edoc-bridge.yaml'],
  options: {},
  maxPositionals: 1,
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const action = args.positional(0, `what to do (${ACTIONS.join(', ')})`);
    if (!(ACTIONS as readonly string[]).includes(action)) throw usageError(`unknown action "${action}" (use: ${ACTIONS.join(', ')})`);
    const config = await io.config();
    const report = await migrateLedger({ url: config.ledger.url, stateDir: config.paths.state, env: io.env });
    const what = report.backend === 'postgres' ? `PostgreSQL ledger ${report.where}` : `SQLite ledger ${report.where}`;
    io.out(report.from === report.to
      ? `${what}: schema at version ${report.to}, nothing to migrate`
      : `${what}: schema migrated from version ${report.from} to ${report.to}`);
    return EXIT_OK;
  },
};
