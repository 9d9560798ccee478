/**
 * The operator console: plain server-rendered HTML on the operator listener, every route behind the
 * token (session cookie or Bearer) but an empty /favicon.ico. No front-end build and no script: each page is one paged ledger
 * query (ledger/console-queries.ts) rendered by a pure function, and actions are forms POSTed with the
 * session's CSRF token (checked by the listener).
 */
import { redirect, sendError, sendHtml } from '../replies.js';
import type { Route, RouteRequest } from '../route.js';
import type { ConsoleDeps } from './deps.js';
import { layout, withCsrf, type Html } from './html.js';
import { Notices } from './notices.js';
import { documentPage, type Notice } from './page-document.js';
import {
  attentionPage,
  filePage,
  FILE_STATES,
  filesPage,
  searchPage,
  type SearchResults,
} from './pages-documents.js';
import { alertsTable, companiesPage, receivedPage } from './pages-overview.js';
import { confinedFile, sendPdf } from './received-pdf.js';
import { CONSOLE_CSS } from './style.js';
import type { FileState } from '../../ledger/types.js';

/** Rows per page of every list. */
export const CONSOLE_PAGE = 50;
const ALERTS_SHOWN = 100;

function cursor(r: RouteRequest, name: string): number | undefined {
  const text = r.url.searchParams.get(name);
  return text !== null && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

function notFound(r: RouteRequest, what: string): void {
  sendError(r.req, r.res, {
    status: 404,
    error: 'not-found',
    message: `There is no such ${what}.`,
  });
}

export function consoleRoutes(deps: ConsoleDeps): Route[] {
  const q = deps.ledger.console;
  const notices = new Notices();
  // every page: names and messages from outside may quote a configured secret
  const show = (r: RouteRequest, title: string, body: Html, search = '', by = 'any'): void => {
    const page = layout(title, body, search, by);
    sendHtml(r.res, 200, withCsrf(deps.scrub === undefined ? page : deps.scrub(page), r.csrf));
  };
  // after an action the browser is sent to the document's page (a reload then does not post the form again)
  const afterAction = (r: RouteRequest, id: number, notice: Notice): void => {
    redirect(r.res, `/documents/${id}?notice=${notices.put(notice)}`);
  };
  const get = (
    path: string | RegExp,
    handle: (r: RouteRequest) => Promise<void> | void,
  ): Route => ({ method: 'GET', path, access: 'token', handle });
  const post = (path: RegExp, handle: (r: RouteRequest) => Promise<void> | void): Route => ({
    method: 'POST',
    path,
    access: 'token',
    handle,
  });
  const documentId = (r: RouteRequest): number | undefined =>
    /^\d{1,15}$/.test(r.params.id ?? '') ? Number(r.params.id) : undefined;

  const showDocument = async (r: RouteRequest, id: number, notice?: Notice): Promise<void> => {
    const h = await q.history(id);
    if (h === undefined) {
      notFound(r, 'document');
      return;
    }
    show(
      r,
      `Document ${h.document.key ?? `${h.document.file}#${h.document.index}`}`,
      documentPage(h, r.csrf, notice),
    );
  };

  return [
    // browsers ask for it on every page, the login form's too: nothing, and no error line in their console
    {
      method: 'GET',
      path: '/favicon.ico',
      access: 'public',
      handle: ({ res }) => {
        res.writeHead(204, { 'Cache-Control': 'max-age=86400' });
        res.end();
      },
    },
    get('/console.css', (r) => {
      r.res.writeHead(200, {
        'Content-Type': 'text/css; charset=utf-8',
        'Cache-Control': 'private, max-age=300',
      });
      r.res.end(CONSOLE_CSS);
    }),
    get('/', async (r) =>
      show(
        r,
        'Companies',
        companiesPage({
          companies: deps.companies(),
          counts: await q.countsByCompany(),
          ranges: deps.ranges?.(),
          alerts: deps.alerts?.recent(5),
        }),
      ),
    ),
    get('/alerts', (r) => show(r, 'Last alerts', alertsTable(deps.alerts?.recent(ALERTS_SHOWN)))),
    get('/files', async (r) => {
      const text = r.url.searchParams.get('state') ?? '';
      const state = FILE_STATES.includes(text as FileState) ? (text as FileState) : undefined;
      const page = await q.listFiles({
        ...(state === undefined ? {} : { state }),
        before: cursor(r, 'before'),
        limit: CONSOLE_PAGE,
      });
      show(
        r,
        state === undefined ? 'Files' : `Files ${state}`,
        filesPage(state, page.rows, page.next),
      );
    }),
    get(/^\/files\/(?<id>[^/]+)$/, async (r) => {
      const file = /^\d{1,15}$/.test(r.params.id ?? '')
        ? await q.file(Number(r.params.id))
        : undefined;
      if (file === undefined) {
        notFound(r, 'file');
        return;
      }
      const page = await q.fileDocuments(file.id, {
        after: cursor(r, 'after'),
        limit: CONSOLE_PAGE,
      });
      show(r, `File ${file.name}`, filePage(file, page.rows, page.next));
    }),
    get('/attention', async (r) => {
      const state = r.url.searchParams.get('state') === 'in-doubt' ? 'in-doubt' : 'failed';
      const page = await q.attention(state, { after: cursor(r, 'after'), limit: CONSOLE_PAGE });
      show(
        r,
        state === 'failed' ? 'Failed documents' : 'In-doubt documents',
        attentionPage(state, page.rows, page.next),
      );
    }),
    get('/search', async (r) => {
      const text = (r.url.searchParams.get('q') ?? '').trim().slice(0, 200);
      const byText = r.url.searchParams.get('by');
      const by: SearchResults['by'] =
        byText === 'file' || byText === 'number' || byText === 'customer' ? byText : 'any';
      const results: SearchResults = { q: text, by, files: [], documents: [] };
      if (text !== '') {
        if (by === 'any' || by === 'file') results.files = await q.findFiles(text, CONSOLE_PAGE);
        if (by === 'any' || by === 'number') results.documents = await q.byKey(text, CONSOLE_PAGE);
        if (by === 'customer' || (by === 'any' && results.documents.length === 0)) {
          const page = await q.byCustomer(text, { after: cursor(r, 'after'), limit: CONSOLE_PAGE });
          results.documents = page.rows;
          if (page.next !== undefined) results.next = page.next;
        }
      }
      show(r, 'Search', searchPage(results), text, by);
    }),
    get(/^\/documents\/(?<id>[^/]+)$/, async (r) => {
      const id = documentId(r);
      if (id === undefined) notFound(r, 'document');
      else await showDocument(r, id, notices.take(r.url.searchParams.get('notice')));
    }),
    post(/^\/documents\/(?<id>[^/]+)\/retry$/, async (r) => {
      const id = documentId(r);
      if (id === undefined) {
        notFound(r, 'document');
        return;
      }
      const outcome = await deps.actions.retry([id], {
        includeInDoubt: r.form.get('in-doubt') === '1',
        by: r.principal?.name ?? 'console',
      });
      afterAction(r, id, outcome);
    }),
    post(/^\/documents\/(?<id>[^/]+)\/resolve$/, async (r) => {
      const id = documentId(r);
      const word = r.form.get('word');
      if (id === undefined || (word !== 'issued' && word !== 'not-ours')) {
        sendError(r.req, r.res, {
          status: 400,
          error: 'bad-request',
          message: 'Say which document and word: issued or not-ours.',
        });
        return;
      }
      const note = (r.form.get('note') ?? '').trim().slice(0, 500);
      const outcome = await deps.actions.resolve([id], {
        word,
        by: r.principal?.name ?? 'console',
        ...(note === '' ? {} : { note }),
      });
      afterAction(r, id, outcome);
    }),
    get('/received', async (r) => {
      const companies = deps.companies().map((c) => c.alias);
      const asked = r.url.searchParams.get('company');
      const company = asked !== null && companies.includes(asked) ? asked : companies[0];
      const before = r.url.searchParams.get('before') ?? undefined;
      const page =
        company === undefined
          ? { rows: [] }
          : await q.received(company, {
              ...(before === undefined ? {} : { before }),
              limit: CONSOLE_PAGE,
            });
      show(r, 'Received documents', receivedPage(companies, company, page.rows, page.next));
    }),
    get(/^\/received\/(?<company>[^/]+)\/(?<id>[^/]+)\/pdf$/, async (r) => {
      const company = r.params.company ?? '';
      // only a configured company's folder, whatever the address says
      if (!deps.companies().some((c) => c.alias === company)) {
        notFound(r, 'received document');
        return;
      }
      const row = await q.receivedOne(company, r.params.id ?? '');
      const pdf = row?.files.find((f) => f.toLowerCase().endsWith('.pdf'));
      const file =
        pdf === undefined ? undefined : await confinedFile(deps.receivedDir(company), pdf);
      if (file === undefined || pdf === undefined) {
        notFound(r, 'received PDF');
        return;
      }
      await sendPdf(r.res, file, pdf);
    }),
  ];
}
