import type Database from 'better-sqlite3';
import { addEvent, openFiles } from './files.js';
import { DOCUMENT_FIELDS, DOCUMENT_FROM, DOCUMENT_SELECT, emptyCounts, parse, stmt, toDocumentRow } from './rows.js';
import type { RawDocument } from './rows.js';
import { FINAL_STATES } from './types.js';
import { numberClashMessage } from './number-text.js';
import type {
  AttentionDocument, DocumentRow, DocumentState, FileProgress, ReportProblem, RequeueTarget, StatusSummary,
} from './types.js';

export function fileProgress(db: Database.Database, fileId: number): FileProgress {
  const counts = emptyCounts();
  let total = 0;
  for (const r of stmt(db, 'SELECT state, n FROM file_counts WHERE file_id = ?').all(fileId) as { state: DocumentState; n: number }[]) {
    counts[r.state] = r.n;
    total += r.n;
  }
  const file = stmt(db, 'SELECT state FROM files WHERE id = ?').get(fileId) as { state: string } | undefined;
  const settled = FINAL_STATES.reduce((sum, s) => sum + counts[s], 0);
  const final = file !== undefined && file.state !== 'reading' && settled === total;
  return { total, counts, final };
}

const PAGE = 500;

/**
 * A file's documents in index order, read in pages of 500 so memory stays bounded and the connection
 * is free between pages (an open `.iterate()` would block every other statement while the consumer awaits).
 */
export function* iterateFileDocuments(db: Database.Database, fileId: number): Generator<DocumentRow> {
  const page = stmt(db, `${DOCUMENT_SELECT} WHERE d.file_id = ? AND d.idx > ? ORDER BY d.idx LIMIT ${PAGE}`);
  let after = -1;
  for (;;) {
    const rows = page.all(fileId, after) as RawDocument[];
    for (const r of rows) yield toDocumentRow(r);
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].idx;
  }
}

/**
 * Puts `failed` documents (and `in-doubt` ones only with includeInDoubt) back to `pending`, due now,
 * with their attempts reset; their files reopen so the report is rewritten. `rejected`/`invalid`
 * need a corrected file (the retry file), not a resend. An in-doubt document whose doubt is a
 * repeated number is never re-queued: a resend only meets the same Regla 90 (resolve decides it).
 * The sticky "may have been delivered" flag stays as it is.
 */
export function requeue(db: Database.Database, target: RequeueTarget): { ids: number[]; fileIds: number[] } {
  const releasable = (t: string): string => (target.includeInDoubt
    ? `(${t}state = 'failed' OR (${t}state = 'in-doubt' AND coalesce(${t}doubt, 'no-answer') <> 'repeated-number'))`
    : `${t}state = 'failed'`);
  const inStates = releasable('');
  let candidates: { id: number; file_id: number }[] = [];
  if (target.ids) {
    const one = stmt(db, `SELECT id, file_id FROM documents WHERE id = ? AND ${inStates}`);
    candidates = target.ids.map((id) => one.get(id) as { id: number; file_id: number } | undefined)
      .filter((r): r is { id: number; file_id: number } => r !== undefined);
  } else if (target.fileName !== undefined) {
    candidates = stmt(db, `SELECT d.id, d.file_id FROM files f JOIN documents d ON d.file_id = f.id
      WHERE (f.name = @n OR f.path = @n OR f.report_name = @n) AND ${releasable('d.')} ORDER BY d.id`)
      .all({ n: target.fileName }) as { id: number; file_id: number }[];
  } else if (target.key !== undefined) {
    // the full key (company/kind/prefix/number) as result.json shows it, or a tail of it (prefix/number, number)
    candidates = stmt(db, `SELECT id, file_id FROM documents WHERE (key = @k OR substr(key, -length(@k) - 1) = '/' || @k)
      AND ${inStates} ORDER BY id`)
      .all({ k: target.key }) as { id: number; file_id: number }[];
  }
  const files = new Set<number>();
  db.transaction(() => {
    const back = stmt(db, `UPDATE documents SET state = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ?, doubt = NULL
      WHERE id = ? AND ${inStates}`);
    for (const c of candidates) {
      if (back.run(target.now, target.now, c.id).changes === 0) continue;
      addEvent(db, target.now, 'requeued', c.file_id, c.id, { includeInDoubt: target.includeInDoubt === true,
        ...(target.by === undefined ? {} : { by: target.by }) });
      files.add(c.file_id);
    }
    const reopen = stmt(db, `UPDATE files SET state = 'open', finished_at = NULL, report_state = 'partial'
      WHERE id = ? AND state = 'done'`);
    for (const f of files) reopen.run(f);
  }).immediate();
  return { ids: candidates.map((c) => c.id), fileIds: [...files] };
}

/**
 * The operator checked at the service that these in-doubt documents were issued: they become
 * `accepted`, with the operator's word as their warning, and their files' reports are due again.
 * Nothing is sent. A document whose key another document already holds as accepted is left as it is
 * (`taken`): the service holds one document per number. Returns the ids that changed and their files.
 */
