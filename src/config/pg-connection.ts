/**
 * What a `ledger.url` means to node-postgres, resolved once at open: the password from the URL, else
 * PGPASSWORD, else the pgpass file (as libpq does); the host, port, user and database from the URL, else
 * the PG* variables, else libpq's defaults. The password is kept apart so every error can be scrubbed of
 * it, and `display` (no password, no query) is what messages name.
 */
import os from 'node:os';
import { EdocError } from '../errors.js';
import { pgpassPassword } from './pgpass.js';

export interface PgConnection {
  /** For node-postgres: the URL with the resolved password in it. Never logged. */
  connectionString: string;
  /** The resolved password, to scrub from error texts; undefined when there is none. */
  password: string | undefined;
  /** `postgres://user@host:port/database`: what messages say. */
  display: string;
}

/** Parses a ledger URL; a bad one is a configuration error whose message never holds the URL itself. */
export function resolvePgConnection(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): PgConnection {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EdocError(
      'EDOC_CONFIG_INVALID',
      'ledger.url is not a URL (write postgres://USER@HOST:PORT/DATABASE)',
      { path: 'ledger.url' },
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new EdocError(
      'EDOC_CONFIG_INVALID',
      `ledger.url must be a postgres:// URL, not ${url.protocol}//`,
      { path: 'ledger.url' },
    );
  }
  const query = url.searchParams;
  const socketOrHost =
    query.get('host') ??
    (url.hostname === '' ? env.PGHOST : decodeURIComponent(url.hostname)) ??
    'localhost';
  const host = socketOrHost.replace(/^\[(.*)\]$/, '$1');
  const port = query.get('port') ?? (url.port === '' ? env.PGPORT : url.port) ?? '5432';
  const user =
    (url.username === '' ? env.PGUSER : decodeURIComponent(url.username)) ?? os.userInfo().username;
  const path = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const database = path === '' ? (env.PGDATABASE ?? user) : path;
  let password = url.password === '' ? undefined : decodeURIComponent(url.password);
  password ??= env.PGPASSWORD === undefined || env.PGPASSWORD === '' ? undefined : env.PGPASSWORD;
  // libpq matches a unix-socket host in the pgpass file as "localhost"
  password ??= pgpassPassword(
    { host: host.startsWith('/') ? 'localhost' : host, port, database, user },
    env,
  );
  const resolved = new URL(url.href);
  if (password !== undefined) resolved.password = encodeURIComponent(password);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    connectionString: resolved.href,
    password,
    display: `postgres://${user}@${shownHost}:${port}/${database}`,
  };
}
