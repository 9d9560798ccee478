/**
 * `edoc-bridge resolve`: the other way out of `in-doubt`. An operator who checked at the service
 * that an in-doubt document WAS issued records it as accepted (with their word as its warning), so
 * it leaves the status list and its result.json says accepted; nothing is sent. One that was not
 * issued is released with `edoc-bridge retry --in-doubt` instead.
 */
import { inInboxFolder, outboxDir } from '../../daemon/folders.js';
import type { AttentionDocument } from '../../ledger/types.js';
import { settleFile } from '../../report/file-report.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { ATTENTION_LIMIT, byIndex, fileOrDocument, matchesKey, openShared } from '../document-match.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';

export const resolveCommand: Command = {
  name: 'resolve',
  summary: 'record in-doubt documents you found issued at the service as accepted (nothing is sent)',
  usage: 'edoc-bridge resolve (--file NAME | --document KEY) --issued [--note TEXT] [--config FILE]',
  description: [
    'An in-doubt document was sent but its answer was lost, and it has no own number, so it is',
    'never resent automatically. Look it up at the service (its issued documents, or the DIAN',
    'portal). If it was issued, record that here with --issued: it becomes accepted in the ledger,',
    'in edoc-bridge status and in its result.json (rewritten at once), with your note as its warning.',
    'If it was not issued, do not use this: release it with edoc-bridge retry --document KEY --in-doubt.',
    'KEY names a document as edoc-bridge retry does: FILE#INDEX (as status shows it), company/kind/INDEX,',
    'or company/kind/prefix/number.',
  ].join('\n'),
  examples: [
    'edoc-bridge resolve --document compras-0412.json#3 --issued --note "DS 1043 in the portal, checked by Ana"',
    'edoc-bridge resolve --file compras-0412.json --issued',
  ],
  options: {
    file: { type: 'string', valueName: 'NAME', description: 'every in-doubt document of this input file' },
    document: { type: 'string', valueName: 'KEY', description: 'one document: FILE#INDEX, company/kind/INDEX or its key' },
    issued: { type: 'boolean', description: 'your word that the service issued it (required)' },
    note: { type: 'string', valueName: 'TEXT', description: 'what you found (number, who checked), kept with the document' },
  },
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const { file, key, what } = fileOrDocument(args);
    if (!args.flag('issued')) {
      throw usageError('say --issued to record that the service issued it; if it did not, use edoc-bridge retry --in-doubt');
    }
    const now = Date.now();
    const note = `confirmed issued by the operator (edoc-bridge resolve, ${new Date(now).toISOString()})`
      + `${args.string('note') ? `: ${args.string('note')}` : ''}`;
    const config = await io.config();
    const ledger = openShared(config.paths.state);
    if (ledger === undefined) {
      io.err(`nothing to resolve for ${what}: there is no ledger in ${config.paths.state} yet`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    try {
      const matches = (d: AttentionDocument): boolean => (file !== undefined ? d.file === file : matchesKey(d, key ?? ''));
      const found = ledger.statusSummary(ATTENTION_LIMIT).inDoubt.filter(matches);
      if (key !== undefined && byIndex(key) && new Set(found.map((d) => d.fileId)).size > 1) {
        throw usageError(`${key} names documents of several files: use one of ${found.map((d) => `${d.file}#${d.index}`).join(', ')}`);
      }
      const done = ledger.confirmIssued(found.map((d) => d.id), note, now);
      if (done.ids.length === 0) {
        io.err(`nothing to resolve for ${what}: no in-doubt document matches (edoc-bridge status lists them)`);
        return EXIT_NOT_ALL_SUCCEEDED;
      }
      const reports: string[] = [];
      for (const fileId of done.fileIds) {
        const row = ledger.getFile(fileId);
        if (row === undefined) continue;
        const dir = row.outboxDir ?? outboxDir(config, row.company, row.kind);
        const settled = await settleFile(ledger, fileId, dir, { archive: row.archive ?? inInboxFolder(config, row.path) });
        if (settled.report) reports.push(settled.report.resultPath);
      }
      io.out(`recorded ${done.ids.length} document(s) as issued (accepted); nothing was sent`);
      for (const r of reports) io.out(`report rewritten: ${r}`);
      return EXIT_OK;
    } finally {
      ledger.close();
    }
  },
};
