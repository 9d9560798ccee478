import { REDACTED } from './redact.js';

/**
 * A URL's password is a secret (a PostgreSQL ledger URL: `postgres://user:PASSWORD@host/db`). These two
 * look at it with the WHATWG parser and never throw: a text that is no URL has no password to hide.
 */

/** The URL's password, decoded; undefined when it has none (or is no URL). */
export function urlPassword(text: string): string | undefined {
  try {
    const password = new URL(text).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

/** `text` with the URL's password replaced by "[redacted]"; a text that does not parse loses everything after `://`'s user part. */
export function redactUrlPassword(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // not parseable: keep the scheme only when something like user:secret@ may follow
    return /:\/\/[^/@]*@/.test(text)
      ? text.replace(/(:\/\/[^/:@]*)(:[^/@]*)?@/, `$1:${REDACTED}@`)
      : text;
  }
  if (url.password === '') return text;
  url.password = REDACTED;
  return url.href.replace(encodeURIComponent(REDACTED), REDACTED);
}
