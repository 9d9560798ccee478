/**
 * The operator console over real HTTP (the listener of http/server.ts on a free loopback port) on a
 * real SQLite ledger in a temp folder: every page, the token, hostile names escaped everywhere, the
 * search by file name, number and customer id, retry and resolve from a form with the CSRF token
 * (recorded in the ledger with who), and a received PDF served only from its company's folder.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { consoleActions } from '../../src/daemon/operator-actions.js';
import { writeFileReport } from '../../src/daemon/file-reports.js';
import { consoleRoutes } from '../../src/http/console/routes.js';
import type { CompanyView } from '../../src/http/console/deps.js';
import { startOperatorServer, type OperatorServer } from '../../src/http/server.js';
import { Ledger } from '../../src/ledger/ledger.js';
import type { NewDocument } from '../../src/ledger/types.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import type { AlertRecord } from '../../src/alerts/alert-record.js';

const TOKEN = 'console-token-0123456789abcdef';
const EVIL = '<script>alert("x")</script>\'"&';
const LONG = `ventas-${'x'.repeat(5000)}.json`;

let dir: string;
let logger: AppLogger;
let ledger: Ledger;
let server: OperatorServer;
let woken = 0;
const alerts: AlertRecord[] = [];

function companies(): CompanyView[] {
  return [
    {
      alias: 'main',
      queued: 3,
      inFlight: 1,
      concurrency: 4,
      requestsPerSecond: 10,
      currentLimit: 5,
      paused: true,
      unreachable: false,
      storageBlocked: false,
    },
  ];
}

function doc(
  index: number,
  number: string | null,
  customer: string | null,
  raw = `{"n":${index}}`,
): NewDocument {
  return {
    index,
    source: { lines: [index + 1] },
    number,
    ownNumber: number !== null,
    request: { n: index },
    raw,
    customer,
  };
}

/** A file whose documents ended as `states` say (failed / in-doubt / accepted), through the ledger's own API. */
async function fileWith(
  name: string,
  docs: NewDocument[],
  states: ('failed' | 'in-doubt' | 'accepted')[],
): Promise<{ fileId: number; ids: number[] }> {
  const { fileId } = await ledger.recordFile({
    path: path.join(dir, 'inbox', name),
    name,
    size: 10,
    sha256: `sha-${name}`,
    kind: 'invoice',
    company: 'main',
    now: 1_000,
    outboxDir: path.join(dir, 'outbox', 'invoice'),
  });
  await ledger.insertDocuments(fileId, docs, 1_000);
  await ledger.finishReading(fileId, 1_000);
  const ids = (await ledger.claimDue('main', 2_000, 1000))
    .filter((d) => d.fileId === fileId)
    .map((d) => d.id);
  await ledger.markSending(ids, 2_000);
  await ledger.recordOutcomes(
    ids.map((id, i) => ({
      id,
      state: states[i],
      httpStatus: 500,
      maybeDelivered: states[i] === 'in-doubt',
      errors: [{ code: 'EDOC_SERVICE_TRANSIENT', message: `the service said ${EVIL}` }],
    })),
    3_000,
  );
  return { fileId, ids };
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-console-'));
  logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), secrets: [TOKEN] });
  ledger = Ledger.open(path.join(dir, 'state'));
  woken = 0;
  alerts.length = 0;
  const actions = consoleActions(ledger, {
    wake: () => {
      woken++;
    },
    report: (fileId) => writeFileReport(ledger, fileId, path.join(dir, 'outbox', 'invoice')),
  });
  server = await startOperatorServer({
    listen: '127.0.0.1:0',
    token: TOKEN,
    logger,
    failureDelayMs: 10,
    routes: consoleRoutes({
      ledger,
      companies,
      actions,
      alerts: { recent: (n) => alerts.slice(0, n) },
      ranges: () => [
        {
          company: 'main',
          prefix: 'SETP',
          documentType: 'Factura',
          from: 1,
          to: 1000,
          validUntil: '2027-01-31',
          lastUsed: 990,
          numbersLeft: 10,
          daysLeft: 67,
          readAt: 5_000,
        },
      ],
      receivedDir: (company) => path.join(dir, 'outbox', 'received', company),
    }),
  });
});

