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
import { lockHolder } from '../../ledger/lock.js';
import { rewriteReports } from '../../daemon/operator-actions.js';
import { resolveDocuments } from '../../daemon/resolve-documents.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { fileOrDocument, openShared } from '../document-match.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';
import { tellDaemon } from '../tell-daemon.js';

export const resolveCommand: Command = {
  name: 'resolve',
  summary:
    'record what you found at the service for in-doubt documents: --issued (accepted) or --not-ours (number clash); nothing is sent',
  usage:
    'edoc-bridge resolve (--file NAME | --document KEY) (--issued [--number NUMBER] | --not-ours) [--note TEXT] [--config FILE]',
  description: [
    'An in-doubt document may exist at the service, and the bridge cannot tell. Look it up at the service',
    '(its issued documents, or the DIAN portal). edoc-bridge status says why each one is in doubt:',
    '  no-answer        sent without its own number and the answer was lost;',
    '  repeated-number  the service answered that its number is already used (Regla 90), and an earlier',
    '                   attempt of ours with that number may have delivered it.',
    'If the service holds THIS document, record it with --issued: it becomes accepted in the ledger,',
    'in edoc-bridge status and in its result.json (rewritten at once), with your note as its warning.',
    'A document the service numbered (no-answer) has no number of its own: give the one the service shows',
    "with --number (e.g. DS1043); it is kept as the document's number, in the ledger and in result.json's issued.",
    'If the service holds ANOTHER document under a repeated number, record it with --not-ours: it becomes',
    'duplicate with the number-clash error (give it a new number and send it again).',
    'Where copies of ours with other contents share a number (a lost first export and its corrected re-export),',
    'the number (or --file) names none of them: resolve lists each (FILE#INDEX, rows, payable amount) and records',
    'nothing; give the copy the service holds by its place (a failed copy that may have reached it is taken too).',
    'A no-answer document that was not issued is released with edoc-bridge retry --document KEY --in-doubt.',
    'KEY names a document as edoc-bridge retry does: FILE#INDEX (as status shows it), company/kind/INDEX,',
    'or company/kind/prefix/number. Where several files share a name (a daily name reused), nothing is',
    "resolved and they are listed: give the archived copy's path.",
  ].join('\n'),
  examples: [
    'edoc-bridge resolve --document compras-0412.json#3 --issued --number DS1043 --note "in the portal, checked by Ana"',
    'edoc-bridge resolve --document main/invoice/SETP/990000123 --not-ours --note "the portal shows a sale to another customer"',
    'edoc-bridge resolve --file compras-0412.json --issued',
  ],
  options: {
    file: {
      type: 'string',
      valueName: 'NAME',
      description:
        "every in-doubt document of this input file (its name, or its archived copy's path)",
    },
    document: {
      type: 'string',
      valueName: 'KEY',
      description: 'one document: FILE#INDEX, company/kind/INDEX or its key',
    },
    issued: { type: 'boolean', description: 'your word that the service issued THIS document' },
    'not-ours': {
      type: 'boolean',
      description: 'your word that the service holds ANOTHER document under its repeated number',
    },
    number: {
      type: 'string',
      valueName: 'NUMBER',
      description:
        'with --issued on one document the service numbered: the number it issued it under (DS1043)',
    },
    note: {
      type: 'string',
      valueName: 'TEXT',
      description: 'what you found (number, who checked), kept with the document',
    },
  },
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const { file, key, what } = fileOrDocument(args);
    const issued = args.flag('issued');
    const notOurs = args.flag('not-ours');
    if (issued === notOurs) {
      throw usageError(
        issued
          ? 'say one of --issued or --not-ours, not both'
          : 'say --issued to record that the service issued it (or --not-ours for a repeated number held by another document); ' +
              'if it did not, use edoc-bridge retry --in-doubt',
      );
    }
    const number = args.string('number');
    if (number !== undefined && !issued)
      throw usageError(
        '--number goes with --issued: the number the service issued the document under',
      );
    if (number !== undefined && key === undefined)
      throw usageError('--number names the number of one document: use it with --document');
    const config = await io.config();
    const holder = lockHolder(config.paths.state);
    const ledger = await openShared(config, io.env);
    if (ledger === undefined) {
      io.err(`nothing to resolve for ${what}: there is no ledger in ${config.paths.state} yet`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    try {
      const note = args.string('note');
      const result = await resolveDocuments(
        ledger,
        file !== undefined ? { file } : { key: key ?? '' },
        {
          word: issued ? 'issued' : 'not-ours',
          by: 'cli',
          via: 'edoc-bridge resolve',
          ...(note === undefined ? {} : { note }),
          ...(number === undefined ? {} : { number }),
          rewrite: (fileIds) => rewriteReports(ledger, config, fileIds),
        },
      );
      if (result.ambiguous !== undefined) throw usageError(result.ambiguous);
      for (const line of result.notes) io.err(line);
      for (const line of result.done) io.out(line);
      if ((result.released ?? 0) > 0)
        io.out(
          tellDaemon(config, holder, {
            shared:
              'the daemon running this company on the PostgreSQL ledger looks at them within a minute (at once on SIGHUP)',
            told: (pid) => `the running daemon (pid ${pid}) was told to look at them`,
            unsignalled: (pid) =>
              `the daemon (pid ${pid}) could not be signalled; it looks at them within a minute`,
            notADaemon: (command, pid) =>
              `the state folder is held by edoc-bridge ${command} (pid ${pid}), not a daemon: they are looked at when it sends again`,
            none: 'no daemon is running: they are looked at at its next start',
          }),
        );
      return result.ids.length === 0 ? EXIT_NOT_ALL_SUCCEEDED : EXIT_OK;
    } finally {
      await ledger.close();
    }
  },
};
