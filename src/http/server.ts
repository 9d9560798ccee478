/**
 * The operator listener (node:http, no framework): health and readiness for probes, metrics for
 * Prometheus, the console for people. Routes (http/route.ts) say what they serve and who may call
 * them; this file does what every route needs: authentication (http/auth.ts), the CSRF check of
 * cookie POSTs, form bodies within a size limit, timeouts against slow peers, security headers, and
 * one error shape. A route that throws gives a 500 with a request id and one log line: a request
 * never takes the daemon down.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '../config/loopback.js';
import { parseListen } from '../config/http-schema.js';
import { EdocError } from '../errors.js';
import type { AppLogger } from '../log/logger.js';
import { excerpt } from '../policy/excerpt.js';
import { OperatorAuth } from './auth.js';
import { ConnectionGate, type ConnectionGateOptions } from './connection-gate.js';
import { readForm } from './form-body.js';
import type { LoginGuardOptions } from './login-guard.js';
import { doLogin, doLogout, showLogin } from './login-page.js';
import { redirect, SECURITY_HEADERS, sendError, wantsHtml } from './replies.js';
import type { Route, RouteRequest } from './route.js';

export interface OperatorServerOptions {
  /** `host:port` or `[v6]:port` (config `http.listen`). */
  listen: string;
  /** Bearer token of the `token` routes (config `http.token`); without it they are open (loopback only). */
  token?: string;
  routes: readonly Route[];
  logger: AppLogger;
  /** An idle console session ends after this long. @defaultValue 30 minutes */
  sessionIdleMs?: number;
  /** A wrong token is answered only after this long. @defaultValue 500 */
  failureDelayMs?: number;
  /** The rationing of token comparisons once wrong tokens pile up (http/login-guard.ts). */
  guard?: LoginGuardOptions;
  /** How long a client may take to send its headers. @defaultValue 5000 */
  headersTimeoutMs?: number;
  /** Connections open at once, per address, and held in reserve for probes (http/connection-gate.ts). */
  connections?: ConnectionGateOptions;
}

export interface OperatorServer {
  /** `http://host:port` as bound (the real port when `listen` asked for 0). */
  readonly url: string;
  /** A new token (SIGHUP): sessions made with the old one end. */
  setToken(token: string | undefined): void;
  /** Whether the token routes need a token now (false: open, loopback only). */
  readonly guarded: boolean;
  close(): Promise<void>;
}

/** How long a client may take to send its headers (a probe or a browser on the LAN takes milliseconds), and its whole request. */
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export async function startOperatorServer(options: OperatorServerOptions): Promise<OperatorServer> {
  const address = parseListen(options.listen);
  if (address === undefined) {
    throw new EdocError(
      'EDOC_HTTP_LISTEN',
      `http.listen: "${excerpt(options.listen)}" is not host:port`,
      { path: 'http.listen' },
    );
  }
  if (!isLoopbackHost(address.host) && options.token === undefined) {
    throw new EdocError(
      'EDOC_CONFIG_INVALID',
      `http.token: required when http.listen (${options.listen}) is not a loopback address`,
      { path: 'http.token' },
    );
  }
  const auth = new OperatorAuth({
    token: options.token,
    sessionIdleMs: options.sessionIdleMs,
    guard: options.guard,
  });
  const gate = new ConnectionGate(options.connections);
  const handler = new RequestHandler(options, auth, isLoopbackHost(address.host), gate);
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // how often Node looks for requests past those timeouts (30 s by default: a slow client would get 40 s)
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      void handler.handle(req, res);
    },
  );
  gate.attach(server);
  server.on('clientError', (_err, socket) => {
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  await listen(server, address.host, address.port, options.listen);
  const bound = server.address() as AddressInfo;
  const host =
    bound.family === 'IPv6' || bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  const url = `http://${host}:${bound.port}`;
  options.logger.info(
    { url, auth: options.token === undefined ? 'none (loopback only)' : 'token' },
    'operator listener started',
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    setToken: (token) => auth.setToken(token),
    get guarded() {
      return !auth.open;
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        auth.sessions.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function listen(server: Server, host: string, port: number, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const why =
        err.code === 'EADDRINUSE'
          ? 'the port is in use by another process'
          : err.code === 'EADDRNOTAVAIL'
            ? 'this machine has no such address'
            : err.code === 'EACCES'
              ? 'not allowed to bind this port'
              : (err.code ?? err.message);
      reject(
        new EdocError('EDOC_HTTP_LISTEN', `http.listen: cannot listen on ${text}: ${why}`, {
          path: 'http.listen',
          errno: err.code,
        }),
      );
    };
    server.once('error', onError);
    server.listen({ host, port }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

class RequestHandler {
  private readonly failureDelayMs: number;

  constructor(
    private readonly options: OperatorServerOptions,
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
