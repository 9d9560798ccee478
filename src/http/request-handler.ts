/**
 * One operator request from arrival to reply: the path check, the DNS-rebinding check of a loopback
 * listener, route matching, authentication (http/auth.ts), the CSRF check of cookie POSTs, form
 * bodies within a size limit, and one error shape. A route that throws gives a 500 with a request id
 * and one log line: a request never takes the daemon down. The listener is http/server.ts.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { isLoopbackHost } from '../config/loopback.js';
import type { AppLogger } from '../log/logger.js';
import { excerpt } from '../policy/excerpt.js';
import type { OperatorAuth } from './auth.js';
import type { ConnectionGate } from './connection-gate.js';
import { readForm } from './form-body.js';
import { doLogin, doLogout, showLogin } from './login-page.js';
import { redirect, SECURITY_HEADERS, sendError, wantsHtml } from './replies.js';
import type { Route, RouteRequest } from './route.js';

/** What a request needs of the listener's options (http/server.ts, `OperatorServerOptions`). */
export interface RequestHandlerOptions {
  routes: readonly Route[];
  logger: AppLogger;
  /** A wrong token is answered only after this long. @defaultValue 500 */
  failureDelayMs?: number;
}

export class RequestHandler {
  private readonly failureDelayMs: number;

  constructor(
    private readonly options: RequestHandlerOptions,
    private readonly auth: OperatorAuth,
    private readonly loopback: boolean,
    private readonly gate: ConnectionGate,
  ) {
    this.failureDelayMs = options.failureDelayMs ?? 500;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomBytes(6).toString('hex');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('X-Request-Id', requestId);
    let pathname = '?';
    try {
      const target = req.url ?? '';
      // origin-form only: `//host/x` or an absolute URL would otherwise be read as another host's path
      if (!target.startsWith('/') || target.startsWith('//')) {
        sendError(req, res, {
          status: 400,
          error: 'bad-request',
          message: 'The request target must be a path such as /metrics.',
        });
        return;
      }
      const url = new URL(`http://listener.invalid${target}`);
      pathname = url.pathname;
      await this.dispatch(req, res, url);
    } catch (err) {
      this.options.logger.error(
        { err, requestId, method: req.method, path: excerpt(pathname) },
        'operator request failed',
      );
      sendError(req, res, {
        status: 500,
        error: 'internal',
        message: 'The request failed; the log has the details under this request id.',
        requestId,
      });
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // A page of a loopback listener asked for under another host name is a DNS-rebinding attempt.
    const hostHeader = req.headers.host;
    if (this.loopback && hostHeader !== undefined && !isLoopbackHost(hostName(hostHeader))) {
      sendError(req, res, {
        status: 421,
        error: 'misdirected',
        message: 'This listener answers only to a loopback host name.',
      });
      return;
    }
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (
      this.gate.healthOnly(req.socket) &&
      !this.options.routes.some(
        (r) =>
          r.probe === true && r.method === method && matchPath(r.path, url.pathname) !== undefined,
      )
    ) {
      sendError(req, res, {
        status: 503,
        error: 'busy',
        message: 'The listener is full; only /healthz and /readyz are answered on this connection.',
        headers: { Connection: 'close', 'Retry-After': '1' },
      });
      return;
    }
    if (url.pathname === '/login' || url.pathname === '/logout') {
      await this.loginRoute(req, res, url, method);
      return;
    }
    const candidates = this.options.routes
      .map((route) => ({ route, params: matchPath(route.path, url.pathname) }))
      .filter((c) => c.params !== undefined);
    if (candidates.length === 0) {
      sendError(req, res, {
        status: 404,
        error: 'not-found',
        message: 'There is nothing at this address.',
      });
      return;
    }
    const hit = candidates.find((c) => c.route.method === method);
    if (hit === undefined) {
      const allow = [...new Set(candidates.map((c) => c.route.method))].join(', ');
      sendError(req, res, {
        status: 405,
        error: 'method-not-allowed',
        message: `Use ${allow} here.`,
        headers: { Allow: allow },
      });
      return;
    }
    const { route } = hit;
    const params = hit.params as Record<string, string> | null;
    if (params === null) {
      sendError(req, res, {
        status: 400,
        error: 'bad-request',
        message: 'The address is not correctly percent-encoded.',
      });
      return;
    }
    const request: RouteRequest = { req, res, url, params, csrf: '', form: new URLSearchParams() };
    if (route.access === 'token') {
      res.setHeader('Cache-Control', 'no-store');
      const browser = method === 'GET' && wantsHtml(req);
      const result = await this.auth.authenticate(req, browser);
      if (!result.ok) {
        await this.refuse(req, res, url, result.reason, result.retryAfterSeconds, browser);
        return;
      }
      if (result.setCookie !== undefined) res.setHeader('Set-Cookie', result.setCookie);
      request.principal = result.principal;
      request.csrf = result.session?.csrf ?? '';
      if (method === 'POST') {
        const form = await readForm(req);
        if (!form.ok) {
          sendError(req, res, {
            status: form.status,
            error: 'bad-body',
            message: form.message,
            headers: { Connection: 'close' },
          });
          return;
        }
        // A Bearer caller's header cannot be forged by another site; a cookie is sent by the browser on its own.
        if (
          result.principal.via === 'cookie' &&
          !this.auth.csrfOk(req, result.session, form.form)
        ) {
          sendError(req, res, {
            status: 403,
            error: 'csrf',
            message:
              'The form is out of date or was not sent from the console: reload the page and try again.',
          });
          return;
        }
        if (result.principal.via === 'bearer' && this.auth.open) {
          // An open listener has no Bearer token to prove intent: a POST needs the console's session.
          sendError(req, res, {
            status: 403,
            error: 'csrf',
            message: 'Without http.token, actions are taken from the console page only.',
          });
          return;
        }
        request.form = form.form;
      }
    } else if (method === 'POST') {
      const form = await readForm(req);
      if (!form.ok) {
        sendError(req, res, {
          status: form.status,
          error: 'bad-body',
          message: form.message,
          headers: { Connection: 'close' },
        });
        return;
      }
      request.form = form.form;
    }
    await route.handle(request);
  }

  private async refuse(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    reason: 'none' | 'wrong' | 'locked',
    retryAfterSeconds: number | undefined,
    browser: boolean,
  ): Promise<void> {
    if (reason === 'locked') {
      await delay(this.failureDelayMs);
      sendError(req, res, {
        status: 429,
        error: 'too-many-attempts',
        message: 'Too many wrong tokens were tried; wait and try again.',
        headers: { 'Retry-After': String(retryAfterSeconds ?? 1) },
      });
      return;
    }
    if (reason === 'wrong') {
      await delay(this.failureDelayMs);
      sendError(req, res, {
        status: 401,
        error: 'unauthorized',
        message: 'The Bearer token is not the console token.',
        headers: { 'WWW-Authenticate': 'Bearer realm="edoc-bridge", error="invalid_token"' },
      });
      return;
    }
    if (browser) {
      redirect(res, `/login?next=${encodeURIComponent(`${url.pathname}${url.search}`)}`);
      return;
    }
    sendError(req, res, {
      status: 401,
      error: 'unauthorized',
      message: 'Send Authorization: Bearer <http.token>, or log in at /login.',
      headers: { 'WWW-Authenticate': 'Bearer realm="edoc-bridge"' },
    });
  }

  private async loginRoute(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    method: string | undefined,
  ): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    if (url.pathname === '/login' && method === 'GET') {
      showLogin(this.auth, req, res, url);
      return;
    }
    if (method !== 'POST') {
      const allow = url.pathname === '/login' ? 'GET, POST' : 'POST';
      sendError(req, res, {
        status: 405,
        error: 'method-not-allowed',
        message: `Use ${allow} here.`,
        headers: { Allow: allow },
      });
      return;
    }
    const form = await readForm(req);
    if (!form.ok) {
      sendError(req, res, {
        status: form.status,
        error: 'bad-body',
        message: form.message,
        headers: { Connection: 'close' },
      });
      return;
    }
    if (url.pathname === '/login') {
      await doLogin(this.auth, req, res, form.form, this.failureDelayMs);
      return;
    }
    const session = this.auth.currentSession(req);
    if (session !== undefined && !this.auth.csrfOk(req, session, form.form)) {
      sendError(req, res, {
        status: 403,
        error: 'csrf',
        message:
          'The form is out of date or was not sent from the console: reload the page and try again.',
      });
      return;
    }
    doLogout(this.auth, req, res);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The host name of a Host header (`name:port`, `[v6]:port`). */
function hostName(header: string): string {
  const match = /^\[([^\]]*)\](?::\d*)?$/.exec(header) ?? /^([^:]*)(?::\d*)?$/.exec(header);
  return match === null ? header : match[1];
}

/** The decoded named groups when `path` matches the whole pathname; null when a group is badly encoded; undefined on no match. */
function matchPath(
  path: string | RegExp,
  pathname: string,
): Record<string, string> | null | undefined {
  if (typeof path === 'string') return path === pathname ? {} : undefined;
  const match = path.exec(pathname);
  if (match === null || match.index !== 0 || match[0].length !== pathname.length) return undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(match.groups ?? {})) {
    if (value === undefined) continue;
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  return params;
}
