/**
 * How the operator listener answers outside a route's own page: the security headers every answer
 * carries, the one JSON error shape, a small HTML error page for browsers, and HTML escaping.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // Pages load only their own scripts, styles and images; no framing; forms post only to us.
  'Content-Security-Policy':
    "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** Whether the caller is a browser navigating (it gets pages and redirects, not JSON). */
export function wantsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /\btext\/html\b/i.test(accept);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
  });
  res.end(html);
}

/** A small complete page; `body` is HTML the caller already escaped. */
export function page(title: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)} · edoc-bridge</title></head><body>${body}</body></html>\n`
  );
}

export interface ErrorReply {
  status: number;
  /** Stable, short: `not-found`, `unauthorized`… */
  error: string;
  /** One line for a person; never input quoted at length, never a secret. */
  message: string;
  requestId?: string;
  headers?: Record<string, string>;
}

/** `{ error, message, requestId? }` as JSON, or the same as a small page for a browser. */
export function sendError(req: IncomingMessage, res: ServerResponse, reply: ErrorReply): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = {
    error: reply.error,
    message: reply.message,
    ...(reply.requestId === undefined ? {} : { requestId: reply.requestId }),
  };
  if (wantsHtml(req)) {
    const id =
      reply.requestId === undefined
        ? ''
        : `<p>Request id: <code>${escapeHtml(reply.requestId)}</code></p>`;
    sendHtml(
      res,
      reply.status,
      page(`${reply.status}`, `<h1>${reply.status}</h1><p>${escapeHtml(reply.message)}</p>${id}`),
      reply.headers,
    );
  } else {
    sendJson(res, reply.status, body, reply.headers);
  }
}

/** 303 to a path of this listener (never an absolute URL: the target was checked by `safeNext`). */
export function redirect(
  res: ServerResponse,
  location: string,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(303, { ...headers, Location: location, 'Content-Length': 0 });
  res.end();
}

/**
 * `next` as a redirect target when it is a same-origin relative path (`/…`, not `//host` nor `/\host`,
 * which browsers read as another host; no control characters); otherwise `/`.
 */
export function safeNext(next: string | null | undefined): string {
  if (next === null || next === undefined || next === '' || next.length > 2_000) return '/';
  if (
    !next.startsWith('/') ||
    next.startsWith('//') ||
    next.startsWith('/\\') ||
    // eslint-disable-next-line no-control-regex -- refusing control characters is the point
    /[\u0000-\u001f\u007f\\]/.test(next)
  )
    return '/';
  try {
    const url = new URL(next, 'http://listener.invalid');
    // dot segments can resolve `/.//host` to `//host`, which a browser reads as another host
    if (url.host !== 'listener.invalid' || url.pathname.startsWith('//')) return '/';
    return `${url.pathname}${url.search}`;
  } catch {
    return '/';
  }
}
