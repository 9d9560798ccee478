/**
 * The console's login and logout: `GET /login` (a form), `POST /login` (the token → a session
 * cookie, then back to `next`), `POST /logout`. `next` is kept only when it is a path of this
 * listener, so the form cannot be used to send someone elsewhere after logging in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperatorAuth } from './auth.js';
import { escapeHtml, page, redirect, safeNext, sendHtml } from './replies.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

export function loginForm(next: string, problem?: string): string {
  const alert = problem === undefined ? '' : `<p role="alert">${escapeHtml(problem)}</p>`;
  return page(
    'Log in',
    `<main><h1>edoc-bridge</h1>${alert}` +
      '<form method="post" action="/login">' +
      `<input type="hidden" name="next" value="${escapeHtml(next)}">` +
      '<label>Console token <input type="password" name="token" autocomplete="current-password" required autofocus></label> ' +
      '<button type="submit">Log in</button></form>' +
      "<p>The token is the configuration's <code>http.token</code>.</p></main>",
  );
}

export function showLogin(
  auth: OperatorAuth,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): void {
  const next = safeNext(url.searchParams.get('next'));
  if (auth.open) {
    redirect(res, next, NO_STORE);
    return;
  }
  sendHtml(res, 200, loginForm(next), NO_STORE);
}

/** A failed login is answered only after `failureDelayMs`, whatever the reason, to slow guessing. */
export async function doLogin(
  auth: OperatorAuth,
  req: IncomingMessage,
  res: ServerResponse,
  form: URLSearchParams,
  failureDelayMs: number,
): Promise<void> {
  const next = safeNext(form.get('next'));
  if (auth.open) {
    redirect(res, next, NO_STORE);
    return;
  }
  const result = await auth.login(req, form.get('token') ?? '');
  if (result.ok) {
    redirect(res, next, { ...NO_STORE, 'Set-Cookie': auth.sessionCookie(req, result.session) });
    return;
  }
  await new Promise((resolve) => setTimeout(resolve, failureDelayMs));
  if (result.locked) {
    sendHtml(
      res,
      429,
      loginForm(
        next,
        `Too many wrong tokens were tried here: try again in ${result.retryAfterSeconds ?? 1} s.`,
      ),
      { ...NO_STORE, 'Retry-After': String(result.retryAfterSeconds ?? 1) },
    );
  } else {
    sendHtml(res, 401, loginForm(next, 'That is not the console token.'), NO_STORE);
  }
}

export function doLogout(auth: OperatorAuth, req: IncomingMessage, res: ServerResponse): void {
  const session = auth.currentSession(req);
  auth.sessions.end(session?.id);
  redirect(res, '/login', { ...NO_STORE, 'Set-Cookie': auth.clearedCookie(req) });
}
