/**
 * Console sessions, in memory: a login form that proved the token gets a random session id (the
 * cookie) and its own CSRF token. A session ends when idle for `idleMs`, after `maxAgeMs` whatever
 * its use, on logout, when the token changes (SIGHUP), and when the daemon stops (nothing persists:
 * a restart means logging in again, which is the point of keeping no secret on disk).
 */
import { randomBytes } from 'node:crypto';

export interface Session {
  readonly id: string;
  readonly csrf: string;
  readonly createdAt: number;
  lastSeen: number;
}

export interface SessionStoreOptions {
  /** @defaultValue 30 minutes */
  idleMs?: number;
  /** @defaultValue 12 hours */
  maxAgeMs?: number;
  /** Sessions kept at most; the least recently used goes first. @defaultValue 1000 */
  maxSessions?: number;
  now?: () => number;
}

const randomId = (): string => randomBytes(32).toString('base64url');

export class SessionStore {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly sessions = new Map<string, Session>();
  private readonly idleMs: number;
  private readonly maxAgeMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: SessionStoreOptions = {}) {
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.maxAgeMs = options.maxAgeMs ?? 12 * 3_600_000;
    this.maxSessions = options.maxSessions ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  create(): Session {
    const at = this.now();
    const session: Session = { id: randomId(), csrf: randomId(), createdAt: at, lastSeen: at };
    this.sessions.set(session.id, session);
    while (this.sessions.size > this.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
    return session;
  }

  /** The live session of this id (its idle clock restarted), or undefined. */
  touch(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    const at = this.now();
    if (at - session.lastSeen > this.idleMs || at - session.createdAt > this.maxAgeMs) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastSeen = at;
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  end(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }

  clear(): void {
    this.sessions.clear();
  }

  get size(): number {
    return this.sessions.size;
  }

  get idleSeconds(): number {
    return Math.floor(this.idleMs / 1_000);
  }
}
