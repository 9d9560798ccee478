/** A document's page: its state, every event the ledger recorded of it, and the operator's actions on it. */
import type { DocumentHistory } from '../../ledger/console-queries.js';
import { documentName } from './pages-documents.js';
import { cut, href, html, type Html, stateBadge, when } from './html.js';

export interface Notice {
  done: readonly string[];
  notes: readonly string[];
}

function data(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = JSON.stringify(value);
  return text === '{}' ? '' : cut(text, 400);
}

function actions(h: DocumentHistory, csrf: string): Html {
  const d = h.document;
  const id = d.id;
  const token = html`<input type="hidden" name="_csrf" value="${csrf}">`;
  if (d.state === 'failed') {
    return html`<div class="actions"><form method="post" action="${href(`/documents/${id}/retry`)}">${token}
<button type="submit" name="action" value="retry">Retry</button> <span class="muted">puts it back in the queue (edoc-bridge retry)</span></form></div>`;
  }
  if (d.state !== 'in-doubt') return html``;
  const release =
    d.doubt === 'repeated-number'
      ? ''
      : html`<form method="post" action="${href(`/documents/${id}/retry`)}">${token}
<input type="hidden" name="in-doubt" value="1"><button type="submit" name="action" value="retry">Not issued: send it again</button>
<br><span class="muted">your word that the service did NOT issue it (edoc-bridge retry --in-doubt); if it did, it is issued twice</span></form>`;
  const notOurs =
    d.doubt !== 'repeated-number'
      ? ''
      : html`<form method="post" action="${href(`/documents/${id}/resolve`)}">${token}
<input type="hidden" name="word" value="not-ours"><label>What you found <input name="note" maxlength="500"></label>
<button type="submit">Another document holds its number</button><br><span class="muted">edoc-bridge resolve --not-ours: becomes duplicate (number clash)</span></form>`;
  return html`<div class="actions"><form method="post" action="${href(`/documents/${id}/resolve`)}">${token}
<input type="hidden" name="word" value="issued"><label>What you found <input name="note" maxlength="500"></label>
<button type="submit">It was issued</button><br><span class="muted">edoc-bridge resolve --issued: becomes accepted; nothing is sent</span></form>
${notOurs}${release}</div>`;
}

export function documentPage(h: DocumentHistory, csrf: string, notice?: Notice): Html {
  const d = h.document;
  const shown =
    notice === undefined
      ? ''
      : html`${notice.done.map((line) => html`<p class="notice" role="status">${line}</p>`)}
${notice.notes.map((line) => html`<p class="warning" role="alert">${line}</p>`)}`;
  const problems = [...d.errors, ...d.problems];
  return html`${shown}<table>
<tr><th>document</th><td>${documentName(d)}</td></tr>
<tr><th>state</th><td>${stateBadge(d.state)}${d.doubt === null ? '' : html` <span class="muted">why: ${d.doubt}</span>`}</td></tr>
<tr><th>file</th><td><a href="${href(`/files/${d.fileId}`)}">${d.file}</a> · document #${d.index}</td></tr>
<tr><th>company / kind</th><td>${d.company} / ${d.kind}</td></tr>
<tr><th>customer</th><td>${d.customer ?? ''}</td></tr>
<tr><th>attempts</th><td>${d.attempts}${d.nextAttemptAt === null ? '' : html` · next at ${when(d.nextAttemptAt)}`}</td></tr>
<tr><th>last answer</th><td>${d.httpStatus === null ? '' : html`HTTP ${d.httpStatus}`} ${d.resultCode === null ? '' : html`ResultCode ${d.resultCode}`}</td></tr>
<tr><th>may have reached the service</th><td>${d.maybeDelivered ? 'yes' : 'no'}</td></tr>
<tr><th>errors</th><td>${problems.map((p) => html`<div>${p.code ?? ''} ${p.field === undefined ? '' : html`[${cut(p.field, 80)}]`} ${cut(p.message, 500)}</div>`)}</td></tr>
<tr><th>warnings</th><td>${d.warnings.map((w) => html`<div>${cut(w, 500)}</div>`)}</td></tr>
</table>
${actions(h, csrf)}
<h2>History</h2>
<table><tr><th>at</th><th>event</th><th>details</th></tr>
${h.events.map((e) => html`<tr><td>${when(e.at)}</td><td>${e.type}</td><td>${data(e.data)}</td></tr>`)}</table>
${h.eventsCut ? html`<p class="muted">Only the first ${h.events.length} events are shown.</p>` : ''}
<h2>Last answer of the service</h2><pre>${d.response === null ? '(none)' : cut(JSON.stringify(d.response, null, 2), 20_000)}</pre>
<h2>Source</h2><pre>${cut(d.raw, 20_000)}</pre>`;
}
