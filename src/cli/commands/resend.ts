/**
 * `edoc-bridge resend`: take an archived input file again — the way out after a mapping or
 * configuration was fixed, a file-level error, or documents rejected for a reason since removed.
 * The same content dropped again is a duplicate file and is not read, so this records the operator's
 * word in the ledger (one more drop of this content is taken), then copies the archived original back
 * into its inbox folder under its own name (a hidden `.part` copy, linked in when complete).
 * Exactly-once stays per document: copies accepted before are reported duplicate and not sent; only
 * copies that were rejected or invalid go again; documents not final (failed, in-doubt, in progress)
 * refuse the resend, because their earlier copy may still be sent or released (retry, resolve).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { inboxDir } from '../../intake/folders.js';
import { EdocError } from '../../errors.js';
import { lockHolder } from '../../ledger/lock.js';
import type { LedgerPort } from '../../ledger/port.js';
import type { ContentOutcome } from '../../ledger/resend.js';
import type { FileRow } from '../../ledger/types.js';
import { hashFile } from '../../read/hash.js';
import type { CliIO, Command } from '../command.js';
import { usageError } from '../command.js';
import { openShared } from '../document-match.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';
import { holderCommand } from './status.js';

export const resendCommand: Command = {
  name: 'resend',
  summary:
    "take an archived input file again (after fixing a mapping, the configuration or the data's cause)",
  usage: 'edoc-bridge resend --file NAME [--config FILE]',
  description: [
    'Copies the archived original of NAME back into its inbox folder and tells the ledger to take',
    'that content once more (the same content dropped again by hand is a duplicate file and is not read).',
    'Use it after fixing what made the file or its documents fail: a mapping (file-level error),',
    'the configuration, a missing numbering range or a referenced document that now exists.',
    'Documents accepted before are reported duplicate and not sent again; rejected and invalid ones are',
    'sent again. Documents that are not final refuse the resend: failed ones go again with',
    'edoc-bridge retry --file NAME; in-doubt ones must be settled first with edoc-bridge resolve',
    '(issued) or edoc-bridge retry --in-doubt (not issued). Without a running daemon the file waits in',
    'the inbox and is taken at its next start. NAME is the input file name as the outbox shows it, or',
    'the archived copy (its path, or its name in the archive folder) when several archived files share',
    'the name. A file taken by edoc-bridge submit from outside the inbox is not archived: its original is',
    'copied from where it was. Exit 0: the file is in the inbox; 1: refused (the reason is printed); 2: usage.',
  ].join('\n'),
  examples: [
    'edoc-bridge resend --file ventas-2026-11-03.csv',
    'edoc-bridge resend --file "outbox/invoice/archive/ventas (2).csv"',
  ],
  options: {
    file: {
      type: 'string',
      valueName: 'NAME',
      description: 'input file name, or its archived copy (path or archive name)',
    },
  },
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const name = args.string('file');
    if (name === undefined || name === '')
      throw usageError('give --file NAME (the input file name as shown in the outbox)');
    const config = await io.config();
    const ledger = await openShared(config, io.env);
    if (ledger === undefined) {
      io.err(`nothing to resend: there is no ledger in ${config.paths.state} yet`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    let file: FileRow;
    let outcome: ContentOutcome;
    try {
      file = await pickFile(ledger, name, path.resolve(name));
      // A preview for the operator, read apart from the request below: the daemon may settle documents in
      // between, which is harmless — what decides each document is the daemon's own check when it reads the
      // copy (insertDocuments' earlier-copy rule, in its transaction), and requestResend reuses an open request.
      outcome = await ledger.contentOutcome(file);
      const refusal = await refusalOf(file, outcome, name);
      if (refusal !== undefined) return refuse(io, refusal);
      const target = path.join(inboxOf(config, file), file.name);
      if (fs.existsSync(target)) {
        return refuse(
          io,
          `${target} is in the inbox already (dropped again and not taken yet?): nothing was copied`,
        );
      }
      const { request, reused } = await ledger.requestResend(file.id);
      try {
        await copyIn(originalOf(file), target);
      } catch (err) {
        if (!reused) await ledger.cancelResend(request.id);
        throw new EdocError(
          'EDOC_RESEND_REFUSED',
          `Could not copy ${originalOf(file)} to ${target}: ${(err as Error).message}`,
          { file: target },
          { cause: err },
        );
      }
      io.out(`${originalOf(file)} copied back to ${target}`);
      io.out(describe(file, outcome));
      io.out(daemonNote(config, target));
      return EXIT_OK;
    } finally {
      await ledger.close();
    }
  },
};

function refuse(io: CliIO, message: string): number {
  io.err(`${message} [EDOC_RESEND_REFUSED]`);
  return EXIT_NOT_ALL_SUCCEEDED;
}

/** The one archived file NAME means; a usage error listing the candidates when it means several. */
async function pickFile(ledger: LedgerPort, name: string, absolute: string): Promise<FileRow> {
  const all = [
    ...new Map(
      [...(await ledger.filesMatching(name)), ...(await ledger.filesMatching(absolute))].map(
        (f) => [f.id, f],
      ),
    ).values(),
  ];
  if (all.length === 0) {
    throw usageError(
      `no input file named ${name} in the ledger (use the name as the outbox shows it, or the archived copy's path)`,
    );
  }
  const archived = all.filter(
    (f) => (f.archivedPath !== null && f.archivedPath !== '') || submittedDone(f),
  );
  if (archived.length === 0) {
    const f = all[all.length - 1];
    throw new EdocError(
      'EDOC_RESEND_REFUSED',
      f.archivedPath === ''
        ? `${name}: its original was gone when it should have been archived; drop a copy of it into the inbox instead`
        : `${name} is not archived yet: it is still being worked on (state ${f.state}); see edoc-bridge status`,
    );
  }
  if (archived.length > 1) {
    const list = archived
      .map(
        (f) => `  ${originalOf(f)}   taken ${new Date(f.startedAt).toISOString()}, ${summary(f)}`,
      )
      .join('\n');
    throw usageError(
      `${name} matches ${archived.length} archived files:\n${list}\ngive the exact one: --file ARCHIVED-PATH`,
    );
  }
  return archived[0];
}

