/**
 * `edoc-bridge validate FILE... --kind KIND [--mapping MAPPING.yaml]`: read + map + validate, send nothing;
 * `--mapping` tries a mapping file in place of the configured one, without touching the configuration.
 * One JSON object per document on stdout, in file order, so the output can be
 * piped into jq or diffed between two versions of a mapping.
 */
import path from 'node:path';
import { configSecrets } from '../../config/secrets.js';
import { isEdocError } from '../../errors.js';
import { loadMapping } from '../../map/load-mapping.js';
import type { Mapping } from '../../map/mapping-types.js';
import type { MasterTable, MasterTables } from '../../map/master-tables.js';
import { openLedger } from '../../ledger/open.js';
import { colombiaToday } from '../../policy/dates.js';
import { formatOf } from '../../read/open-source.js';
import { isDocumentKind } from '../../kinds/index.js';
import { runValidate } from '../validate-run.js';
import { DELIMITED } from '../validate-units.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { checkReadable } from '../input-file.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'map and validate one file; print the requests and the problems, send nothing',
  usage:
    'edoc-bridge validate FILE... --kind KIND [--mapping MAPPING.yaml] [--company ALIAS] [--config FILE]',
  description: [
    'Turns FILE into service requests (JSON / JSONL as they are, CSV / TXT with the',
    'mapping configured for KIND) and checks them against the wire schema and the',
    'business rules. Prints one JSON object per document: { index, source, key,',
    'request, problems }. Exit code 0 when every document is valid; 1 when some',
    'are not, or when the file cannot be read at all (then one { file, error } object',
    'is printed); 2 when the command line, configuration or mapping is invalid, or FILE is',
    'missing, a folder or unreadable (the same answer as submit).',
    '--mapping MAPPING.yaml maps CSV / TXT files with that mapping instead of the one',
    'configured for KIND (the configuration is not changed); with several files each',
    'printed object also names its file.',
  ].join('\n'),
  examples: [
    'edoc-bridge validate examples/invoices.csv --kind invoice',
    'edoc-bridge validate examples/payroll.csv --kind payroll --company main',
    'edoc-bridge validate export.csv --kind invoice --mapping my-erp.csv.yaml',
  ],
  options: {
    kind: {
      type: 'string',
      short: 'k',
      valueName: 'KIND',
      description: 'document kind of the file',
    },
    company: {
      type: 'string',
      valueName: 'ALIAS',
      description: 'company whose data completes the requests (default: the first)',
    },
    mapping: {
      type: 'string',
      short: 'm',
      valueName: 'MAPPING.yaml',
      description: 'a mapping file to try instead of the configured one',
    },
  },
  maxPositionals: 16,
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const files =
      args.positionals.length === 0
        ? [args.positional(0, 'FILE')]
        : args.positionals.map((f) => path.resolve(io.cwd, f));
    const kind = args.requireString('kind');
    if (!isDocumentKind(kind)) throw usageError(`--kind ${kind} is not a document kind`);
    for (const file of files) await checkReadable(file);
    const config = await io.config();
    const alias = args.string('company');
    const company =
      alias === undefined ? config.companies[0] : config.companies.find((c) => c.alias === alias);
    if (company === undefined)
      throw usageError(`--company ${alias ?? ''}: no such company in the configuration`);
    const given = args.string('mapping');
    const mappingFile =
      given !== undefined
        ? path.resolve(io.cwd, given)
        : (config.kinds as Record<string, { mapping?: string } | undefined>)[kind]?.mapping;
    let mapping: Mapping | undefined;
    if (mappingFile !== undefined && files.some((f) => DELIMITED.includes(formatOf(f) ?? ''))) {
      try {
        mapping = await loadMapping(mappingFile);
      } catch (err) {
        // a broken mapping given on the command line is a usage error (exit 2), naming the file and key
        if (given !== undefined && isEdocError(err) && err.code === 'EDOC_MAPPING_INVALID')
          throw usageError(`--mapping: ${err.message}`);
        throw err;
      }
    }
    const master =
      mapping?.masterTables === undefined
        ? undefined
        : await masterTables(config, io.env, Object.keys(mapping.masterTables));
    // on a thread of its own: a mapping's pattern stuck on one row ends that file after read.stuckAfter
    const failed = await runValidate(
      {
        files,
        kind,
        company: { alias: company.alias, nit: company.nit },
        ...(mapping ? { mapping } : {}),
        ...(master ? { master } : {}),
        maxRecordBytes: config.read.maxRecordBytes,
        today: colombiaToday(),
        pos: config.kinds.pos,
        secrets: configSecrets(config),
      },
      { out: (line) => io.out(line), err: (line) => io.err(line) },
      config.read.stuckAfter,
    );
    return failed ? EXIT_NOT_ALL_SUCCEEDED : EXIT_OK;
  },
};

/** The newest version of each master table the mapping reads, from the ledger opened read-only; none without a ledger. */
async function masterTables(
  config: Parameters<typeof openLedger>[0],
  env: NodeJS.ProcessEnv,
  names: string[],
): Promise<MasterTables> {
  const out: Record<string, MasterTable> = {};
  let ledger: Awaited<ReturnType<typeof openLedger>>;
  try {
    ledger = await openLedger(config, { readOnly: true, env });
  } catch (err) {
    if (isEdocError(err, 'EDOC_LEDGER_NOT_FOUND')) return out;
    throw err;
  }
  try {
    for (const table of names) {
      const latest = await ledger.latestMasterVersion(table);
      const data =
        latest === undefined ? undefined : await ledger.readMasterTable(table, latest.version);
      if (data !== undefined) out[table] = data;
    }
    return out;
  } finally {
    await ledger.close();
  }
}
