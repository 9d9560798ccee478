/**
 * HTML for the console: a tagged template that escapes every value it is given (file names, customer
 * names and service messages are hostile input), so a page cannot forget to. Only `Html` values (the
 * output of `html` itself) pass unescaped. No inline script or style anywhere: the listener's CSP
 * (default-src 'self') holds.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escaped text; control characters (which a non-UTF-8 file name decoded oddly may hold) and the
 * bidirectional embeddings, overrides and isolates (U+202E would show `gpj.exe` as `exe.jpg`, and
 * turn the cells after it around) shown as U+FFFD.
 */
export function escape(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ESCAPES[c])
    .replace(
      // eslint-disable-next-line no-control-regex -- replacing control characters is the point
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g,
      '\uFFFD',
    )
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly Value[]).map(render).join('');
  return escape(String(value as string | number | boolean));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** A link within the console: path segments and query values percent-encoded. */
export function href(
  path: string,
  query: Record<string, string | number | undefined> = {},
): string {
  const q = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return q === '' ? path : `${path}?${q}`;
}

export function when(ms: number | null | undefined): string {
  return ms === null || ms === undefined
    ? ''
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}

/** Long input cut for a table cell (the full text is on the document's page). */
export function cut(text: string | null | undefined, max = 120): string {
  if (text === null || text === undefined) return '';
  return text.length <= max ? text : `${text.slice(0, max - 1)}… (${text.length} chars)`;
}

const NAV: [string, string][] = [
  ['/', 'Companies'],
  ['/files', 'Files'],
  ['/attention?state=failed', 'Failed'],
  ['/attention?state=in-doubt', 'In doubt'],
  ['/received', 'Received'],
  ['/alerts', 'Alerts'],
];

/** The whole page around `body`. */
const SEARCH_BY: [string, string][] = [
  ['any', 'any'],
  ['file', 'file name'],
  ['number', 'document number'],
  ['customer', 'customer id'],
];

export function layout(title: string, body: Html, search = '', by = 'any'): string {
  return `<!doctype html>\n${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · edoc-bridge</title><link rel="stylesheet" href="/console.css"></head><body>
<header><strong>edoc-bridge</strong><nav>${NAV.map(([path, label]) => html`<a href="${path}">${label}</a>`)}</nav>
<form class="search" method="get" action="/search"><input type="search" name="q" value="${search}" placeholder="file name, document number or customer id" aria-label="Search">
<select name="by" aria-label="Search by">${SEARCH_BY.map(([value, label]) =>
      value === by
        ? html`<option value="${value}" selected>${label}</option>`
        : html`<option value="${value}">${label}</option>`,
    )}</select>
<button type="submit">Search</button></form>
<form method="post" action="/logout" class="logout"><button type="submit">Log out</button></form></header>
<main><h1>${title}</h1>${body}</main></body></html>`.text
  }\n`;
}

/** The logout form needs the session's CSRF token: layout() leaves a marker the route fills in. */
export function withCsrf(page: string, csrf: string): string {
  return page.replace(
    '<form method="post" action="/logout" class="logout">',
    `<form method="post" action="/logout" class="logout"><input type="hidden" name="_csrf" value="${escape(csrf)}">`,
  );
}

export function stateBadge(state: string): Html {
  return html`<span class="state state-${state.replace(/[^a-z-]/g, '')}">${state}</span>`;
}
