/**
 * What an action came to, kept for the page the browser is sent to after it (POST → 303 → GET): a
 * reload then shows the page again instead of posting the form twice. One-time, short-lived and few:
 * a notice is taken by the first page that shows it, and the oldest go first.
 */
import { randomBytes } from 'node:crypto';
import type { Notice } from './page-document.js';

const MAX = 200;
const TTL_MS = 5 * 60_000;

export class Notices {
  private readonly kept = new Map<string, { notice: Notice; at: number }>();

  put(notice: Notice, now = Date.now()): string {
    const id = randomBytes(9).toString('base64url');
    this.kept.set(id, { notice, at: now });
    for (const key of this.kept.keys()) {
      if (this.kept.size <= MAX) break;
      this.kept.delete(key);
    }
    return id;
  }

  /** The notice once; undefined when unknown, taken already or older than a few minutes. */
  take(id: string | null, now = Date.now()): Notice | undefined {
    if (id === null) return undefined;
    const entry = this.kept.get(id);
    this.kept.delete(id);
    return entry !== undefined && now - entry.at <= TTL_MS ? entry.notice : undefined;
  }
}
