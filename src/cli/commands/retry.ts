import { lockHolder } from '../../ledger/lock.js';
import type { ActionResult } from '../../daemon/action-target.js';
import { retryDocuments } from '../../daemon/retry-documents.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';
import { tellDaemon } from '../tell-daemon.js';
import { fileOrDocument, openShared } from '../document-match.js';

export const retryCommand: Command = {
  name: 'retry',
  summary: 're-queue failed or in-doubt work: one input file or one document',
  usage:
    'edoc-bridge retry (--file NAME | --document KEY) [--in-doubt] [--other-company] [--config FILE]',
  description: [
    'Puts the documents of an input file that failed, or one document by its key, back in',
    'the queue; a running daemon is told (SIGHUP) and sends them at once, otherwise the next',
    'start of the daemon (or edoc-bridge submit of the same file) does. In-doubt documents',
    '(sent, answer lost, no own number) are released only with --in-doubt: that is the',
    "operator's word that the service did not issue them. Documents in doubt for a repeated number",
    '(Regla 90) are never re-queued: a resend gets the same answer; use edoc-bridge resolve.',
    'Documents held because the same file content was taken for another company (EDOC_LEDGER_OTHER_COMPANY)',
    "are released only with --other-company: that is the operator's word that this company issues them too.",
    'KEY is the key shown in result.json (company/kind/prefix/number) or its tail (prefix/number);',
    'a document without its own number is named as edoc-bridge status shows it, FILE#INDEX, or as',
    'company/kind/INDEX when only one file has such a document (INDEX counts from 0).',
    'Where several files share NAME (a daily name reused), --in-doubt releases nothing and lists them:',
    "give the archived copy's path as FILE.",
  ].join('\n'),
  examples: [
    'edoc-bridge retry --file ventas-2026-11-03.csv',
    'edoc-bridge retry --document SETP/990000123',
    'edoc-bridge retry --document compras-0412.json#3 --in-doubt',
    'edoc-bridge retry --file ventas-sucursal.csv --other-company',
  ],
  options: {
    file: {
      type: 'string',
      valueName: 'NAME',
      description: "input file name as shown in the outbox, or its archived copy's path",
    },
    document: {
      type: 'string',
      valueName: 'KEY',
      description:
        'document key (company/kind/prefix/number, prefix/number), FILE#INDEX or company/kind/INDEX',
    },
    'in-doubt': {
      type: 'boolean',
      description: 'also release in-doubt documents (you checked they were not issued)',
    },
    'other-company': {
      type: 'boolean',
      description:
        'release documents held because the same file was taken for another company (you checked it is meant for this one too)',
    },
  },
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const { file, key, what } = fileOrDocument(args);
    const includeInDoubt = args.flag('in-doubt');
    const includeOtherCompany = args.flag('other-company');
    const config = await io.config();
    const holder = lockHolder(config.paths.state);
    const ledger = await openShared(config, io.env);
    if (ledger === undefined) {
      io.out(`nothing to re-queue for ${what}: there is no ledger in ${config.paths.state} yet`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    let result: ActionResult;
    try {
      result = await retryDocuments(ledger, file !== undefined ? { file } : { key: key ?? '' }, {
        includeInDoubt,
        includeOtherCompany,
        by: 'cli',
      });
    } finally {
      await ledger.close();
    }
    if (result.ambiguous !== undefined) throw usageError(result.ambiguous);
    for (const note of result.notes) io.err(note);
    for (const line of result.done) io.out(line);
    if (result.ids.length === 0) return EXIT_NOT_ALL_SUCCEEDED;
    io.out(
      tellDaemon(config, holder, {
        // no process lock on PostgreSQL: whichever daemon runs this company finds them at its next look at the ledger
        shared:
          'the daemon running on this PostgreSQL ledger picks them up within a minute (at once on SIGHUP)',
        told: (pid) => `the running daemon (pid ${pid}) was told to pick them up`,
        unsignalled: (pid) =>
          `the daemon (pid ${pid}) could not be signalled; it picks them up within a minute`,
        notADaemon: (command, pid) =>
          `the state folder is held by edoc-bridge ${command} (pid ${pid}), not a daemon: they are sent at the daemon's next start`,
        none: 'no daemon is running: they are sent at its next start (or by edoc-bridge submit of the same file)',
      }),
    );
    return EXIT_OK;
  },
};
