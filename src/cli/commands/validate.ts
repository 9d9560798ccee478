/**
 * `edoc-bridge validate FILE... --kind KIND [--mapping MAPPING.yaml]`: read + map + validate, send nothing;
 * `--mapping` tries a mapping file in place of the configured one, without touching the configuration.
 * One JSON object per document on stdout, in file order, so the output can be
 * piped into jq or diffed between two versions of a mapping.
 */
import path from 'node:path';
import { secretScrubberOf } from '../../config/secrets.js';
import { EdocError, isEdocError } from '../../errors.js';
import { loadMapping } from '../../map/load-mapping.js';
import type { Mapping } from '../../map/mapping-types.js';
import type { MasterTable, MasterTables } from '../../map/master-tables.js';
import { openLedger } from '../../ledger/open.js';
import { colombiaToday } from '../../policy/dates.js';
import { formatOf, openSource } from '../../read/open-source.js';
import type { CsvSourceContext } from '../../read/csv-source.js';
import { notAPart } from '../../read/set-part-errors.js';
import { openSetSource } from '../../read/set-source.js';
import type { OpenedSource } from '../../read/source-document.js';
import { groupSets } from '../../map/parts.js';
import { documentKey, formatKey } from '../../kinds/document-key.js';
import { isDocumentKind } from '../../kinds/index.js';
import { distinctProblems, type Problem } from '../../validate/problem.js';
import { validateDocument } from '../../kinds/validate-document.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { checkReadable } from '../input-file.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';

/** The formats a mapping reads (a delimited export, a spreadsheet's rows). */
const DELIMITED = ['csv', 'xlsx', 'xls'];

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
    const today = colombiaToday();
    let failed = false;
    const companyInfo = { alias: company.alias, nit: company.nit };
    // an export in two files: the files are read as sets (each set one unit, named after it)
    const units = unitsOf(files, mapping, (file, csvMapping) =>
      openSource(file, kind, {
        company: companyInfo,
        ...(csvMapping ? { mapping: csvMapping } : {}),
        ...(master ? { master } : {}),
        maxRecordBytes: config.read.maxRecordBytes,
      }),
    );
    for (const unit of units) {
      const file = unit.name;
      const named = units.length > 1 || unit.set ? { file } : {};
      let invalid = 0;
      try {
        const opened = await unit.open({
          kind,
          company: companyInfo,
          ...(master ? { master } : {}),
          maxRecordBytes: config.read.maxRecordBytes,
        });
        for await (const doc of opened.documents) {
          // a document the mapping routed (one export, several kinds) is checked as its own kind
          const docKind = doc.kind ?? kind;
          const problems: Problem[] = [...doc.problems];
          if (doc.request !== undefined)
            problems.push(
              ...validateDocument(docKind, doc.request, { today, issuerNit: company.nit }),
            );
          const own = doc.request === undefined ? undefined : documentKey(docKind, doc.request);
          // the key as result.json, status and retry show it; a document without its own has the export's key
          // columns joined as source.erpKey, as in result.json
          const key = own === undefined ? null : formatKey(company.alias, docKind, own);
          const erpKey = own === undefined ? (doc as { key?: string }).key : undefined;
          const source =
            erpKey === undefined || erpKey === '' ? doc.source : { ...doc.source, erpKey };
          if (problems.length > 0 || doc.request === undefined) invalid += 1;
          io.out(
            JSON.stringify({
              ...named,
              index: doc.index,
              source,
              key,
              request: doc.request ?? null,
              problems: distinctProblems(problems),
            }),
          );
        }
      } catch (err) {
        if (!isEdocError(err) || !/^EDOC_(READ|MAP)_/.test(err.code)) throw err;
        // the message may quote the file (an API key file given by mistake): configured keys are removed
        const secrets = secretScrubberOf(config);
        io.out(
          secrets.scrub(
            JSON.stringify({
              file,
              error: { code: err.code, message: err.message, ...err.context },
            }),
          ),
        );
        io.err(secrets.scrub(`${err.code}: ${err.message}`));
        failed = true;
        continue;
      }
      if (invalid > 0) failed = true;
    }
    return failed ? EXIT_NOT_ALL_SUCCEEDED : EXIT_OK;
  },
};

interface Unit {
  /** The file, or the set's name (map/parts.ts setName). */
  name: string;
  set: boolean;
  open(ctx: CsvSourceContext): Promise<OpenedSource>;
}

/** Each file alone; with a mapping that reads sets, the sets the files make up (a file that is no part, or lacks its partner, fails). */
function unitsOf(
  files: string[],
  mapping: Mapping | undefined,
  single: (file: string, csvMapping: Mapping | undefined) => Promise<OpenedSource>,
): Unit[] {
  const parts = mapping?.parts;
  if (mapping === undefined || parts === undefined)
    return files.map((file) => ({
      name: file,
      set: false,
      open: () => single(file, DELIMITED.includes(formatOf(file) ?? '') ? mapping : undefined),
    }));
  const grouped = groupSets(parts, files);
  return [
    ...grouped.sets.map((s) => ({
      name: path.join(path.dirname(s.header), s.set),
      set: true,
      open: (ctx: CsvSourceContext) => openSetSource(s, mapping, ctx),
    })),
    ...grouped.alone.map((a) => ({
      name: a.file,
      set: false,
      open: (): Promise<OpenedSource> =>
        Promise.reject(
          a.reason === 'not-a-part'
            ? notAPart(a.file, parts)
            : new EdocError(
                'EDOC_READ_SET_WAITING',
                `${path.basename(a.file)} is the ${a.reason} file of a set whose ${a.reason === 'header' ? 'lines' : 'header'} file ` +
                  `("${a.reason === 'header' ? parts.lines.file : parts.header.file}") was not given`,
                { file: path.basename(a.file) },
              ),
        ),
    })),
  ];
}

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
