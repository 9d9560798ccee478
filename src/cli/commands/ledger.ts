import { migrateLedger } from '../../ledger/sql/migrate-ledger.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_OK } from '../exit-codes.js';
import { runLedgerCopy } from './ledger-copy.js';

const ACTIONS = ['migrate', 'copy'] as const;

export const ledgerCommand: Command = {
  name: 'ledger',
  summary:
    'the ledger itself: migrate creates or upgrades its schema; copy moves a SQLite ledger into PostgreSQL',
  usage:
    'edoc-bridge ledger migrate [--config FILE]\n       edoc-bridge ledger copy [--from STATE] [--to URL] [--force-snapshot] [--config FILE]',
  description: [
    "migrate: brings the ledger's schema to this version of edoc-bridge and prints from which",
    'version to which. With ledger.url, the PostgreSQL ledger (safe while nodes run: every node',
    'migrates under one lock, exactly once); without, the SQLite ledger in paths.state (created',
    'when missing; refused while a daemon holds the folder, which migrated it when it started).',
    'Exit 2 when the server refuses the credentials or the database does not exist, 3 when it',
    'cannot be reached.',
    '',
    "copy: moves an installation's SQLite ledger (--from, default paths.state) into an empty",
    'PostgreSQL ledger (--to, default ledger.url; the password from the URL, PGPASSWORD or',
    '~/.pgpass, never printed): migrates the PostgreSQL schema, copies every table and column in',
    'one transaction, compares row counts and checksums per table before committing, and sets the',
    'id sequences past the copied ids. Reads the SQLite ledger only. Refused (exit 2) while a daemon',
    'holds the state folder (stop it first: what it does after the copy would be lost to the',
    'cluster), for a SQLite ledger of another schema version, and for a PostgreSQL ledger that',
    'already holds rows (two ledgers are never merged). Exit 3 when the server cannot be reached.',
    'See docs/cluster.md, "Moving an installation into the cluster".',
  ].join('\n'),
  examples: [
    'edoc-bridge ledger migrate',
    'PGPASSWORD=… edoc-bridge ledger migrate --config /etc/edoc-bridge/edoc-bridge.yaml',
    'PGPASSWORD=… edoc-bridge ledger copy --from state --to postgres://edoc@db.example:5432/edoc',
  ],
  options: {
    from: {
      type: 'string',
      valueName: 'STATE',
      description: 'copy: the SQLite ledger file or its state folder (default: paths.state)',
    },
    to: {
      type: 'string',
      valueName: 'URL',
      description:
        'copy: the PostgreSQL ledger, postgres://USER@HOST:PORT/DATABASE (default: ledger.url)',
    },
    'force-snapshot': {
      type: 'boolean',
      description: "copy: copy a running daemon's ledger as of one instant instead of refusing",
    },
  },
  maxPositionals: 1,
  // copy with --from and --to needs no configuration file; migrate loads it itself
  needsConfig: false,
  needsSecrets: false,
  async run(args, io) {
    const action = args.positional(0, `what to do (${ACTIONS.join(', ')})`);
    if (!(ACTIONS as readonly string[]).includes(action))
      throw usageError(`unknown action "${action}" (use: ${ACTIONS.join(', ')})`);
    const copyOnly = ['from', 'to', 'force-snapshot'].filter(
      (name) => args.values[name] !== undefined && args.values[name] !== false,
    );
    if (action !== 'copy' && copyOnly.length > 0)
      throw usageError(`--${copyOnly[0]} is an option of ledger copy`);
    if (action === 'copy') return runLedgerCopy(args, io);
    const config = await io.config();
    const report = await migrateLedger({
      url: config.ledger.url,
      stateDir: config.paths.state,
      env: io.env,
    });
    const what =
      report.backend === 'postgres'
        ? `PostgreSQL ledger ${report.where}`
        : `SQLite ledger ${report.where}`;
    io.out(
      report.from === report.to
        ? `${what}: schema at version ${report.to}, nothing to migrate`
        : `${what}: schema migrated from version ${report.from} to ${report.to}`,
    );
    return EXIT_OK;
  },
};
