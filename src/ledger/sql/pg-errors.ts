/**
 * What a node-postgres failure means for the ledger: the server cannot be reached, refuses us, or the
 * connection broke while in use each become one EdocError naming the server (never the password: every
 * text is scrubbed of it too). Anything else (a constraint, a syntax error, a full disk: 53100, which
 * storage/storage-full.ts recognises by its code) is passed on as it is.
 */
import { EdocError, isEdocError } from '../../errors.js';
import { REDACTED } from '../../log/redact.js';
import { redactUrlPassword } from '../../log/url-secret.js';

/** Network errno codes: before a connection exists, "unreachable"; once it is in use, "lost". */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'ENOENT',
]);
/** SQLSTATEs of a refused login: invalid_password, invalid_authorization_specification (pg_hba), unknown database or role. */
const REFUSED = new Set(['28P01', '28000', '3D000', '42704']);
/** SQLSTATEs of a session the server ended: admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now, and class 08. */
const ENDED = /^(57P0[123]|08)/;

export type PgPhase = 'connect' | 'query' | 'commit';

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function textOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `text` without the password (as written, or URL-encoded) and without any URL's password. */
export function scrubPassword(text: string, password: string | undefined): string {
  let out = redactUrlPassword(text);
  // as the log scrubber does (log/secrets.ts): shorter values would blank out ordinary letters of the message
  if (password !== undefined && password.length >= 4) {
    for (const form of new Set([password, encodeURIComponent(password)]))
      out = out.split(form).join(REDACTED);
  }
  return out;
}

/** The ledger's view of `err`, thrown at `phase` on the server `display`. */
export function classifyPgError(
  err: unknown,
  phase: PgPhase,
  display: string,
  password: string | undefined,
): unknown {
  if (isEdocError(err)) return err;
  const code = codeOf(err);
  const reason = scrubPassword(textOf(err), password);
  const isErrno = NETWORK.has(code) || /^E[A-Z]{5,}$/.test(code) || code.startsWith('ERR_');
  const context = isErrno
    ? { server: display, errno: code }
    : { server: display, sqlState: /^[0-9A-Z]{5}$/.test(code) ? code : undefined };
  const message = textOf(err);
  if (
    REFUSED.has(code) ||
    /SASL|SCRAM|password authentication|client password must be|does not support SSL|SSL.*(required|off)|self[- ]signed|certificate/i.test(
      message,
    )
  ) {
    return new EdocError(
      'EDOC_LEDGER_REFUSED',
      `The PostgreSQL server ${display} refused the ledger's connection: ${reason}`,
      context,
      { cause: scrubbedCause(err, password) },
    );
  }
  const lostText =
    /Connection terminated|connection.*(ended|closed|lost)|terminating connection|server closed the connection|not queryable/i.test(
      message,
    );
  if (
    phase === 'connect' &&
    (NETWORK.has(code) || code === '57P03' || /timeout/i.test(message) || lostText)
  ) {
    return new EdocError(
      'EDOC_LEDGER_UNREACHABLE',
      `The PostgreSQL ledger ${display} could not be reached: ${reason}`,
      context,
      { cause: scrubbedCause(err, password) },
    );
  }
  if (ENDED.test(code) || NETWORK.has(code) || lostText) {
    const what =
      phase === 'commit'
        ? 'while committing: the commit may or may not have been applied'
        : 'while in use: the statement in flight was not committed';
    return new EdocError(
      'EDOC_LEDGER_CONNECTION_LOST',
      `The connection to the PostgreSQL ledger ${display} broke ${what} (${reason})`,
      { ...context, commitInDoubt: phase === 'commit' },
      { cause: scrubbedCause(err, password) },
    );
  }
  return err;
}

/** The driver's error as a plain Error with its code and scrubbed message: its own fields may hold connection details. */
function scrubbedCause(err: unknown, password: string | undefined): Error {
  const cause = new Error(scrubPassword(textOf(err), password));
  const code = codeOf(err);
  if (code !== '') Object.assign(cause, { code });
  return cause;
}
