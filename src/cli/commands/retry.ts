import { Ledger } from '../../ledger/ledger.js';
import { lockHolder } from '../../ledger/lock.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';

export const retryCommand: Command = {
  name: 'retry',
  summary: 're-queue failed or in-doubt work: one input file or one document',
  usage: 'edoc-bridge retry (--file NAME | --document KEY) [--in-doubt] [--config FILE]',
  description: [
    'Puts the documents of an input file that failed, or one document by its key, back in',
    'the queue; a running daemon is told (SIGHUP) and sends them at once, otherwise the next',
    'start does. In-doubt documents (sent, answer lost, no own number) are released only with',
    '--in-doubt: that is the operator\'s word that the service did not issue them.',
    'KEY is the key shown in result.json (company/kind/prefix/number) or its tail (prefix/number).',
  ].join('\n'),
  examples: [
    'edoc-bridge retry --file ventas-2026-11-03.csv',
    'edoc-bridge retry --document SETP/990000123',
    'edoc-bridge retry --document main/support-document/DS/15 --in-doubt',
  ],
  options: {
    file: { type: 'string', valueName: 'NAME', description: 'input file name as shown in the outbox' },
    document: { type: 'string', valueName: 'KEY', description: 'document key (company/kind/prefix/number, or prefix/number)' },
    'in-doubt': { type: 'boolean', description: 'also release in-doubt documents (you checked they were not issued)' },
  },
  needsConfig: true,
  async run(args, io) {
    const file = args.string('file');
    const key = args.string('document');
    if ((file === undefined) === (key === undefined)) throw usageError('give exactly one of --file NAME or --document KEY');
    const includeInDoubt = args.flag('in-doubt');
    const config = await io.config();
    const holder = lockHolder(config.paths.state);
    // Beside a running daemon: short shared writes; otherwise take the lock like any writer.
    const ledger = Ledger.open(config.paths.state, holder ? { shared: true } : {});
    let result;
    try {
      result = ledger.requeue({ ...(file !== undefined ? { fileName: file } : { key }), includeInDoubt, now: Date.now() });
    } finally {
      ledger.close();
    }
    if (includeInDoubt) {
      io.err('warning: in-doubt documents were released; they will be sent again. Do this only after checking with the service that they were not issued.');
    }
    if (result.ids.length === 0) {
      io.out(`nothing to re-queue for ${file ?? key}${includeInDoubt ? '' : ' (in-doubt documents need --in-doubt)'}`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    io.out(`re-queued ${result.ids.length} document(s) of ${result.fileIds.length} file(s)`);
    if (holder) {
      try {
        process.kill(holder.pid, 'SIGHUP');
        io.out(`the running daemon (pid ${holder.pid}) was told to pick them up`);
      } catch {
        io.out(`the daemon (pid ${holder.pid}) could not be signalled; it picks them up within a minute`);
      }
    } else {
      io.out('no daemon is running: they are sent at its next start');
    }
    return EXIT_OK;
  },
};
