/**
 * How an operator names documents on the command line (retry, resolve): by their key as result.json
 * shows it (company/kind/prefix/number) or its tail (prefix/number), and a document without its own
 * number by its place: FILE#INDEX as edoc-bridge status shows it, or company/kind/INDEX (matched in
 * daemon/operator-actions.ts, which the console shares).
 */
import { isEdocError } from '../errors.js';
import type { ParsedArgs } from './command.js';
import { usageError } from './command.js';
import { openLedger, type LedgerLocation } from '../ledger/open.js';
import type { LedgerPort } from '../ledger/port.js';

/**
 * The ledger for a command's short shared writes, never its lock (a daemon or a submit may hold it
 * right now, or start meanwhile); undefined when there is no ledger yet (the state folder's, or the
 * PostgreSQL database at ledger.url never migrated).
 */
export async function openShared(
  config: LedgerLocation,
  env?: NodeJS.ProcessEnv,
): Promise<LedgerPort | undefined> {
  try {
    return await openLedger(config, { shared: true, env });
  } catch (err) {
    if (!isEdocError(err, 'EDOC_LEDGER_NOT_FOUND')) throw err;
    return undefined;
  }
}

/** `--file NAME` or `--document KEY`, exactly one of them; `what` names it in messages. */
export function fileOrDocument(args: ParsedArgs): { file?: string; key?: string; what: string } {
  const file = args.string('file');
  const key = args.string('document');
  if ((file === undefined) === (key === undefined))
    throw usageError('give exactly one of --file NAME or --document KEY');
  if (file === '' || key === '')
    throw usageError(`--${file === '' ? 'file' : 'document'} needs a value`);
  return { file, key, what: file ?? key ?? '' };
}
