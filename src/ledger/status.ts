import { addEvent } from './events.js';
import { openFiles } from './files.js';
import {
  DOCUMENT_FIELDS,
  DOCUMENT_FROM,
  DOCUMENT_SELECT,
  emptyCounts,
  parse,
  toDocumentRow,
} from './rows.js';
import { endsWithTail } from './sql/dialect.js';
import type { SqlExecutor, SqlReadView } from './sql/executor.js';
import { storedWarnings, type RawDocument } from './rows.js';
import { FINAL_STATES } from './types.js';
import { numberClashMessage } from './number-text.js';
import { OTHER_COMPANY } from './other-company.js';
import { fileNamed } from './resend.js';
import type {
  AttentionDocument,
  DocumentRow,
  DocumentState,
  FileProgress,
  ReportProblem,
  RequeueTarget,
  StatusSummary,
} from './types.js';

/** What the plain reads need: an executor, a transaction or a read view. */
export type Reader = Pick<SqlExecutor | SqlReadView, 'all' | 'get' | 'dialect'>;

export async function fileProgress(q: Reader, fileId: number): Promise<FileProgress> {
  const counts = emptyCounts();
  let total = 0;
  for (const r of await q.all<{ state: DocumentState; n: number }>(
    'SELECT state, n FROM file_counts WHERE file_id = ?',
    [fileId],
  )) {
    counts[r.state] = r.n;
    total += r.n;
  }
  const file = await q.get<{ state: string }>('SELECT state FROM files WHERE id = ?', [fileId]);
  const settled = FINAL_STATES.reduce((sum, s) => sum + counts[s], 0);
  const final = file !== undefined && file.state !== 'reading' && settled === total;
  return { total, counts, final };
}

const PAGE = 500;

/**
 * A file's documents in index order, read in pages of 500 so memory stays bounded and the connection
 * is free between pages (an open `.iterate()` would block every other statement while the consumer awaits).
 */
export async function* iterateFileDocuments(
  q: SqlExecutor,
  fileId: number,
): AsyncGenerator<DocumentRow> {
  let after = -1;
  for (;;) {
    const rows = await q.all<RawDocument>(
      `${DOCUMENT_SELECT} WHERE d.file_id = ? AND d.idx > ? ORDER BY d.idx LIMIT ${PAGE}`,
      [fileId, after],
    );
    for (const r of rows) yield toDocumentRow(r);
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].idx;
  }
}

/**
 * Puts `failed` documents (and `in-doubt` ones only with includeInDoubt) back to `pending`, due now,
 * with their attempts reset; their files reopen so the report is rewritten. Returns only the documents
 * it changed (one another action settled meanwhile, such as `resolve`, is not among them). `rejected`/`invalid`
 * need a corrected file (the retry file), not a resend. An in-doubt document whose doubt is a
 * repeated number is never re-queued: a resend only meets the same Regla 90 (resolve decides it).
 * The sticky "may have been delivered" flag stays as it is.
 */
export function requeue(
  q: SqlExecutor,
  target: RequeueTarget,
): Promise<{ ids: number[]; fileIds: number[] }> {
  const releasable = (t: string): string => {
    const states = [`${t}state = 'failed'`];
    if (target.includeInDoubt)
      states.push(
        `(${t}state = 'in-doubt' AND coalesce(${t}doubt, 'no-answer') <> 'repeated-number')`,
      );
    // held for another company's copy of the content: never sent, so releasing it is safe on the operator's word
    if (target.includeOtherCompany)
      states.push(`(${t}state = 'invalid' AND ${t}problems LIKE '%"${OTHER_COMPANY}"%')`);
    return `(${states.join(' OR ')})`;
  };
  const inStates = releasable('');
  // An operator's action: no fence (it runs from any machine, without a company's lease).
  return q.transaction(async (tx) => {
    let candidates: { id: number; file_id: number }[] = [];
    if (target.ids) {
      for (const id of target.ids) {
        const one = await tx.get<{ id: number; file_id: number }>(
          `SELECT id, file_id FROM documents WHERE id = ? AND ${inStates}`,
          [id],
        );
        if (one !== undefined) candidates.push(one);
      }
    } else if (target.fileName !== undefined) {
      const named = fileNamed(tx, 'f.', target.fileName);
      candidates = await tx.all(
        `SELECT d.id, d.file_id FROM files f JOIN documents d ON d.file_id = f.id
        WHERE ${named.sql} AND ${releasable('d.')} ORDER BY d.id`,
        named.params,
      );
    } else if (target.key !== undefined) {
      // the full key (company/kind/prefix/number) as result.json shows it, or a tail of it (prefix/number, number)
      candidates = await tx.all(
        `SELECT id, file_id FROM documents WHERE (key = ? OR ${endsWithTail(tx, 'key')})
        AND ${inStates} ORDER BY id`,
        [target.key, target.key, target.key],
      );
    }
    const files = new Set<number>();
    const changed: number[] = [];
    for (const c of candidates) {
      // PostgreSQL (READ COMMITTED): a `resolve` committed after the read above leaves the row out here
      const back = await tx.run(
        `UPDATE documents SET state = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ?, doubt = NULL,
        problems = CASE WHEN state = 'invalid' THEN NULL ELSE problems END WHERE id = ? AND ${inStates}`,
        [target.now, target.now, c.id],
      );
      if (back.changes === 0) continue;
      changed.push(c.id);
      await addEvent(tx, target.now, 'requeued', c.file_id, c.id, {
        includeInDoubt: target.includeInDoubt === true,
        ...(target.includeOtherCompany === true ? { includeOtherCompany: true } : {}),
        ...(target.by === undefined ? {} : { by: target.by }),
      });
      files.add(c.file_id);
    }
    for (const f of files) {
      await tx.run(
        `UPDATE files SET state = 'open', finished_at = NULL, report_state = 'partial' WHERE id = ? AND state = 'done'`,
        [f],
      );
    }
    return { ids: changed, fileIds: [...files] };
  });
}

