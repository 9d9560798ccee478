/**
 * E12: received documents of the company between start_date and end_date
 * (whole end day included), newest document date first, paginated.
 */
import { authenticate } from '../auth.js';
import { envelopeReply, parseIntStrict, type EmulatorRequest, type Reply } from '../http.js';
import { writtenDay } from '../../policy/dates.js';
import { isValidDate } from '../../service/schemas/common.js';
import type { EmulatorState } from '../state.js';

/** The message the spec describes for a date not in yyyy-MM-dd (it names both received values). */
export function badDateMessage(start: string, end: string): string {
  return `Invalid date format. Expected yyyy-MM-dd, received start_date='${start}', end_date='${end}'`;
}

/** The framework's own 400 (Spring-like), not an envelope. */
function frameworkBadRequest(path: string): Reply {
  return {
    status: 400,
    body: {
      timestamp: new Date().toISOString().replace('Z', '+00:00'),
      status: 400,
      error: 'Bad Request',
      path,
    },
  };
}

/** The document's day as written (a timestamp in another zone keeps its own date). */
function dayOf(httpDate: unknown): string | undefined {
  return typeof httpDate === 'string' ? writtenDay(httpDate) : undefined;
}

export function handleReceived(state: EmulatorState, req: EmulatorRequest): Reply {
  const auth = authenticate(state, req.headers);
  if (!auth.ok) {
    const message =
      auth.failure === 'missing-key' || auth.failure === 'missing-company'
        ? 'Faltan los encabezados de autenticación x-api-key y x-company-id.'
        : `La llave de acceso no corresponde a la empresa ${auth.companyText}.`;
    return envelopeReply(401, 401, false, null, [message]);
  }
  const q = req.url.searchParams;
  const start = q.get('start_date');
  const end = q.get('end_date');
  if (start === null || end === null || start === '' || end === '')
    return frameworkBadRequest(req.url.pathname);
  if (!isValidDate(start) || !isValidDate(end)) {
    return envelopeReply(500, 500, false, null, [badDateMessage(start, end)]);
  }
  const pageText = q.get('page');
  const perPageText = q.get('per_page');
  const page = pageText === null || pageText === '' ? 1 : parseIntStrict(pageText);
  const perPage = perPageText === null || perPageText === '' ? 20 : parseIntStrict(perPageText);
  // A non-numeric page is a framework type-mismatch 400 in a Spring service.
  if (page === undefined || perPage === undefined || page < 1 || perPage < 1)
    return frameworkBadRequest(req.url.pathname);

  const matching = auth.company.received
    .map((doc) => ({ doc, day: dayOf(doc.documentDate) }))
    .filter((d) => d.day !== undefined && start <= d.day && d.day <= end)
    .sort((a, b) => {
      const byDate =
        Date.parse(String(b.doc.documentDate)) - Date.parse(String(a.doc.documentDate));
      if (byDate !== 0) return byDate;
      return (
        (Date.parse(String(b.doc.receivedDate)) || 0) -
        (Date.parse(String(a.doc.receivedDate)) || 0)
      );
    })
    .map((d) => d.doc);
  const total = matching.length;
  const data = matching.slice((page - 1) * perPage, page * perPage);
  return envelopeReply(200, 200, true, {
    data,
    page,
    per_page: perPage,
    total,
    total_pages: total === 0 ? 0 : Math.ceil(total / perPage),
  });
}
