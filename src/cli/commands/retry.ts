import { lockHolder } from '../../ledger/lock.js';
import type { AttentionDocument, RequeueTarget } from '../../ledger/types.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';
import { holderCommand } from './status.js';
import { ATTENTION_LIMIT, byIndex, fileOrDocument, matchesKey, openShared } from '../document-match.js';

export const retryCommand: Command = {
  name: 'retry',
  summary: 're-queue failed or in-doubt work: one input file or one document',
  usage: 'edoc-bridge retry (--file NAME | --document KEY) [--in-doubt] [--config FILE]',
  description: [
    'Puts the documents of an input file that failed, or one document by its key, back in',
    'the queue; a running daemon is told (SIGHUP) and sends them at once, otherwise the next',
    'start of the daemon (or edoc-bridge submit of the same file) does. In-doubt documents',
    '(sent, answer lost, no own number) are released only with --in-doubt: that is the',
    'operator\'s word that the service did not issue them. Documents in doubt for a repeated number',
    '(Regla 90) are never re-queued: a resend gets the same answer; use edoc-bridge resolve.',
    'KEY is the key shown in result.json (company/kind/prefix/number) or its tail (prefix/number);',
    'a document without its own number is named as edoc-bridge status shows it, FILE#INDEX, or as',
    'company/kind/INDEX when only one file has such a document (INDEX counts from 0).',
  ].join('\n'),
  examples: [
    'edoc-bridge retry --file ventas-2026-11-03.csv',
    'edoc-bridge retry --document SETP/990000123',
    'edoc-bridge retry --document compras-0412.json#3 --in-doubt',
  ],
  options: {
    file: { type: 'string', valueName: 'NAME', description: 'input file name as shown in the outbox' },
    document: { type: 'string', valueName: 'KEY', description: 'document key (company/kind/prefix/number, prefix/number), FILE#INDEX or company/kind/INDEX' },
    'in-doubt': { type: 'boolean', description: 'also release in-doubt documents (you checked they were not issued)' },
  },
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const { file, key, what } = fileOrDocument(args);
    const includeInDoubt = args.flag('in-doubt');
    const config = await io.config();
    const holder = lockHolder(config.paths.state);
    const ledger = await openShared(config.paths.state);
    if (ledger === undefined) {
      io.out(`nothing to re-queue for ${what}: there is no ledger in ${config.paths.state} yet`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    let result: { ids: number[]; fileIds: number[] };
    let held: AttentionDocument[];
    let released: AttentionDocument[];
    try {
      const summary = await ledger.statusSummary(ATTENTION_LIMIT);
      const target: RequeueTarget = { includeInDoubt, now: Date.now() };
      const matches = (d: AttentionDocument): boolean => file !== undefined ? d.file === file : matchesKey(d, key ?? '');
      const inDoubt = summary.inDoubt.filter(matches);
      if (key !== undefined && byIndex(key)) {
        // a document without its own number, by its place in its file
        const found = [...summary.failed, ...inDoubt].filter(matches);
        if (new Set(found.map((d) => d.fileId)).size > 1) {
          throw usageError(`${key} names documents of several files: use one of ${found.map((d) => `${d.file}#${d.index}`).join(', ')}`);
        }
        target.ids = found.map((d) => d.id);
      } else if (file !== undefined) target.fileName = file;
      else target.key = key;
      result = await ledger.requeue(target);
      const ids = new Set(result.ids);
      released = inDoubt.filter((d) => ids.has(d.id));
      held = inDoubt.filter((d) => !ids.has(d.id));
    } finally {
      await ledger.close();
    }
    if (released.length > 0) {
      io.err(`warning: ${released.length} in-doubt document(s) released on your word that the service did not issue them; `
        + 'they will be sent again and, if it did issue them, issued twice.');
    }
    // A repeated-number doubt is never released: the resend would only meet the same Regla 90 (resolve decides it).
    const repeated = held.filter((d) => d.doubt === 'repeated-number');
    const unanswered = held.filter((d) => d.doubt !== 'repeated-number');
    if (repeated.length > 0) {
      io.err(`${repeated.length} in-doubt document(s) of ${what} were not released: the service already holds a document under `
        + `their number (Regla 90, ${repeated.map((d) => d.key ?? `${d.file}#${d.index}`).slice(0, 5).join(', ')}${repeated.length > 5 ? ', …' : ''}), `
        + 'so sending them again only gets the same answer. Check at the authority which document it holds under the number, then run '
        + 'edoc-bridge resolve --document KEY --issued if it is this one, or --not-ours if it is another document.');
    }
    if (unanswered.length > 0) {
      io.err(`${unanswered.length} in-doubt document(s) of ${what} were not released: check with the service that they were not issued, `
        + 'then run this again with --in-doubt');
    }
    if (result.ids.length === 0) {
      if (held.length === 0) io.err(`nothing to re-queue for ${what}: no failed${includeInDoubt ? ' or in-doubt' : ''} document matches`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    io.out(`re-queued ${result.ids.length} document(s) of ${result.fileIds.length} file(s)`);
    const command = holder ? holderCommand(holder.pid) : undefined;
    if (holder && (command === undefined || command === 'run')) {
      try {
        process.kill(holder.pid, 'SIGHUP');
        io.out(`the running daemon (pid ${holder.pid}) was told to pick them up`);
      } catch {
        io.out(`the daemon (pid ${holder.pid}) could not be signalled; it picks them up within a minute`);
      }
    } else if (holder) {
      io.out(`the state folder is held by edoc-bridge ${command} (pid ${holder.pid}), not a daemon: they are sent at the daemon's next start`);
    } else {
      io.out('no daemon is running: they are sent at its next start (or by edoc-bridge submit of the same file)');
    }
    return EXIT_OK;
  },
};