afterEach(async () => {
  await server.close();
  await ledger.close();
  await logger.close();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function call(
  pathname: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(`${server.url}${pathname}`, { redirect: 'manual', ...init });
  const text = await response.text();
  expect(text).not.toContain(TOKEN);
  return { status: response.status, headers: response.headers, text };
}

const bearer = { authorization: `Bearer ${TOKEN}` };

async function login(): Promise<{ cookie: string; csrf: string }> {
  const answer = await call('/login', {
    method: 'POST',
    body: new URLSearchParams({ token: TOKEN, next: '/' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(answer.status).toBe(303);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0];
  const page = await call('/', { headers: { cookie, accept: 'text/html' } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  expect(csrf).not.toBe('');
  return { cookie, csrf };
}

/** A form POSTed as the browser does, following the 303 to the page that shows what it came to. */
async function post(
  pathname: string,
  session: { cookie: string },
  fields: Record<string, string>,
): Promise<Answer> {
  const answer = await call(pathname, {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: {
      cookie: session.cookie,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
    },
  });
  if (answer.status !== 303) return answer;
  const location = answer.headers.get('location') ?? '';
  expect(location).toMatch(/^\/documents\/\d+\?notice=[\w-]+$/);
  const page = await call(location, { headers: { cookie: session.cookie, accept: 'text/html' } });
  // the notice is shown once: a reload shows the page without it (and posts nothing again)
  expect(
    (await call(location, { headers: { cookie: session.cookie, accept: 'text/html' } })).text,
  ).not.toContain('class="notice"');
  return page;
}

/** No hostile value reaches a page unescaped. */
function escaped(text: string): void {
  expect(text).not.toContain('<script>');
  expect(text).not.toContain('alert("x")</');
}

describe('the console', () => {
  test('every page needs the token: none → login (browser) or 401, wrong → 401, right → 200', async () => {
    for (const pathname of [
      '/',
      '/files',
      '/attention?state=failed',
      '/search?q=a',
      '/received',
      '/alerts',
      '/console.css',
      '/documents/1',
    ]) {
      expect((await call(pathname)).status).toBe(401);
    }
    // one wrong token (the listener locks out an address that keeps guessing)
    expect((await call('/files', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await call('/', { headers: { accept: 'text/html' } })).headers.get('location')).toBe(
      '/login?next=%2F',
    );
    const css = await call('/console.css', { headers: bearer });
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  test('companies: queue, rate, pause by 401, counts from the ledger, ranges and the last alerts, all escaped', async () => {
    await fileWith(
      'a.json',
      [doc(0, 'SETP/1', 'C1'), doc(1, 'SETP/2', 'C1')],
      ['failed', 'accepted'],
    );
    alerts.push({
      id: 'a1',
      kind: 'company-paused',
      severity: 'error',
      company: 'main',
      message: `paused ${EVIL}`,
      details: { why: EVIL },
      at: 4_000,
    });
    const page = await call('/', { headers: bearer });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    escaped(page.text);
    expect(page.text).toContain('paused: the service refused its key (401)');
    expect(page.text).toContain('5/s (slowed after a 429; 10/s configured)');
    expect(page.text).toContain(
      '<td class="num">10</td><td>2027-01-31</td><td class="num">67</td>',
    );
    expect(page.text).toContain('paused &lt;script&gt;');
    expect(page.text).not.toMatch(/<script|style=|\son[a-z]+=/i);
  });

  test('files by state with their documents, paged; hostile and very long names escaped and cut', async () => {
    const many = Array.from({ length: 120 }, (_, i) => doc(i, `SETP/${100 + i}`, null));
    await fileWith(
      LONG,
      many,
      many.map(() => 'accepted'),
    );
    const evil = await fileWith(
      EVIL,
      [doc(0, 'SETP/9', EVIL, `{"raw":"${'\\u0000'}\u0001 ${EVIL}"}`)],
      ['failed'],
    );
    const files = await call('/files?state=open', { headers: bearer });
    escaped(files.text);
    expect(files.text).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;&amp;',
    );
    expect(files.text).toContain('(5012 chars)');
    const list = await call('/files', { headers: bearer });
    const longId = /href="\/files\/(\d+)">ventas-x/.exec(list.text)?.[1];
    const first = await call(`/files/${longId}`, { headers: bearer });
    expect(first.text.match(/href="\/documents\/\d+"/g)).toHaveLength(50);
    expect(first.text).toContain(`href="/files/${longId}?after=49"`);
    const last = await call(`/files/${longId}?after=99`, { headers: bearer });
    expect(last.text.match(/href="\/documents\/\d+"/g)).toHaveLength(20);
    expect(last.text).not.toContain('?after=');
    const page = await call(`/documents/${evil.ids[0]}`, { headers: bearer });
    escaped(page.text);
    expect(page.text).toContain('\uFFFD');
    expect((await call('/files/999999', { headers: bearer })).status).toBe(404);
    expect((await call('/files/..%2F..', { headers: bearer })).status).toBe(404);
  });

  test('a bidirectional override in a name (U+202E) is shown as U+FFFD, not obeyed', async () => {
    const { ids } = await fileWith(
      'factura\u202egpj.exe.json',
      [doc(0, 'SETP/11', 'Cliente \u2067x\u2069 \u202dy')],
      ['failed'],
    );
    for (const page of ['/files', `/documents/${ids[0]}`]) {
      const { text } = await call(page, { headers: bearer });
      expect(text, page).toContain('factura\uFFFDgpj.exe.json');
      expect(text, page).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    }
  });

  test('search by file name, document number (key, prefix/number, PREFIXNUMBER) and customer id', async () => {
    const { ids } = await fileWith(
      'ventas-2026-11-03.json',
      [doc(0, 'SETP/990000123', '900123456'), doc(1, 'SETP/990000124', '800')],
      ['failed', 'accepted'],
    );
    const byName = await call('/search?q=ventas-2026&by=file', { headers: bearer });
    expect(byName.text).toContain('ventas-2026-11-03.json');
    for (const q of [
      'main/invoice/SETP/990000123',
      'SETP/990000123',
      'SETP990000123',
      'SETP/0990000123',
    ]) {
      const found = await call(`/search?q=${encodeURIComponent(q)}&by=number`, { headers: bearer });
      expect(found.text.match(/href="\/documents\/(\d+)"/g), q).toEqual([
        `href="/documents/${ids[0]}"`,
      ]);
    }
    const byCustomer = await call('/search?q=900123456', { headers: bearer });
    expect(byCustomer.text).toContain(`href="/documents/${ids[0]}"`);
    expect(byCustomer.text).not.toContain(`href="/documents/${ids[1]}"`);
    escaped((await call(`/search?q=${encodeURIComponent(EVIL)}`, { headers: bearer })).text);
  });

  test('a failed document is retried from its page (CSRF checked), the ledger records who, and the senders are woken', async () => {
    const { ids } = await fileWith('caida.json', [doc(0, 'SETP/5', null)], ['failed']);
    const session = await login();
    const failed = await call('/attention?state=failed', {
      headers: { cookie: session.cookie, accept: 'text/html' },
    });
    expect(failed.text).toContain(`href="/documents/${ids[0]}"`);
    expect((await post(`/documents/${ids[0]}/retry`, session, { action: 'retry' })).status).toBe(
      403,
    );
    expect(
      (await post(`/documents/${ids[0]}/retry`, session, { action: 'retry', _csrf: 'forged' }))
        .status,
    ).toBe(403);
    expect((await ledger.getDocument(ids[0]))?.state).toBe('failed');
    const done = await post(`/documents/${ids[0]}/retry`, session, {
      action: 'retry',
      _csrf: session.csrf,
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('re-queued 1 document(s) of 1 file(s)');
    expect((await ledger.getDocument(ids[0]))?.state).toBe('pending');
    expect(woken).toBe(1);
    const history = await ledger.console.history(ids[0]);
    expect(history?.events.at(-1)).toMatchObject({
      type: 'requeued',
      data: { by: 'console', includeInDoubt: false },
    });
    expect(done.text).toContain('requeued');
  });

  test("an in-doubt document: retry without the operator's word is refused; resolve --issued records who and rewrites the report", async () => {
    const { ids } = await fileWith('dudas.json', [doc(0, null, null)], ['in-doubt']);
    const session = await login();
    const refused = await post(`/documents/${ids[0]}/retry`, session, { _csrf: session.csrf });
    expect(refused.text).toContain('were not released');
    expect((await ledger.getDocument(ids[0]))?.state).toBe('in-doubt');
    const resolved = await post(`/documents/${ids[0]}/resolve`, session, {
      _csrf: session.csrf,
      word: 'issued',
      note: `portal ${EVIL}`,
    });
    escaped(resolved.text);
    expect(resolved.text).toContain(
      'recorded 1 document(s) as issued (accepted); nothing was sent',
    );
    expect(resolved.text).toMatch(/report rewritten: .*dudas\.result\.json/);
    expect((await ledger.getDocument(ids[0]))?.state).toBe('accepted');
    expect((await ledger.console.history(ids[0]))?.events.at(-1)).toMatchObject({
      type: 'confirmed-issued',
      data: { by: 'console' },
    });
    expect(
      (await post(`/documents/${ids[0]}/resolve`, session, { _csrf: session.csrf, word: 'maybe' }))
        .status,
    ).toBe(400);
  });

  test("a received PDF is served as an attachment from its company's folder only; traversal and other folders are 404", async () => {
    const received = path.join(dir, 'outbox', 'received', 'main');
    await mkdir(path.join(received, '2026-11'), { recursive: true });
    await writeFile(path.join(received, '2026-11', 'FE1_abc.pdf'), '%PDF-1.4 test');
    await writeFile(path.join(dir, 'secret.pdf'), '%PDF-1.4 secret');
    await ledger.recordReceived({
      company: 'main',
      documentId: 'cufe-1',
      documentNumber: EVIL,
      documentDate: '2026-11-03',
      files: ['2026-11/FE1_abc.json', '2026-11/FE1_abc.pdf'],
      at: 1_000,
    });
    await ledger.recordReceived({
      company: 'main',
      documentId: 'cufe-2',
      documentNumber: 'FE2',
      files: ['../../../secret.pdf'],
      at: 1_000,
    });
    await ledger.recordReceived({
      company: 'main',
      documentId: 'cufe-3',
      documentNumber: 'FE3',
      files: [path.join(dir, 'secret.pdf')],
      at: 1_000,
    });
    await ledger.recordReceived({
      company: 'main',
      documentId: 'cufe-0',
      documentNumber: 'FE-LATEST',
      files: [],
      at: 9_000,
    });
    const list = await call('/received', { headers: bearer });
    escaped(list.text);
    expect(list.text.indexOf('FE-LATEST')).toBeLessThan(list.text.indexOf('cufe-1')); // newest recorded first
    expect(list.text).toContain('href="/received/main/cufe-1/pdf"');
    const pdf = await call('/received/main/cufe-1/pdf', { headers: bearer });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe('attachment; filename="FE1_abc.pdf"');
    expect(pdf.text).toBe('%PDF-1.4 test');
    for (const evil of [
      '/received/main/cufe-2/pdf',
      '/received/main/cufe-3/pdf',
      '/received/..%2F..%2F..%2F/cufe-1/pdf',
      '/received/other/cufe-1/pdf',
      '/received/main/..%2Fcufe-1/pdf',
    ]) {
      const answer = await call(evil, { headers: bearer });
      expect(answer.status, evil).toBe(404);
      expect(answer.text).not.toContain('secret');
    }
  });
});
