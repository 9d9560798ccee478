/**
 * `edoc-bridge submit FILE --kind KIND`: the daemon's pipeline for one file in
 * the foreground — same ledger, same outbox, same rules (a document already
 * issued is `duplicate`). The original file stays where it is.
 */
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { EdocError, isEdocError } from '../../errors.js';
import type { Pipeline } from '../../daemon/pipeline.js';
import { openPipeline, type OpenPipelineOptions } from '../../root/open-pipeline.js';
import { LOCK_FILE } from '../../ledger/lock.js';
import type { AppLogger } from '../../log/logger.js';
import { DOCUMENT_KINDS, isDocumentKind } from '../../kinds/index.js';
import type { Command } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK, EXIT_SERVICE } from '../exit-codes.js';
import { checkReadable } from '../input-file.js';
import { pickCompany } from '../service-session.js';
import { validateCommand } from './validate.js';
import { waitUntilStable } from '../../watch/wait-stable.js';
import { AnswerWatch, noAnswer, serviceTrouble } from './submit-answers.js';
import { drawProgress, pendingOf, waitForFile } from './submit-progress.js';

export const submitCommand: Command = {
  name: 'submit',
  summary: 'submit one file in the foreground; the exit code is the outcome',
  usage: 'edoc-bridge submit FILE --kind KIND [--company ALIAS] [--dry-run] [--config FILE]',
  description: [
    'Reads, maps, validates and submits every document of FILE like the daemon does, records',
    'everything in the same ledger and writes NAME.result.json (and errors / retry files) to',
    "the kind's outbox folder. The original file is left where it is. A daemon holding the",
    'state folder must be stopped first (or drop the file into its inbox instead).',
    '--dry-run maps and validates only and prints the requests, like edoc-bridge validate.',
    'Run it again on the same file after an interruption or an outage: it goes on from the ledger and',
    'sends nothing twice. Exit code: 0 every document accepted; 1 any not accepted; 2 usage or',
    'configuration error (nothing sent); 3 service unreachable or unauthorized (the rest stays pending).',
  ].join('\n'),
  examples: [
    'edoc-bridge submit examples/invoices.csv --kind invoice',
    'edoc-bridge submit nomina.json --kind payroll --company main --dry-run',
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
      description: 'company (required when several are configured)',
    },
    'dry-run': { type: 'boolean', description: 'map and validate only; send nothing' },
  },
  maxPositionals: 1,
  needsConfig: true,
  needsSecrets: (args) => !args.flag('dry-run'),
  async run(args, io) {
    if (args.flag('dry-run')) return validateCommand.run(args, io);
    const file = path.resolve(io.cwd, args.positional(0, 'FILE'));
    const kind = args.requireString('kind');
    if (!isDocumentKind(kind))
      throw usageError(
        `--kind ${kind} is not a document kind (one of ${DOCUMENT_KINDS.join(', ')})`,
      );
    await checkReadable(file);
    const config = await io.config();
    const company = pickCompany(config, args.string('company'));
    const logger = await io.logger();
    const stop = new AbortController();
    const current: { pipeline?: Pipeline } = {};
    // Handlers before the lock is taken: from then on SIGHUP (edoc-bridge retry, logrotate) must not kill a
    // submit halfway (the default action of SIGHUP is to terminate); it only wakes the sender.
    const unsubscribe = [
      io.onSignal('SIGINT', () => stop.abort()),
      io.onSignal('SIGTERM', () => stop.abort()),
      io.onSignal('SIGHUP', () => current.pipeline?.wake()),
    ];
    const answers = new AnswerWatch();
    let pipeline: Pipeline;
    try {
      // the daemon's pipeline, sending for this company only
      pipeline = await openForSubmit(config, logger, {
        companies: [company.alias],
        signal: stop.signal,
        watchClient: (client) => answers.watch(client),
        onStart: (service) => {
          if (service.embedded)
            io.err(
              'note: service.baseUrl is embedded — documents go to the local emulator, not the tax authority',
            );
        },
      });
    } catch (err) {
      for (const off of unsubscribe) off();
      throw err;
    }
    current.pipeline = pipeline;
    const { ledger } = pipeline;
    const name = path.basename(file);
    try {
      if (pipeline.recovered.inDoubt > 0) {
        io.err(
          `${pipeline.recovered.inDoubt} document(s) left sending by a run that stopped have no own number: they are in doubt, not resent (edoc-bridge status)`,
        );
      }
      const intake = () => pipeline.take({ path: file, kind, company: company.alias });
      let taken = await intake();
      // its read cut short for another file's sake (none runs beside it here, but the rule is the daemon's)
      while (taken.outcome === 'again' && !stop.signal.aborted) taken = await intake();
      // the daemon's rule: nothing is sent from content that changed while it was read; read it again once stable
      while (taken.outcome === 'changed' && !stop.signal.aborted) {
        io.err(
          `${name}: the file changed while it was read; nothing of it was sent. ` +
            `Reading it again once it is unchanged for ${config.watch.stableMs} ms`,
        );
        if (!(await waitUntilStable(file, config.watch.stableMs, stop.signal))) break;
        taken = await intake();
      }
      if (taken.outcome === 'deferred') {
        if (taken.error !== undefined) throw taken.error;
        io.err(storageFull(name));
        return EXIT_NOT_ALL_SUCCEEDED;
      }
      if (!('fileId' in taken) || taken.fileId === undefined) {
        io.err(
          taken.outcome === 'changed'
            ? `${name}: stopped while the file was still changing; nothing of it was sent`
            : taken.outcome === 'skipped'
              ? `interrupted: nothing of ${name} was sent`
              : `${name}: the file could not be read (it vanished)`,
        );
        return EXIT_NOT_ALL_SUCCEEDED;
      }
      const fileId = taken.fileId;
      if (taken.outcome === 'resumed') {
        io.err(
          (await ledger.fileProgress(fileId)).final
            ? `${name}: this file was submitted before and every document in it is final; nothing was sent again`
            : `${name}: this file was submitted before; continuing from the ledger (nothing is sent twice)`,
        );
      }
      const sender = pipeline.sender(company.alias);
      if (sender === undefined) throw new Error(`submit: no sender for company ${company.alias}`);
      const ended = await waitForFile(ledger, fileId, sender, stop.signal, (p) => {
        // the complete bar is drawn below, after the last documents' lines
        if (!p.final) drawProgress(io, p);
        // Refused connections are retried without end (waiting loses nothing); a foreground command gives up.
        return (
          answers.unanswered >=
          config.retry.maxAttempts *
            Math.max(1, Math.min(company.rate.concurrency, p.counts.pending + p.counts.sending))
        );
      });
      if (ended === 'final') {
        // A verdict's `document final` line is printed just after its commit, and the read that found the
        // file final may have come in between: those lines go first, then the bar left on screen.
        await new Promise((resolve) => setImmediate(resolve));
        drawProgress(io, await ledger.fileProgress(fileId));
      }
      if (ended === 'storage') {
        io.err(storageFull(name));
        return EXIT_NOT_ALL_SUCCEEDED;
      }
      // settled (final report; archived only when it lies in a watched inbox folder) once every document is final
      const report = await pipeline.report(fileId);
      const c = report.counts;
      const fileError = (await ledger.getFile(fileId))?.error;
      io.out(
        fileError
          ? `${name}: ${fileError.message} [${fileError.code}] — ${report.resultPath}`
          : `${name}: ${c.total} document(s): ${c.accepted} accepted, ${c.rejected} rejected, ${c.invalid} invalid, ` +
              `${c.failed} failed, ${c.duplicate} duplicate, ${c.inDoubt} in doubt${pendingOf(c)} — ${report.resultPath}`,
      );
      if (report.errorsPath) io.out(`problems: ${report.errorsPath}`);
      const where = pipeline.service.embedded
        ? 'the embedded emulator'
        : `the service at ${config.service.baseUrl}`;
      if (ended === 'paused') {
        io.err(
          `the service refused the credentials of company ${company.alias}: fix its apiKey and submit again`,
        );
        return EXIT_SERVICE;
      }
      if (ended === 'unreachable') {
        io.err(
          `${where} could not be reached (no connection on the last attempts); the documents not sent ` +
            'stay pending: submit the same file again later, or let the daemon send them',
        );
        return EXIT_SERVICE;
      }
      if (ended === 'stopped') {
        io.err(
          `interrupted: the documents not sent yet stay pending; submit ${name} again to go on (nothing is sent twice)`,
        );
        return EXIT_NOT_ALL_SUCCEEDED;
      }
      if (c.total > 0 && c.accepted === c.total) return EXIT_OK;
      const trouble =
        c.failed > 0 && c.accepted === 0 ? await serviceTrouble(ledger, fileId) : undefined;
      if (trouble !== undefined) {
        io.err(
          trouble === 'unreachable'
            ? noAnswer(where, answers, name)
            : `${where} failed to process the requests (HTTP ${trouble}) through every retry`,
        );
        return EXIT_SERVICE;
      }
      return EXIT_NOT_ALL_SUCCEEDED;
    } finally {
      for (const off of unsubscribe) off();
      await pipeline.close();
    }
  },
};

function storageFull(name: string): string {
  return (
    `the disk holding the ledger or the outbox is full [EDOC_STORAGE_FULL]: ${name} stopped, the documents ` +
    'not sent yet stay pending. Free space and submit the same file again: nothing is sent twice.'
  );
}

/** The pipeline; a daemon holding the state folder's lock is a usage error (exit 2) that says what to do instead. */
async function openForSubmit(
  config: Readonly<Config>,
  logger: AppLogger,
  options: OpenPipelineOptions,
): Promise<Pipeline> {
  try {
    return await openPipeline(config, logger, options);
  } catch (err) {
    if (!isEdocError(err, 'EDOC_LEDGER_LOCKED')) throw err;
    const lockFile = path.join(path.resolve(config.paths.state), LOCK_FILE);
    throw new EdocError(
      'EDOC_LEDGER_LOCKED',
      `${err.message.replace(/\.$/, '')} (${lockFile}). ` +
        'Stop the daemon first, or drop the file into its inbox instead.',
      err.context,
      { cause: err },
    );
  }
}
