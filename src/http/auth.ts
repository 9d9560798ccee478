/**
 * Who may call a `token` route: a Bearer token, or the console's session cookie (set by the login
 * form, which proves the same token once). The token itself is compared in constant time and never
 * echoed: not in a page, a redirect, a log line or an error.
 *
 * Without a configured token (allowed only on a loopback listener) the token routes are open to
 * whoever reaches the address; a browser still gets a session so that its POSTs carry a CSRF token
 * (another site open in the same browser could otherwise post to 127.0.0.1).
 */
import type { IncomingMessage } from 'node:http';
import type { Principal } from './route.js';
import { LoginGuard, sameSecret, type LoginGuardOptions } from './login-guard.js';
import { SessionStore, type Session } from './sessions.js';

export const SESSION_COOKIE = 'edoc_session';

export type AuthResult =
  | { ok: true; principal: Principal; session?: Session; setCookie?: string }
  /** `locked`: a wrong token while comparisons are rationed, or too many waiting; `wrong`: a wrong Bearer token; `none`: no credentials. */
  | { ok: false; reason: 'none' | 'wrong' | 'locked'; retryAfterSeconds?: number };

export interface OperatorAuthOptions {
  token?: string;
  sessionIdleMs?: number;
  guard?: LoginGuardOptions;
}

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `Secure` only when a proxy in front says the browser spoke https: on plain http the cookie would never come back. */
function cookieAttributes(req: IncomingMessage): string {
  const proto = String(req.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    .trim()
    .toLowerCase();
  return `HttpOnly; SameSite=Strict; Path=/${proto === 'https' ? '; Secure' : ''}`;
}

export function remoteAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

export class OperatorAuth {
  private token: string | undefined;
  readonly sessions: SessionStore;
  readonly guard: LoginGuard;

  constructor(options: OperatorAuthOptions) {
    this.token = options.token;
    this.sessions = new SessionStore({ idleMs: options.sessionIdleMs });
    this.guard = new LoginGuard(options.guard);
  }

  get open(): boolean {
    return this.token === undefined;
  }

  /** A new token (SIGHUP): every session made with the old one ends. */
  setToken(token: string | undefined): void {
    if (token === this.token) return;
    this.token = token;
    this.sessions.clear();
  }

  sessionCookie(req: IncomingMessage, session: Session): string {
    return `${SESSION_COOKIE}=${session.id}; ${cookieAttributes(req)}`;
  }

  clearedCookie(req: IncomingMessage): string {
    return `${SESSION_COOKIE}=; ${cookieAttributes(req)}; Max-Age=0`;
  }

  currentSession(req: IncomingMessage): Session | undefined {
    return this.sessions.touch(cookieOf(req, SESSION_COOKIE));
  }

  /** Checks the caller of a `token` route; `browser`: it navigates (an open listener then gives it a session). */
  async authenticate(req: IncomingMessage, browser: boolean): Promise<AuthResult> {
    const authorization = req.headers.authorization;
    if (this.token === undefined) {
      const session = this.currentSession(req);
      if (session !== undefined)
        return { ok: true, principal: { via: 'cookie', name: 'local' }, session };
      if (!browser) return { ok: true, principal: { via: 'bearer', name: 'local' } };
      const fresh = this.sessions.create();
      return {
        ok: true,
        principal: { via: 'cookie', name: 'local' },
        session: fresh,
        setCookie: this.sessionCookie(req, fresh),
      };
    }
    if (authorization !== undefined) {
      const turn = await this.guard.turn(remoteAddress(req));
      if (!turn.ok)
        return {
          ok: false,
          reason: 'locked',
          retryAfterSeconds: Math.ceil(turn.retryAfterMs / 1_000),
        };
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (match === null || !sameSecret(match[1], this.token)) return this.wrong(turn.rationed);
      return { ok: true, principal: { via: 'bearer', name: 'api' } };
    }
    const session = this.currentSession(req);
    if (session !== undefined)
      return { ok: true, principal: { via: 'cookie', name: 'console' }, session };
    return { ok: false, reason: 'none' };
  }

  /**
   * The login form's token: a new session when right. Compared when the guard gives it a turn
   * (http/login-guard.ts): never refused for someone else's wrong tokens, only made to wait.
   */
  async login(
    req: IncomingMessage,
    given: string,
  ): Promise<
    { ok: true; session: Session } | { ok: false; locked: boolean; retryAfterSeconds?: number }
  > {
    const turn = await this.guard.turn(remoteAddress(req));
    if (!turn.ok)
      return { ok: false, locked: true, retryAfterSeconds: Math.ceil(turn.retryAfterMs / 1_000) };
    if (this.token === undefined || !sameSecret(given, this.token)) {
      const wrong = this.wrong(turn.rationed);
      return {
        ok: false,
        locked: wrong.reason === 'locked',
        retryAfterSeconds: wrong.retryAfterSeconds,
      };
    }
    return { ok: true, session: this.sessions.create() };
  }

  /** A wrong token: counted; while comparisons are rationed the answer is 429 with the time to the next turn. */
  private wrong(rationed: boolean): {
    ok: false;
    reason: 'wrong' | 'locked';
    retryAfterSeconds?: number;
  } {
    const spent = rationed || this.guard.rationed;
    this.guard.failed();
    if (!spent) return { ok: false, reason: 'wrong' };
    return {
      ok: false,
      reason: 'locked',
      retryAfterSeconds: Math.max(1, Math.ceil(this.guard.spacingMs / 1_000)),
    };
  }

  /** The CSRF token a cookie-authenticated POST must carry, as a form field or a header. */
  csrfOk(req: IncomingMessage, session: Session | undefined, form: URLSearchParams): boolean {
    if (session === undefined) return false;
    const header = req.headers['x-csrf-token'];
    const given = form.get('_csrf') ?? (typeof header === 'string' ? header : undefined);
    return given !== undefined && given !== null && sameSecret(given, session.csrf);
  }
}