/** A finished file taken by `edoc-bridge submit` from outside the inbox: never archived, its original stays where it was. */
function submittedDone(f: FileRow): boolean {
  return f.archive === false && (f.state === 'done' || f.state === 'failed-read');
}

/** The copy to take again: the archived original, or a submitted file's own path. */
function originalOf(f: FileRow): string {
  return f.archivedPath !== null && f.archivedPath !== '' ? f.archivedPath : f.path;
}

function summary(f: FileRow): string {
  if (f.error !== null) return `${f.error.code}`;
  return `${f.total ?? 0} document(s)`;
}

/** Why this resend must not happen, or undefined. */
async function refusalOf(
  file: FileRow,
  o: ContentOutcome,
  name: string,
): Promise<string | undefined> {
  if (o.inDoubt > 0) {
    return (
      `${name}: ${o.inDoubt} document(s) are in-doubt (sent, answer lost). Settle them first: edoc-bridge resolve --file ${file.name} --issued ` +
      `if the service issued them, edoc-bridge retry --file ${file.name} --in-doubt if it did not; a blind resend could issue them twice`
    );
  }
  if (o.inProgress > 0)
    return `${name}: ${o.inProgress} document(s) are still being sent; wait for the file's final result`;
  if (o.failed > 0) {
    return (
      `${name}: ${o.failed} document(s) failed (gave up after retries): edoc-bridge retry --file ${file.name} sends them again ` +
      'from the ledger; resend after that for the rejected or invalid ones'
    );
  }
  const read = o.accepted + o.again > 0;
  if (read && o.again === 0) return `nothing to resend: every document of ${name} was accepted`;
  const archived = originalOf(file);
  let copy;
  try {
    copy = await hashFile(archived);
  } catch {
    return `the original to take again, ${archived}, is missing; put it back there, or drop a corrected file into the inbox`;
  }
  if (copy.sha256 !== file.sha256)
    return `the original to take again, ${archived}, is not what was taken (its content changed); nothing was copied`;
  return undefined;
}

function inboxOf(config: Readonly<Config>, file: FileRow): string {
  if (!config.companies.some((c) => c.alias === file.company)) {
    throw usageError(
      `${file.name} belongs to company ${file.company}, which is not in the configuration`,
    );
  }
  if (!config.kinds[file.kind].enabled) {
    throw usageError(
      `${file.name} is of kind ${file.kind}, which is not enabled in the configuration`,
    );
  }
  return inboxDir(config, file.company, file.kind);
}

/** A hidden `.part` copy, flushed, then linked in under the name (never over a file that appeared meanwhile). */
async function copyIn(source: string, target: string): Promise<void> {
  const part = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.resend.part`,
  );
  await fsp.mkdir(path.dirname(target), { recursive: true });
  await fsp.copyFile(source, part);
  try {
    const fh = await fsp.open(part, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await fsp.link(part, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new Error('a file of that name appeared in the inbox meanwhile', { cause: err });
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
      await fsp.rename(part, target);
    }
  } finally {
    await fsp.rm(part, { force: true });
  }
}

function describe(file: FileRow, o: ContentOutcome): string {
  const parts: string[] = [];
  if (o.accepted + o.again === 0 && file.error !== null) {
    parts.push(
      `it was not read before (${file.error.code}); it is read again with the current mapping and configuration`,
    );
  }
  if (o.again > 0) parts.push(`${o.again} rejected or invalid document(s) are sent again`);
  if (o.accepted > 0)
    parts.push(`${o.accepted} accepted document(s) are reported duplicate and not sent again`);
  return `${parts.join('; ')}.`;
}

function daemonNote(config: Readonly<Config>, target: string): string {
  const holder = lockHolder(config.paths.state);
  const command = holder ? holderCommand(holder.pid) : undefined;
  if (holder && (command === undefined || command === 'run'))
    return `the running daemon (pid ${holder.pid}) takes it from the inbox now`;
  if (holder)
    return `the state folder is held by edoc-bridge ${command} (pid ${holder.pid}), not a daemon: the file waits in the inbox`;
  return `no daemon is running: the file waits in ${path.dirname(target)} and is taken at the daemon's next start`;
}
