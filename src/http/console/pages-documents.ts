/** The console's lists: files by state, a file's documents, search results, failed and in-doubt documents. */
import type { ConsoleDocument, ConsoleFile } from '../../ledger/console-queries.js';
import type { FileState } from '../../ledger/types.js';
import { cut, href, html, type Html, stateBadge, when } from './html.js';

export const FILE_STATES: readonly FileState[] = ['reading', 'open', 'done', 'failed-read'];

/** How a document is named to a person: its key, or FILE#INDEX when it has no number of its own. */
export function documentName(d: ConsoleDocument): string {
  return d.key ?? `${d.file}#${d.index}`;
}

function lastError(d: ConsoleDocument): string {
  const first = [...d.errors, ...d.problems][0];
  return first === undefined
    ? ''
    : `${first.code === undefined ? '' : `${first.code}: `}${first.message}`;
}

export function documentsTable(docs: readonly ConsoleDocument[], withFile = true): Html {
  if (docs.length === 0) return html`<p class="muted">No document.</p>`;
  return html`<table><tr><th>document</th>${withFile ? html`<th>file</th>` : ''}<th>#</th><th>company</th><th>kind</th><th>state</th>
<th>attempts</th><th>customer</th><th>updated</th><th>last error</th></tr>
${docs.map(
  (d) => html`<tr><td><a href="${href(`/documents/${d.id}`)}">${cut(documentName(d), 80)}</a></td>
${withFile ? html`<td><a href="${href(`/files/${d.fileId}`)}">${cut(d.file, 60)}</a></td>` : ''}<td class="num">${d.index}</td>
<td>${d.company}</td><td>${d.kind}</td><td>${stateBadge(d.state)}${d.doubt === null ? '' : html` <span class="muted">${d.doubt}</span>`}</td>
<td class="num">${d.attempts}</td><td>${cut(d.customer, 40)}</td><td>${when(d.updatedAt)}</td><td>${cut(lastError(d))}</td></tr>`,
)}</table>`;
}

export function filesTable(files: readonly ConsoleFile[]): Html {
  if (files.length === 0) return html`<p class="muted">No file.</p>`;
  return html`<table><tr><th>file</th><th>company</th><th>kind</th><th>state</th><th>documents</th><th>accepted</th><th>pending</th>
<th>failed</th><th>in doubt</th><th>rejected</th><th>invalid</th><th>taken at</th></tr>
${files.map((f) => {
  const total = Object.values(f.counts).reduce((a, b) => a + b, 0);
  return html`<tr><td><a href="${href(`/files/${f.id}`)}">${cut(f.name, 80)}</a></td><td>${f.company}</td><td>${f.kind}</td>
<td>${stateBadge(f.state)}</td><td class="num">${total}</td><td class="num">${f.counts.accepted}</td>
<td class="num">${f.counts.pending + f.counts.sending}</td><td class="num">${f.counts.failed}</td><td class="num">${f.counts['in-doubt']}</td>
<td class="num">${f.counts.rejected}</td><td class="num">${f.counts.invalid}</td><td>${when(f.startedAt)}</td></tr>`;
})}</table>`;
}

export function filesPage(
  state: FileState | undefined,
  files: readonly ConsoleFile[],
  next: number | undefined,
): Html {
  const tabs = html`<p>${[undefined, ...FILE_STATES].map((s) => html`<a href="${href('/files', { state: s })}">${s === state ? html`<strong>${s ?? 'all'}</strong>` : (s ?? 'all')}</a> `)}</p>`;
  return html`${tabs}${filesTable(files)}
${next === undefined ? '' : html`<p class="pager"><a href="${href('/files', { state, before: next })}">Older files</a></p>`}`;
}

export function filePage(
  file: ConsoleFile,
  docs: readonly ConsoleDocument[],
  next: number | undefined,
): Html {
  const error =
    file.error === null
      ? ''
      : html`<p class="warning">${file.error.code}: ${cut(file.error.message, 400)}</p>`;
  return html`${filesTable([file])}${error}
<p class="muted">Path: ${cut(file.path, 300)}${file.archivedPath === null ? '' : html` · archived at ${cut(file.archivedPath, 300)}`}</p>
<h2>Documents</h2>${documentsTable(docs, false)}
${next === undefined ? '' : html`<p class="pager"><a href="${href(`/files/${file.id}`, { after: next })}">Next documents</a></p>`}`;
}

export function attentionPage(
  state: 'failed' | 'in-doubt',
  docs: readonly ConsoleDocument[],
  next: number | undefined,
): Html {
  const intro =
    state === 'failed'
      ? html`<p>Documents the bridge gave up on after its retries. Open one to put it back in the queue (like <code>edoc-bridge retry</code>).</p>`
      : html`<p>Documents that may or may not exist at the service. Check at the service, then record what you found on the document's page
(like <code>edoc-bridge resolve</code>), or release one that was not issued (like <code>edoc-bridge retry --in-doubt</code>).</p>`;
  return html`${intro}${documentsTable(docs)}
${next === undefined ? '' : html`<p class="pager"><a href="${href('/attention', { state, after: next })}">More</a></p>`}`;
}

export interface SearchResults {
  q: string;
  by: 'any' | 'file' | 'number' | 'customer';
  files: readonly ConsoleFile[];
  documents: readonly ConsoleDocument[];
  /** Cursor of more documents of the customer. */
  next?: number;
}

export function searchPage(r: SearchResults): Html {
  if (r.q === '')
    return html`<p>Search by a file's name (or its beginning), a document number (SETP990000123, SETP/990000123 or the full key) or a customer's identification.</p>`;
  const files = r.by === 'any' || r.by === 'file' ? html`<h2>Files</h2>${filesTable(r.files)}` : '';
  const docs =
    r.by === 'file'
      ? ''
      : html`<h2>Documents</h2>${documentsTable(r.documents)}
${r.next === undefined ? '' : html`<p class="pager"><a href="${href('/search', { q: r.q, by: 'customer', after: r.next })}">More documents of this customer</a></p>`}`;
  return html`${files}${docs}`;
}
