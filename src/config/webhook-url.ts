/**
 * The alert webhook's URL is a secret: receivers put their token in the userinfo
 * (`https://user:token@host/…`), the query (`?token=…`) or the path (`/services/T0/B0/XXXX`). It is
 * shown only as its origin, and every part that may be a token is scrubbed from what the bridge writes.
 */

import { isSecretKey } from '../log/redact.js';

/**
 * Shorter path segments and query values are ordinary words (`hooks`, `alerts`, `production`):
 * scrubbing them would blank logs. A query value under a secret-named parameter (`token`, `key`) counts
 * from MIN_NAMED_LENGTH.
 */
const MIN_TOKEN_LENGTH = 16;
const MIN_NAMED_LENGTH = 4;

/** The URL's origin with `/…` when it has more: what a log line or `status` may show of it. */
export function redactedWebhook(text: string): string {
  try {
    const url = new URL(text);
    const more =
      url.pathname !== '/' || url.search !== '' || url.username !== '' || url.password !== '';
    return `${url.protocol}//${url.host}${more ? '/…' : ''}`;
  } catch {
    return '[redacted]';
  }
}

/** The whole URL and each part of it that may carry a token, for the secret scrubber. */
export function webhookSecrets(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '') return [];
  const out = new Set<string>([text.trim()]);
  try {
    const url = new URL(text.trim());
    out.add(url.href);
    for (const part of [url.username, url.password]) {
      if (part !== '') out.add(part).add(decodeURIComponent(part));
    }
    for (const [name, value] of url.searchParams) {
      if (
        value.length >= MIN_TOKEN_LENGTH ||
        (value.length >= MIN_NAMED_LENGTH &&
          (isSecretKey(name) || /^(key|sig|signature|code)$/i.test(name)))
      ) {
        out.add(value);
      }
    }
    for (const segment of url.pathname.split('/')) {
      if (segment.length >= MIN_TOKEN_LENGTH) out.add(segment).add(decodeURIComponent(segment));
    }
    if (url.search.length > 1) out.add(url.search.slice(1));
  } catch {
    // not a URL: the schema refuses it; the whole text is scrubbed all the same
  }
  return [...out];
}
