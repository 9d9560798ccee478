/**
 * The operator listener (node:http, no framework): health and readiness for probes, metrics for
 * Prometheus, the console for people. Routes (http/route.ts) say what they serve and who may call
 * them; http/request-handler.ts does what every request needs (authentication, CSRF, form bodies,
 * one error shape). This file is the listener: its address and token checks, timeouts against slow
 * peers, the connection gate, and close.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '../config/loopback.js';
import { parseListen } from '../config/http-schema.js';
import { EdocError } from '../errors.js';
import { excerpt } from '../policy/excerpt.js';
import { OperatorAuth } from './auth.js';
import { ConnectionGate, type ConnectionGateOptions } from './connection-gate.js';
import type { LoginGuardOptions } from './login-guard.js';
import { RequestHandler, type RequestHandlerOptions } from './request-handler.js';

export interface OperatorServerOptions extends RequestHandlerOptions {
  /** `host:port` or `[v6]:port` (config `http.listen`). */
  listen: string;
  /** Bearer token of the `token` routes (config `http.token`); without it they are open (loopback only). */
  token?: string;
  /** An idle console session ends after this long. @defaultValue 30 minutes */
  sessionIdleMs?: number;
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
