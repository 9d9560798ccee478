/** The console's overview pages: companies (queue, rate, pause, ranges), the last alerts, received documents. */
import type { AlertRecord } from '../../alerts/alert-record.js';
import type { ReceivedRow } from '../../ledger/console-queries.js';
import type { StateCounts } from '../../ledger/types.js';
import type { RangeState } from '../../ranges/range-state.js';
import type { CompanyView } from './deps.js';
import { cut, href, html, type Html, when } from './html.js';

export interface CompaniesPage {
  companies: readonly CompanyView[];
  counts: ReadonlyMap<string, StateCounts>;
  ranges: readonly RangeState[] | undefined;
  alerts: readonly AlertRecord[] | undefined;
}

function pause(c: CompanyView): Html {
  if (c.paused)
    return html`<span class="state state-failed">paused: the service refused its key (401); fix the key and reload</span>`;
  if (c.unreachable) return html`<span class="state state-in-doubt">service not answering</span>`;
  if (c.storageBlocked)
    return html`<span class="state state-in-doubt">waiting for disk space</span>`;
  return html`<span class="state state-accepted">sending</span>`;
}

export function companiesPage(p: CompaniesPage): Html {
  const rows = p.companies.map((c) => {
    const n = p.counts.get(c.alias);
    const rate =
      c.currentLimit < c.requestsPerSecond
        ? html`${c.currentLimit}/s (slowed after a 429; ${c.requestsPerSecond}/s configured)`
        : html`${c.requestsPerSecond}/s`;
    return html`<tr><td>${c.alias}</td><td>${pause(c)}</td><td class="num">${n?.pending ?? 0}</td><td class="num">${c.queued}</td>
<td class="num">${c.inFlight}</td><td>${rate}</td><td class="num">${c.concurrency}</td>
<td class="num"><a href="${href('/attention', { state: 'failed' })}">${n?.failed ?? 0}</a></td>
<td class="num"><a href="${href('/attention', { state: 'in-doubt' })}">${n?.['in-doubt'] ?? 0}</a></td></tr>`;
  });
  const ranges =
    p.ranges === undefined
      ? html`<p class="muted">The numbering-range watch is not running.</p>`
      : p.ranges.length === 0
        ? html`<p class="muted">No active range read yet.</p>`
        : html`<table><tr><th>company</th><th>prefix</th><th>type</th><th>from</th><th>to</th><th>last used</th><th>numbers left</th>
<th>valid until</th><th>days left</th><th>read at</th></tr>${p.ranges.map(
            (r) => html`<tr><td>${r.company}</td><td>${r.prefix}</td>
<td>${r.documentType}</td><td class="num">${r.from}</td><td class="num">${r.to}</td><td class="num">${r.lastUsed ?? ''}</td>
<td class="num">${r.numbersLeft}</td><td>${r.validUntil}</td><td class="num">${r.daysLeft}</td><td>${when(r.readAt)}</td></tr>`,
          )}</table>`;
  return html`<table><tr><th>company</th><th>state</th><th>pending</th><th>queued</th><th>in flight</th><th>rate</th>
<th>concurrency</th><th>failed</th><th>in doubt</th></tr>${rows}</table>
<h2>Numbering ranges</h2>${ranges}
<h2>Last alerts</h2>${alertsTable(p.alerts?.slice(0, 5))}<p><a href="/alerts">All recent alerts</a></p>`;
}

export function alertsTable(alerts: readonly AlertRecord[] | undefined): Html {
  if (alerts === undefined) return html`<p class="muted">Alerts are not configured.</p>`;
  if (alerts.length === 0) return html`<p class="muted">No alert yet.</p>`;
  return html`<table><tr><th>at</th><th>severity</th><th>kind</th><th>company</th><th>message</th><th>details</th></tr>
${alerts.map(
  (
    a,
  ) => html`<tr><td>${when(a.at)}</td><td>${a.severity}</td><td>${a.kind}</td><td>${a.company ?? ''}</td>
<td>${cut(a.message, 300)}</td><td>${cut(
    Object.entries(a.details)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', '),
    300,
  )}</td></tr>`,
)}</table>`;
}

export function receivedPage(
  companies: readonly string[],
  company: string | undefined,
  rows: readonly ReceivedRow[],
  next: string | undefined,
): Html {
  const tabs = html`<p>${companies.map((c) => html`<a href="${href('/received', { company: c })}">${c === company ? html`<strong>${c}</strong>` : c}</a> `)}</p>`;
  if (company === undefined) return html`${tabs}<p class="muted">No company configured.</p>`;
  if (rows.length === 0)
    return html`${tabs}<p class="muted">No received document recorded for ${company}.</p>`;
  return html`${tabs}<table><tr><th>number</th><th>date</th><th>service id</th><th>pulled at</th><th>files</th></tr>
${rows.map((r) => {
  const pdf = r.files.some((f) => f.toLowerCase().endsWith('.pdf'))
    ? html`<a href="${href(`/received/${encodeURIComponent(r.company)}/${encodeURIComponent(r.documentId)}/pdf`)}">PDF</a>`
    : html`<span class="muted">no PDF</span>`;
  return html`<tr><td>${cut(r.documentNumber, 60)}</td><td>${r.documentDate ?? ''}</td><td>${cut(r.documentId, 40)}</td><td>${when(r.at)}</td><td>${pdf}</td></tr>`;
})}</table>
${next === undefined ? '' : html`<p class="pager"><a href="${href('/received', { company, before: next })}">Older</a></p>`}`;
}
