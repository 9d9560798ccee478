/**
 * `edoc-bridge resolve`: the operator's way out of `in-doubt`, after checking at the authority.
 * - `--issued`: the document WAS issued (it is ours): it becomes accepted (with their word as its
 *   warning), leaves the status list and its result.json says accepted; nothing is sent.
 * - `--not-ours`: only for a repeated-number doubt (Regla 90 after an attempt of ours that may have
 *   reached the service): the document the service holds under that number is NOT this one. It
 *   becomes `duplicate` with the number-clash error (EDOC_SERVICE_NUMBER_CLASH) and their word;
 *   nothing is sent (a resend would only meet Regla 90 again: it needs a new number).
 * An in-doubt document without its own number that was not issued is released with
 * `edoc-bridge retry --in-doubt` instead.
 */
import { inInboxFolder, outboxDir } from '../../daemon/folders.js';
import type { LedgerPort } from '../../ledger/port.js';
import type { AttentionDocument } from '../../ledger/types.js';
import { settleFile } from '../../daemon/file-reports.js';
import { secretScrubberOf } from '../../config/secrets.js';
import type { Config } from '../../config/schema.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { ATTENTION_LIMIT, byIndex, fileOrDocument, matchesKey, openShared } from '../document-match.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';

export const resolveCommand: Command = {
  name: 'resolve',
  summary: 'record what you found at the service for in-doubt documents: --issued (accepted) or --not-ours (number clash); nothing is sent',
  usage: 'edoc-bridge resolve (--file NAME | --document KEY) (--issued | --not-ours) [--note TEXT] [--config FILE]',
  description: [
    'An in-doubt document may exist at the service, and the bridge cannot tell. Look it up at the service',
    '(its issued documents, or the DIAN portal). edoc-bridge status says why each one is in doubt:',
    '  no-answer        sent without its own number and the answer was lost;',
    '  repeated-number  the service answered that its number is already used (Regla 90), and an earlier',
    '                   attempt of ours with that number may have delivered it.',
    'If the service holds THIS document, record it with --issued: it becomes accepted in the ledger,',
    'in edoc-bridge status and in its result.json (rewritten at once), with your note as its warning.',
    'If the service holds ANOTHER document under a repeated number, record it with --not-ours: it becomes',
    'duplicate with the number-clash error (give it a new number and send it again).',
    'A no-answer document that was not issued is released with edoc-bridge retry --document KEY --in-doubt.',
    'KEY names a document as edoc-bridge retry does: FILE#INDEX (as status shows it), company/kind/INDEX,',
    'or company/kind/prefix/number.',
  ].join('\n'),
  examples: [
    'edoc-bridge resolve --document compras-0412.json#3 --issued --note "DS 1043 in the portal, checked by Ana"',
    'edoc-bridge resolve --document main/invoice/SETP/990000123 --not-ours --note "the portal shows a sale to another customer"',
    'edoc-bridge resolve --file compras-0412.json --issued',
  ],
  options: {
    file: { type: 'string', valueName: 'NAME', description: 'every in-doubt document of this input file' },
    document: { type: 'string', valueName: 'KEY', description: 'one document: FILE#INDEX, company/kind/INDEX or its key' },
    issued: { type: 'boolean', description: 'your word that the service issued THIS document' },
    'not-ours': { type: 'boolean', description: 'your word that the service holds ANOTHER document under its repeated number' },
    note: { type: 'string', valueName: 'TEXT', description: 'what you found (number, who checked), kept with the document' },
  },
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const { file, key, what } = fileOrDocument(args);
    const issued = args.flag('issued');
    const notOurs = args.flag('not-ours');
    if (issued === notOurs) {
      throw usageError(issued
        ? 'say one of --issued or --not-ours, not both'
        : 'say --issued to record that the service issued it (or --not-ours for a repeated number held by another document); '
          + 'if it did not, use edoc-bridge retry --in-doubt');
    }
    const now = Date.now();
    const word = issued ? 'confirmed issued by the operator' : 'number held by another document, by the operator\'s word';
    const note = `${word} (edoc-bridge resolve, ${new Date(now).toISOString()})${args.string('note') ? `: ${args.string('note')}` : ''}`;
    const config = await io.config();
    const ledger = await openShared(config.paths.state);
    if (ledger === undefined) {
      io.err(`nothing to resolve for ${what}: there is no ledger in ${config.paths.state} yet`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    try {
      const matches = (d: AttentionDocument): boolean => (file !== undefined ? d.file === file : matchesKey(d, key ?? ''));
      const found = (await ledger.statusSummary(ATTENTION_LIMIT)).inDoubt.filter(matches);
      if (key !== undefined && byIndex(key) && new Set(found.map((d) => d.fileId)).size > 1) {
        throw usageError(`${key} names documents of several files: use one of ${found.map((d) => `${d.file}#${d.index}`).join(', ')}`);
      }
      const targets = issued ? found : found.filter((d) => d.doubt === 'repeated-number');
      const skipped = found.length - targets.length;
      if (skipped > 0) {
        io.err(`${skipped} in-doubt document(s) of ${what} are in doubt for a lost answer (no-answer), not a repeated number: `
          + '--not-ours does not apply to them (use --issued, or edoc-bridge retry --in-doubt if the service did not issue them)');
      }
      const ids = targets.map((d) => d.id);
      const done: { ids: number[]; fileIds: number[]; taken?: { key: string }[] } = issued
        ? await ledger.confirmIssued(ids, note, now) : await ledger.recordClash(ids, note, now);
      const taken = done.taken ?? [];
      if (taken.length > 0) {
        io.err(`not recorded as issued: ${taken.map((t) => t.key).join(', ')} — another document of ours with that number is already `
          + 'recorded accepted, and the service holds one document per number. If the service holds that other one, use --not-ours here.');
      }
      if (done.ids.length === 0) {
        if (skipped === 0 && taken.length === 0) io.err(`nothing to resolve for ${what}: no in-doubt document matches (edoc-bridge status lists them)`);
        return EXIT_NOT_ALL_SUCCEEDED;
      }
      const reports = await rewriteReports(ledger, config, done.fileIds);
      io.out(issued
        ? `recorded ${done.ids.length} document(s) as issued (accepted); nothing was sent`
        : `recorded ${done.ids.length} document(s) as a number clash (duplicate, EDOC_SERVICE_NUMBER_CLASH): the service holds another `
          + 'document under their number; nothing was sent. Give them a new number and send them again.');
      for (const r of reports) io.out(`report rewritten: ${r}`);
      return EXIT_OK;
    } finally {
      await ledger.close();
    }
  },
};

async function rewriteReports(ledger: LedgerPort, config: Readonly<Config>, fileIds: readonly number[]): Promise<string[]> {
  const reports: string[] = [];
  for (const fileId of fileIds) {
    const row = await ledger.getFile(fileId);
    if (row === undefined) continue;
    const dir = row.outboxDir ?? outboxDir(config, row.company, row.kind);
    const settled = await settleFile(ledger, fileId, dir, { archive: row.archive ?? inInboxFolder(config, row.path),
      scrub: (text) => secretScrubberOf(config).scrub(text) });
    if (settled.report) reports.push(settled.report.resultPath);
  }
  return reports;
}
