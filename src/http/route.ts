/**
 * The contract between the operator listener (http/server.ts) and what it serves (health, metrics,
 * the console). A route names its method, path and who may call it; the server does the rest:
 * authentication (Bearer token or the console's session cookie), the CSRF check of every
 * authenticated POST made with a cookie, form parsing, and one JSON error shape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** `public`: anyone who reaches the listener (health probes); `token`: Bearer token or session cookie. */
export type RouteAccess = 'public' | 'token';

/** Who called an authenticated route, for the ledger's who/when of an action. */
export interface Principal {
  /** How the caller proved the token. */
  via: 'bearer' | 'cookie';
  /** A short, non-secret name for the ledger ('console' or 'api'; 'local' when no token is configured); never the token. */
  name: string;
}

export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** A RegExp path's named groups, decoded. */
  params: Record<string, string>;
  /** Present on `token` routes. */
  principal?: Principal;
  /** The session's CSRF token, to embed in forms as `_csrf` (the server checks it on POST). Empty for Bearer callers. */
  csrf: string;
  /** A POST's urlencoded form (already read and CSRF-checked); empty for GET. */
  form: URLSearchParams;
}

export interface Route {
  method: 'GET' | 'POST';
  /** Exact path, or a RegExp tested against the whole pathname (named groups become `params`). */
  path: string | RegExp;
  access: RouteAccess;
  /** A health or readiness probe: also served on the connections held in reserve when the listener is full (http/connection-gate.ts). */
  probe?: boolean;
  handle(request: RouteRequest): Promise<void> | void;
}