/**
 * The operator checked at the service that these in-doubt documents (or failed ones an attempt of which
 * may have reached it) were issued: they become
 * `accepted`, with the operator's word as their warning, and their files' reports are due again.
 * Nothing is sent. A document whose key another document already holds as accepted is left as it is
 * (`taken`): the service holds one document per number. Returns the ids that changed and their files,
 * and how many copies of their ERP keys, held back while they were in doubt, are due now (`released`).
 */
export function confirmIssued(
  q: SqlExecutor,
  ids: readonly number[],
  note: string,
  now: number,
  by?: string,
  assigned?: ReadonlyMap<number, string>,
): Promise<{
  ids: number[];
  fileIds: number[];
  taken: { id: number; key: string }[];
  released: number;
}> {
  return q.transaction(async (tx) => {
    const changed: number[] = [];
    const files = new Set<number>();
    const taken: { id: number; key: string }[] = [];
    let released = 0;
    for (const id of ids) {
      // a document the service numbered gets the number the operator found as its key (as an answer's would)
      const given = assigned?.get(id) ?? null;
      const held = await tx.get<{ key: string }>(
        `SELECT COALESCE(d.key, ?) AS key FROM documents d WHERE d.id = ?
        AND COALESCE(d.key, ?) IS NOT NULL AND EXISTS (SELECT 1 FROM documents a WHERE a.key = COALESCE(d.key, ?)
        AND a.state = 'accepted' AND a.id <> d.id)`,
        [given, id, given, given],
      );
      if (held) {
        taken.push({ id, key: held.key });
        continue;
      }
      // the warnings it carries (a note's unknown reference) stay, the operator's words after them
      const row = await tx.get<{
        file_id: number;
        key: string | null;
        company: string;
        kind: string;
        erp_key: string | null;
      }>(
        `UPDATE documents SET state = 'accepted', errors = NULL,
        warnings = ?, next_attempt_at = NULL, updated_at = ?, doubt = NULL, key = COALESCE(key, ?) WHERE id = ?
        AND (state = 'in-doubt' OR (state = 'failed' AND maybe_delivered = 1)) RETURNING file_id, key, company, kind, erp_key`,
        [JSON.stringify([...(await storedWarnings(tx, id)), note]), now, given, id],
      );
      if (!row) continue;
      // copies of its ERP key held back while it was in doubt (sending.ts) are looked at now, not in a
      // minute: each becomes `duplicate` of it at its claim
      if (row.erp_key !== null)
        released += (
          await tx.run(
            `UPDATE documents SET next_attempt_at = ? WHERE company = ? AND kind = ? AND erp_key = ?
          AND state = 'pending' AND next_attempt_at > ?`,
            [now, row.company, row.kind, row.erp_key, now],
          )
        ).changes;
      await addEvent(tx, now, 'confirmed-issued', row.file_id, id, {
        note,
        ...(by === undefined ? {} : { by }),
        ...(given === null || row.key !== given ? {} : { key: given }),
      });
      changed.push(id);
      files.add(row.file_id);
    }
    await reportsStale(tx, files);
    return { ids: changed, fileIds: [...files], taken, released };
  });
}

/**
 * The operator checked at the authority that the document held under these in-doubt documents' number
 * (doubt `repeated-number`) is not theirs: they become `duplicate`, with the number-clash error and the
 * operator's word. Nothing is sent. Returns the ids that changed and their files.
 */
