import type Database from 'better-sqlite3';
import { EdocError } from '../errors.js';

/**
 * Ordered schema steps; `PRAGMA user_version` is the number of steps applied.
 * Never edit a step that has shipped: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    report_name TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    kind TEXT NOT NULL,
    company TEXT NOT NULL,
    format TEXT,
    encoding TEXT,
    header TEXT,
    state TEXT NOT NULL CHECK (state IN ('reading','open','done','failed-read')),
    error TEXT,
    total INTEGER,
    duplicate_of INTEGER REFERENCES files(id),
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    archived_path TEXT,
    report_state TEXT NOT NULL DEFAULT 'none' CHECK (report_state IN ('none','partial','final'))
  );
  CREATE INDEX files_content ON files(company, kind, sha256);
  CREATE INDEX files_state ON files(state);
  CREATE INDEX files_report_name ON files(company, kind, report_name);
  -- start-up: files whose final report or archive move may be missing (a year of files stays cheap)
  CREATE INDEX files_unsettled ON files(id) WHERE report_state <> 'final' OR archived_path IS NULL;

  CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id),
    idx INTEGER NOT NULL,
    company TEXT NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    key TEXT,
    own_number INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL CHECK (state IN ('pending','sending','accepted','rejected','invalid','failed','duplicate','in-doubt')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    last_outcome TEXT,
    result_code TEXT,
    http_status INTEGER,
    errors TEXT,
    warnings TEXT,
    request TEXT,
    response TEXT,
    raw TEXT NOT NULL,
    problems TEXT,
    updated_at INTEGER NOT NULL,
    UNIQUE (file_id, idx)
  );
  -- next due documents per company, in due order (claimDue)
  CREATE INDEX documents_due ON documents(company, next_attempt_at, id) WHERE state = 'pending';
  -- accepted-key lookups and requeue by key
  CREATE INDEX documents_key ON documents(key) WHERE key IS NOT NULL;
  -- start-up recovery and the status lists: small, only the states that need attention
  CREATE INDEX documents_attention ON documents(state, id) WHERE state IN ('sending','in-doubt','failed');

  -- per file and state, so progress and status never scan documents. State changes are counted by
  -- the trigger; inserts (one code path, insertDocuments) add their counts once per batch, which
  -- keeps a trigger off the hottest loop.
  CREATE TABLE file_counts (
    file_id INTEGER NOT NULL,
    state TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (file_id, state)
  ) WITHOUT ROWID;
  CREATE TRIGGER documents_count_update AFTER UPDATE OF state ON documents WHEN old.state <> new.state BEGIN
    UPDATE file_counts SET n = n - 1 WHERE file_id = old.file_id AND state = old.state;
    INSERT INTO file_counts(file_id, state, n) VALUES (new.file_id, new.state, 1)
      ON CONFLICT(file_id, state) DO UPDATE SET n = n + 1;
  END;

  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    file_id INTEGER,
    document_id INTEGER,
    type TEXT NOT NULL,
    data TEXT
  );
  CREATE INDEX events_document ON events(document_id) WHERE document_id IS NOT NULL;

  CREATE TABLE kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE received (
    company TEXT NOT NULL,
    document_id TEXT NOT NULL,
    document_number TEXT,
    document_date TEXT,
    files TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (company, document_id)
  ) WITHOUT ROWID;
  `,
  // 2: a document's request and source text live in their own table, written once. Every state
  // change rewrites the whole documents row, and with a request of a few KB inline that was three
  // full copies (overflow pages and all) per document through the WAL. And the start-up index of
  // `sending` documents is keyed on id alone: an index whose key holds the column an UPDATE changes
  // (state, id) made each batch commit of marks and verdicts ~2.4 times slower (bench notes in
  // docs/benchmarks.md); in-doubt and failed keep (state, id) for the status lists.
  `
  -- request_is_raw = 1: the request is JSON.parse(raw) (JSON, JSONL inputs), stored once, as raw
  CREATE TABLE document_bodies (
    id INTEGER PRIMARY KEY,
    request TEXT,
    raw TEXT NOT NULL,
    request_is_raw INTEGER NOT NULL DEFAULT 0
  );
  INSERT INTO document_bodies(id, request, raw) SELECT id, request, raw FROM documents;
  ALTER TABLE documents DROP COLUMN request;
  ALTER TABLE documents DROP COLUMN raw;
  DROP INDEX documents_attention;
  CREATE INDEX documents_sending ON documents(id) WHERE state = 'sending';
  CREATE INDEX documents_attention ON documents(state, id) WHERE state IN ('in-doubt','failed');
  `,
  // 3: where a file's outputs go, fixed when the file is recorded: its outbox folder, and whether its
  // original is archived (it came from an inbox folder). A reload that changes the folder layout (a
  // second company, new paths) must not split one file's reports over two folders or leave its
  // original unarchived. NULL for files recorded before: derived from the configuration as before.
  `
  ALTER TABLE files ADD COLUMN outbox_dir TEXT;
  ALTER TABLE files ADD COLUMN archive INTEGER;
  `,
  // 4: whether an attempt of ours may have reached the service without us learning its verdict (a lost
  // answer, a timeout, an uncontrolled 500/502/504, a controlled ResultCode 500, a crash while sending).
  // Sticky: never cleared by retry, resolve or recovery, so a later repeated-number answer (Regla 90) can
  // tell "maybe ours" from "someone else's" (docs/operations.md). `doubt` says why an in-doubt document is
  // in doubt: 'no-answer' (no own number, answer lost) or 'repeated-number'. Earlier ledgers kept the
  // first fact in last_outcome only: carried over.
  `
  ALTER TABLE documents ADD COLUMN maybe_delivered INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE documents ADD COLUMN doubt TEXT;
  UPDATE documents SET maybe_delivered = 1 WHERE last_outcome IS NOT NULL AND json_valid(last_outcome)
    AND (json_extract(last_outcome, '$.maybeDelivered') = 1 OR json_extract(last_outcome, '$.kind') = 'unknown');
  UPDATE documents SET maybe_delivered = 1 WHERE state IN ('sending', 'in-doubt');
  UPDATE documents SET doubt = 'no-answer' WHERE state = 'in-doubt';
  `,
  // 5: `edoc-bridge resend`: the operator's word that the next drop of this content (company, kind,
  // sha256) is to be taken again, not refused as a duplicate file. One open request lets exactly one
  // drop through; taking it records which file did.
  `
  CREATE TABLE resend_requests (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id),
    company TEXT NOT NULL,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    taken_by INTEGER REFERENCES files(id),
    taken_at INTEGER
  );
  CREATE INDEX resend_open ON resend_requests(company, kind, sha256) WHERE taken_by IS NULL;
  `,
  // 6: where a file's reports live once a later file took over their outbox names (the same input name
  // dropped again): its report set moved to the archive beside its original, and every later rewrite
  // of it (resolve, retry) goes there. NULL: the reports are in the file's outbox folder.
  `
  ALTER TABLE files ADD COLUMN report_dir TEXT;
  `,
  // 7: the operator console searches documents by their customer's identification (kinds/: each kind's
  // descriptor says where it is in the request) and files by name: both were only inside JSON text or
  // without an index, a full scan of a million rows per search. It lists received documents newest first. `customer` is written once, with the
  // document; documents recorded before this step have none (not backfilled: a JSON walk of every
  // stored request at start-up, per kind, for an old-documents search). Partial index: most rows of a
  // POS ledger have no customer.
  `
  ALTER TABLE documents ADD COLUMN customer TEXT;
  CREATE INDEX documents_customer ON documents(customer) WHERE customer IS NOT NULL;
  CREATE INDEX files_name ON files(name);
  CREATE INDEX received_at ON received(company, at, document_id);
  `,
  // 8: document_bodies.request_is_raw = 2: the request is `raw`, and `raw` is exactly JSON.stringify of it,
  // so it is sent as stored (ledger/documents.ts). No table changes; the version moves on so that an older
  // program, which would read such a row's request from the empty `request` column, refuses the ledger.
  `
  SELECT 1;
  `,
  // 9: a summary of each document's request (kinds/content-summary.ts: a digest and the payable amount,
  // customer, line count and issue date, as JSON), written once with the document. A later document under a
  // number already accepted is compared with it: the same content is a quiet duplicate, other content
  // (a corrected re-export) is EDOC_ISSUED_OTHER_CONTENT. Rows from before have none: their summary is
  // made from the stored request when one is compared. Files are also found by content alone: the same
  // export dropped for two companies is held (EDOC_LEDGER_OTHER_COMPANY).
  `
  ALTER TABLE documents ADD COLUMN content TEXT;
  CREATE INDEX files_sha256 ON files(sha256);
  `,
  // 10: master data (map/master-tables.ts): each version of a configured lookup table (customers,
  // suppliers, employees) as the newest complete file of its folder gave it, with where it came from,
  // and its rows by id (the cells as a JSON array in the version's column order). Kept in the ledger so
  // that every node of a cluster reads the same version.
  `
  CREATE TABLE master_versions (
    table_name TEXT NOT NULL,
    version INTEGER NOT NULL,
    file TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    file_mtime INTEGER NOT NULL,
    loaded_at INTEGER NOT NULL,
    columns TEXT NOT NULL,
    row_count INTEGER NOT NULL,
    PRIMARY KEY (table_name, version)
  );
  CREATE TABLE master_rows (
    table_name TEXT NOT NULL,
    version INTEGER NOT NULL,
    id TEXT NOT NULL,
    cells TEXT NOT NULL,
    PRIMARY KEY (table_name, version, id)
  );
  `,
  // 11: a document the service numbers has no number to dedupe by; its ERP key (the mapping's key columns,
  // as JSON) stands in (ledger/erp-keys.ts): one accepted, being sent or in doubt under the same company,
  // kind and ERP key keeps another from being sent. NULL: a document with its own number, a JSON input, a
  // mapping with `keyRepeats`, or a document recorded before this step.
  `
  ALTER TABLE documents ADD COLUMN erp_key TEXT;
  CREATE INDEX documents_erp_key ON documents(company, kind, erp_key) WHERE erp_key IS NOT NULL;
  `,
  // 12: what the documents of a file refused whole (EDOC_MAP_FORMAT_MISMATCH) were: refuseWhole removes
  // them (none may be sent, and the report has none), and a note naming one of them in a later file would
  // find nothing and go as a reference from before the bridge. Their key (or ERP key) stays here, with
  // their file, so the note is held as for a document that was never issued (ledger/note-references.ts).
  // Files refused before this step left nothing to carry over.
  // reference_waits: a note naming a document held back in another file still being read waits, held back
  // too, until that file's read ends (file_id); then it is checked again (settled = 1 once its outcome is
  // applied, until the intake that ended the read has touched its file's report).
  `
  CREATE TABLE refused_whole_documents (
    file_id INTEGER NOT NULL REFERENCES files(id),
    idx INTEGER NOT NULL,
    company TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT,
    erp_key TEXT,
    PRIMARY KEY (file_id, idx)
  );
  CREATE INDEX refused_whole_key ON refused_whole_documents(key) WHERE key IS NOT NULL;
  CREATE INDEX refused_whole_erp_key ON refused_whole_documents(company, kind, erp_key)
    WHERE erp_key IS NOT NULL;
  CREATE TABLE reference_waits (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id),
    file_id INTEGER NOT NULL,
    refs TEXT NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX reference_waits_file ON reference_waits(file_id, settled);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema to SCHEMA_VERSION; each step commits with its version number. */
export function migrate(db: Database.Database): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > SCHEMA_VERSION) {
    throw new EdocError(
      'EDOC_LEDGER_MIGRATION',
      `The ledger has schema version ${from}, newer than this program knows (${SCHEMA_VERSION}); upgrade edoc-bridge.`,
      { from, to: SCHEMA_VERSION },
    );
  }
  for (let v = from; v < SCHEMA_VERSION; v++) {
    try {
      db.transaction(() => {
        db.exec(MIGRATIONS[v]);
        db.pragma(`user_version = ${v + 1}`);
      }).immediate();
    } catch (err) {
      throw new EdocError(
        'EDOC_LEDGER_MIGRATION',
        `Ledger migration step ${v + 1} failed: ${(err as Error).message}`,
        { step: v + 1 },
        { cause: err },
      );
    }
  }
  return { from, to: SCHEMA_VERSION };
}