export function confirmIssued(db: Database.Database, ids: readonly number[], note: string, now: number, by?: string):
  { ids: number[]; fileIds: number[]; taken: { id: number; key: string }[] } {
  const changed: number[] = [];
  const files = new Set<number>();
  const taken: { id: number; key: string }[] = [];
  db.transaction(() => {
    const accept = stmt(db, `UPDATE documents SET state = 'accepted', errors = NULL, warnings = ?, next_attempt_at = NULL,
      updated_at = ?, doubt = NULL WHERE id = ? AND state = 'in-doubt' RETURNING file_id`);
    const holder = stmt(db, `SELECT d.key AS key FROM documents d WHERE d.id = ? AND d.key IS NOT NULL
      AND EXISTS (SELECT 1 FROM documents a WHERE a.key = d.key AND a.state = 'accepted' AND a.id <> d.id)`);
    for (const id of ids) {
      const held = holder.get(id) as { key: string } | undefined;
      if (held) {
        taken.push({ id, key: held.key });
        continue;
      }
      const row = accept.get(JSON.stringify([note]), now, id) as { file_id: number } | undefined;
      if (!row) continue;
      addEvent(db, now, 'confirmed-issued', row.file_id, id, { note, ...(by === undefined ? {} : { by }) });
      changed.push(id);
      files.add(row.file_id);
    }
    reportsStale(db, files);
  }).immediate();
  return { ids: changed, fileIds: [...files], taken };
}

/**
 * The operator checked at the authority that the document held under these in-doubt documents' number
 * (doubt `repeated-number`) is not theirs: they become `duplicate`, with the number-clash error and the
 * operator's word. Nothing is sent. Returns the ids that changed and their files.
 */
export function recordClash(db: Database.Database, ids: readonly number[], note: string, now: number, by?: string): { ids: number[]; fileIds: number[] } {
  const changed: number[] = [];
  const files = new Set<number>();
  db.transaction(() => {
    const read = stmt(db, `SELECT key FROM documents WHERE id = ? AND state = 'in-doubt' AND doubt = 'repeated-number'`).pluck();
    const clash = stmt(db, `UPDATE documents SET state = 'duplicate', errors = ?, warnings = ?, next_attempt_at = NULL,
      updated_at = ?, doubt = NULL WHERE id = ? AND state = 'in-doubt' AND doubt = 'repeated-number' RETURNING file_id`);
    for (const id of ids) {
      const key = read.get(id) as string | null | undefined;
      if (key === undefined) continue;
      const error = { code: 'EDOC_SERVICE_NUMBER_CLASH', message: numberClashMessage(key) };
      const row = clash.get(JSON.stringify([error]), JSON.stringify([note]), now, id) as { file_id: number } | undefined;
      if (!row) continue;
      addEvent(db, now, 'number-clash', row.file_id, id, { note, ...(by === undefined ? {} : { by }) });
      changed.push(id);
      files.add(row.file_id);
    }
    reportsStale(db, files);
  }).immediate();
  return { ids: changed, fileIds: [...files] };
}

/** In-doubt, failed, or a clash: a `duplicate` the service refused for another document's number (not issued). */
function attention(db: Database.Database, state: 'in-doubt' | 'failed' | 'clash', limit: number): AttentionDocument[] {
  const where = state === 'clash'
    ? `d.state = 'duplicate' AND d.errors LIKE '%"EDOC_SERVICE_NUMBER_CLASH"%'`
    : `d.state IN ('in-doubt','failed') AND d.state = '${state}'`;
  const rows = stmt(db, `SELECT ${DOCUMENT_FIELDS}, d.company AS company, d.kind AS kind, f.name AS file
    ${DOCUMENT_FROM} JOIN files f ON f.id = d.file_id
    WHERE ${where} ORDER BY d.id LIMIT ?`)
    .all(limit) as (RawDocument & { company: string; kind: string; file: string })[];
  return rows.map((r) => {
    const d = toDocumentRow(r);
    const first: ReportProblem | undefined = [...d.errors, ...d.problems][0];
    return { id: d.id, fileId: d.fileId, file: r.file, company: r.company, kind: r.kind, index: d.index, key: d.key,
      state: d.state, attempts: d.attempts, lastError: first?.message ?? null, updatedAt: d.updatedAt, doubt: d.doubt };
  });
}

export function statusSummary(db: Database.Database, listLimit = 100): StatusSummary {
  const grouped = new Map<string, StatusSummary['byCompanyKind'][number]>();
  for (const r of stmt(db, `SELECT f.company, f.kind, c.state, sum(c.n) AS n FROM file_counts c
    JOIN files f ON f.id = c.file_id GROUP BY f.company, f.kind, c.state ORDER BY f.company, f.kind`)
    .all() as { company: string; kind: string; state: DocumentState; n: number }[]) {
    const k = `${r.company}\u0000${r.kind}`;
    let entry = grouped.get(k);
    if (!entry) {
      entry = { company: r.company, kind: r.kind, counts: emptyCounts() };
      grouped.set(k, entry);
    }
    entry.counts[r.state] = r.n;
  }
  const pulls = stmt(db, `SELECT key, value FROM kv WHERE key >= 'pull:' AND key < 'pull;' ORDER BY key`)
    .all() as { key: string; value: string }[];
  return {
    byCompanyKind: [...grouped.values()],
    filesInProgress: openFiles(db).map((f) => ({ id: f.id, name: f.name, company: f.company, kind: f.kind,
      state: f.state, progress: fileProgress(db, f.id) })),
    inDoubt: attention(db, 'in-doubt', listLimit),
    failed: attention(db, 'failed', listLimit),
    clashes: attention(db, 'clash', listLimit),
    lastPulls: pulls.map((p) => {
      const v = parse<{ at: number; data: unknown }>(p.value, { at: 0, data: null });
      return { company: p.key.slice('pull:'.length), at: v.at, data: v.data };
    }),
  };
}

/** Inside a transaction: the reports of these files are to be rewritten (a document of theirs changed). */
function reportsStale(db: Database.Database, files: Iterable<number>): void {
  const stale = stmt(db, `UPDATE files SET report_state = 'partial' WHERE id = ?`);
  for (const f of files) stale.run(f);
}