export function recordClash(
  q: SqlExecutor,
  ids: readonly number[],
  note: string,
  now: number,
  by?: string,
): Promise<{ ids: number[]; fileIds: number[] }> {
  return q.transaction(async (tx) => {
    const changed: number[] = [];
    const files = new Set<number>();
    for (const id of ids) {
      const read = await tx.get<{ key: string | null }>(
        `SELECT key FROM documents WHERE id = ? AND state = 'in-doubt'
        AND doubt = 'repeated-number'`,
        [id],
      );
      if (read === undefined) continue;
      const error = { code: 'EDOC_SERVICE_NUMBER_CLASH', message: numberClashMessage(read.key) };
      const row = await tx.get<{ file_id: number }>(
        `UPDATE documents SET state = 'duplicate', errors = ?, warnings = ?,
        next_attempt_at = NULL, updated_at = ?, doubt = NULL WHERE id = ? AND state = 'in-doubt' AND doubt = 'repeated-number'
        RETURNING file_id`,
        [JSON.stringify([error]), JSON.stringify([note]), now, id],
      );
      if (!row) continue;
      await addEvent(tx, now, 'number-clash', row.file_id, id, {
        note,
        ...(by === undefined ? {} : { by }),
      });
      changed.push(id);
      files.add(row.file_id);
    }
    await reportsStale(tx, files);
    return { ids: changed, fileIds: [...files] };
  });
}

/** In-doubt, failed, or a clash: a `duplicate` the service refused for another document's number (not issued). */
async function attention(
  q: SqlExecutor,
  state: 'in-doubt' | 'failed' | 'clash',
  limit: number,
): Promise<AttentionDocument[]> {
  const where =
    state === 'clash'
      ? `d.state = 'duplicate' AND d.errors LIKE '%"EDOC_SERVICE_NUMBER_CLASH"%'`
      : `d.state IN ('in-doubt','failed') AND d.state = '${state}'`;
  const rows = await q.all<RawDocument & { company: string; kind: string; file: string }>(
    `SELECT ${DOCUMENT_FIELDS},
    d.company AS company, d.kind AS kind, f.name AS file ${DOCUMENT_FROM} JOIN files f ON f.id = d.file_id
    WHERE ${where} ORDER BY d.id LIMIT ?`,
    [limit],
  );
  return rows.map((r) => {
    const d = toDocumentRow(r);
    const first: ReportProblem | undefined = [...d.errors, ...d.problems][0];
    return {
      id: d.id,
      fileId: d.fileId,
      file: r.file,
      company: r.company,
      kind: r.kind,
      index: d.index,
      key: d.key,
      state: d.state,
      attempts: d.attempts,
      lastError: first?.message ?? null,
      updatedAt: d.updatedAt,
      doubt: d.doubt,
    };
  });
}

export async function statusSummary(q: SqlExecutor, listLimit = 100): Promise<StatusSummary> {
  const grouped = new Map<string, StatusSummary['byCompanyKind'][number]>();
  for (const r of await q.all<{
    company: string;
    kind: string;
    state: DocumentState;
    n: number;
  }>(`SELECT f.company, f.kind, c.state,
    CAST(sum(c.n) AS BIGINT) AS n FROM file_counts c JOIN files f ON f.id = c.file_id GROUP BY f.company, f.kind, c.state
    ORDER BY f.company, f.kind`)) {
    const k = `${r.company}\u0000${r.kind}`;
    let entry = grouped.get(k);
    if (!entry) {
      entry = { company: r.company, kind: r.kind, counts: emptyCounts() };
      grouped.set(k, entry);
    }
    entry.counts[r.state] = r.n;
  }
  const pulls = await q.all<{ key: string; value: string }>(
    `SELECT key, value FROM kv WHERE key >= 'pull:' AND key < 'pull;' ORDER BY key`,
  );
  const filesInProgress: StatusSummary['filesInProgress'] = [];
  for (const f of await openFiles(q)) {
    filesInProgress.push({
      id: f.id,
      name: f.name,
      company: f.company,
      kind: f.kind,
      state: f.state,
      progress: await fileProgress(q, f.id),
    });
  }
  return {
    byCompanyKind: [...grouped.values()],
    filesInProgress,
    inDoubt: await attention(q, 'in-doubt', listLimit),
    failed: await attention(q, 'failed', listLimit),
    clashes: await attention(q, 'clash', listLimit),
    lastPulls: pulls.map((p) => {
      const v = parse<{ at: number; data: unknown }>(p.value, { at: 0, data: null });
      return { company: p.key.slice('pull:'.length), at: v.at, data: v.data };
    }),
  };
}

/** Inside a transaction: the reports of these files are to be rewritten (a document of theirs changed). */
async function reportsStale(tx: SqlExecutor, files: Iterable<number>): Promise<void> {
  for (const f of files)
    await tx.run(`UPDATE files SET report_state = 'partial' WHERE id = ?`, [f]);
}
