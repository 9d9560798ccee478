/**
 * The one error catalogue of edoc-bridge. Every error the bridge raises or
 * reports carries a stable `code` from this table; code, ledger and logs match
 * on it. `docs/errors.md` lists the same codes (a test ties the two together).
 *
 * Each subsystem owns one section. Add codes only inside your section.
 */
export const ERRORS = {
  // --- config -------------------------------------------------------------
  EDOC_CONFIG_NOT_FOUND: 'The configuration file does not exist or cannot be read.',
  EDOC_CONFIG_INVALID:
    "The configuration file is not valid YAML or does not match the schema, or one of its folders is also a watched inbox folder (paths.outbox, paths.state, another company's or kind's inbox).",
  EDOC_CONFIG_ENV_MISSING: 'The configuration refers to an environment variable that is not set.',
  EDOC_CONFIG_KEY_FILE: 'An apiKeyFile could not be read.',
  EDOC_CONFIG_MAPPING: 'A mapping named in kinds.<kind>.mapping cannot be read or is not valid.',
  EDOC_CONFIG_NOT_WRITABLE:
    'A folder the configuration names (paths.inbox, paths.state, paths.outbox, emulator.state) cannot be written by the process.',
  // --- cli ----------------------------------------------------------------
  EDOC_CLI_USAGE: 'The command line is not valid.',
  // --- service (wire contract, client, outcome) ---------------------------
  EDOC_SERVICE_UNREACHABLE: 'The service could not be reached (network error or timeout).',
  EDOC_SERVICE_UNAUTHORIZED: 'The service refused the credentials of a company.',
  EDOC_SERVICE_BAD_RESPONSE: 'The service answered with a body that does not follow the spec.',
  EDOC_SERVICE_NOT_IMPLEMENTED: 'The operation has no documented path (E13).',
  EDOC_SERVICE_REJECTED:
    "The authority rejected the document; the reasons are the service's messages.",
  EDOC_SERVICE_INVALID:
    'The service refused the request as invalid (HTTP 400 or a 400 result code).',
  EDOC_SERVICE_DUPLICATE: 'The authority answered that the number was processed before (Regla 90).',
  EDOC_SERVICE_NUMBER_CLASH:
    'The number is already used at the service by another document (Regla 90) and nothing of ours with it can have reached the service, or the operator found so; not issued.',
  EDOC_SERVICE_TRANSIENT:
    'A transient fault (network, timeout, 429, 5xx); the document is retried.',
  EDOC_SERVICE_NOT_SENT:
    'The request never left this process (it could not be built, or the HTTP client refused an argument or header value): nothing reached the service, so nothing was issued.',
  // --- emulator -----------------------------------------------------------
  EDOC_EMULATOR_SEED_INVALID: 'The emulator seed file is not valid.',
  EDOC_EMULATOR_STATE_INVALID: 'The emulator state file is not valid.',
  EDOC_EMULATOR_STATE_WRITE: 'The emulator state file could not be written.',
  // --- read / map ---------------------------------------------------------
  EDOC_READ_EMPTY:
    'The input file is empty, or holds no document (a header alone; every row dropped by rows.skip).',
  EDOC_READ_BINARY: 'The input file is not text.',
  EDOC_READ_ENCODING:
    'A delimited file holds text in two encodings (UTF-8 rows and Windows-1252 bytes); the file is not read.',
  EDOC_READ_JSON: 'The input file is not valid JSON / JSON lines.',
  EDOC_READ_UNSUPPORTED: 'The input file type is not supported.',
  EDOC_READ_CHANGED:
    'The input file changed or disappeared while it was read, or was written on after it was refused.',
  EDOC_READ_SECRET:
    'A document holds a configured API key; it is not sent and the key is kept nowhere.',
  EDOC_READ_RECORD_TOO_LARGE:
    'A record of a delimited file is longer than read.maxRecordBytes; the file is not read.',
  EDOC_READ_CHANGED_AFTER_SEND:
    'The input file changed after its documents were released for sending.',
  EDOC_READ_NAME_NOT_UTF8: 'An input file name is not UTF-8 (a Windows-1252 / Latin-1 name).',
  EDOC_READ_NOT_UTF8:
    'A JSON or JSONL file is not UTF-8: read as Windows-1252, as CSV files are (a warning).',
  EDOC_READ_MARKER_ALONE: 'A done-marker file has no data file beside it.',
  EDOC_READ_NOT_IN_INBOX:
    'A file lies in the inbox but in no inbox folder (the inbox itself, a folder of no kind): it is not taken (a warning).',
  EDOC_READ_SHEET_ENCRYPTED: 'The spreadsheet is protected with a password; it cannot be read.',
  EDOC_READ_SHEET_CORRUPT: 'The spreadsheet is damaged or not a spreadsheet; it cannot be read.',
  EDOC_READ_SHEET_MISSING:
    'The spreadsheet has no worksheet to read: no sheet of the name the mapping gives, or only chart or macro sheets.',
  EDOC_READ_SET_JOIN:
    'The two files of an export in parts do not join (a line without its header row, a header row without lines, a blank or repeated key); the whole set is refused.',
  EDOC_READ_SET_NOT_A_PART:
    'A file in a folder that takes exports in two files matches neither part name of the mapping.',
  EDOC_READ_SET_WAITING:
    'One file of an export in two files has waited longer than parts.waitMs for its partner (a warning: it keeps waiting), or was given to validate without it.',
  EDOC_READ_WORKER:
    'The intake worker thread stopped while it read the file; nothing of it was sent.',
  EDOC_READ_STUCK:
    'Mapping one row of the file took longer than read.stuckAfter (a pattern of the mapping that backtracks on its cells): the file is refused, the others are read on.',
  EDOC_MAP_MISSING_COLUMN: 'A required column is missing from the export header.',
  EDOC_MAP_BAD_NUMBER: "A cell does not hold a number in the mapping's format.",
  EDOC_MAP_BAD_DATE: "A cell does not hold a date in the mapping's format.",
  EDOC_MAP_FORMAT_MISMATCH:
    "(whole file) A number or date cell does not read in the mapping's format but does in the other convention (decimal and thousands separators exchanged, or day and month): the export is written in the other one, and its cells that read either way would be issued wrong, so nothing of the file is sent.",
  EDOC_MAP_UNKNOWN_CODE: "A cell holds a code that the mapping's lookup table does not know.",
  EDOC_MAP_INCONSISTENT: 'The rows of one document disagree on a document-level field.',
  EDOC_MAP_MULTIPLE_VAT: 'A line carries more than one VAT rate.',
  EDOC_MAP_ROUTE:
    'A document of an export holding several kinds names no kind the mapping routes (a blank or unlisted value in the route column, or two kinds in one document); it is not sent.',
  EDOC_MAP_REQUIRED: 'A required value is empty.',
  EDOC_MAP_ROW_WITHOUT_KEY:
    'A row carries line values but no document key (a continuation row whose parent columns were not filled down); the document it continues is not sent without it.',
  EDOC_MAP_REPEATED_ROWS:
    "A row repeats, exactly, a row of the same document in an earlier block of it (other documents' rows between): the document looks exported twice into one file and is not sent.",
  EDOC_MAP_TOTALS_ROW:
    'A row that reads as a totals row (TOTAL, Total general, Subtotal…) was not dropped by rows.skip; the document it would join or be is not sent.',
  EDOC_MAP_EXTRA_CELLS:
    'A row of a delimited file has more cells than its header and the extra ones are not blank (most likely an unquoted delimiter in a text cell): its values stand off their columns, so the document it belongs to is not sent.',
  EDOC_MAP_UNKNOWN_CONCEPT:
    "A row holds a concept code that the mapping's concept table neither maps nor ignores.",
  EDOC_MAP_DOCUMENT_ROW:
    "No row, or more than one, of a document matches the mapping's rows.document rule; or a row that is neither that row nor a line holds a quantity and a price.",
  EDOC_MAP_REPEATED_COLUMN:
    'The export header names a column the mapping reads twice; which one is meant cannot be told, so the file is not read.',
  EDOC_MAP_HEADER_NOT_FOUND: "The header row the mapping's framing describes is not in the file.",
  EDOC_MAPPING_INVALID: 'A mapping file is not valid.',
  EDOC_MAP_CSV_SYNTAX:
    'The delimited file breaks the quoting rules (for example a quote that is never closed).',
  EDOC_MAP_EXPRESSION:
    'A mapping expression cannot be computed on a row (a cell that is not a number, a division by zero).',
  EDOC_MAP_NO_MATCH: 'A cell does not match the pattern the mapping captures part of it with.',
  EDOC_MAP_TOTAL_MISMATCH:
    'A figure the export states (a total, a tax, a withholding, a line total) differs from what the mapping computed beyond the tolerance; the document is not sent.',
  EDOC_MAP_VAT_RATE:
    "A VAT rate outside the mapping's allowed rates (default 0, 5, 19), as a fraction read as a percentage (0.19) would be; the document is not sent.",
  EDOC_MAP_NEGATIVE: 'A line has a negative quantity, price or discount; the document is not sent.',
  EDOC_MAP_ZERO_LINE:
    'A line is worth zero and the mapping does not allow zero lines; the document is not sent.',
  EDOC_MAP_TAX_RATE:
    'A tax (other than VAT) or withholding rate is above 100 %, or an income withholding or tax is 100 %, as a percentage read as a fraction (8 for 0.08, 1 for 0.01) would be; the document is not sent.',
  EDOC_MAP_PRICE_DECIMALS:
    "A unit price has more decimals than the wire's two, and rounding it to the cent changes the line's value (quantity × price), or a quantity read as an amount (`as: decimal`) loses decimals; the document is not sent.",
  EDOC_MAP_MASTER_MISSING:
    'A document reads a master-data table (customers, suppliers, employees) by an id the table does not hold, or the table has no file loaded yet; the document is not sent.',
  EDOC_MASTER_BAD_FILE:
    'A master-data table file cannot be read as the configured table (a missing column, an empty or repeated id, broken quoting); the table in use stays as it was.',
  EDOC_MASTER_STALE:
    'The master-data table in use was exported longer ago than its configured maxAge.',
  EDOC_MAP_DISCOUNT:
    "A line discount cannot be carried: it exceeds the line's value, or the discounted unit price is not a whole number of cents.",
  // --- validate -----------------------------------------------------------
  EDOC_VALIDATE_SCHEMA: 'The request does not match the wire schema of its resource.',
  EDOC_VALIDATE_KIND: 'The request does not match the kind of its inbox folder.',
  EDOC_VALIDATE_WRONG_FOLDER:
    'The document itself says it is of another kind than its inbox folder (a reason, a reference, a document-type column, a note prefix); it is not sent.',
  EDOC_VALIDATE_TOTALS: 'Amounts do not add up.',
  EDOC_VALIDATE_TAX: "A tax entry breaks the spec's tax rules.",
  EDOC_VALIDATE_CHECK_DIGIT: 'A check digit does not match its NIT.',
  EDOC_VALIDATE_PERIOD: 'A PeriodStartDate is more than 6 days before today.',
  EDOC_VALIDATE_AMOUNT:
    'An amount is not a string with two decimals (or a percentage is not a number).',
  EDOC_VALIDATE_NIT: 'A NIT is not made of 1 to 15 digits.',
  EDOC_VALIDATE_ISSUER: "The issuer tax id in the request is not the company's NIT.",
  EDOC_VALIDATE_SUPPLIER: "A support document's supplier is named with the company's own NIT.",
  EDOC_VALIDATE_PAYROLL_PERIOD:
    'A payroll period ends before it starts (FechaLiquidacionFin before FechaLiquidacionInicio); it is not sent.',
  EDOC_VALIDATE_DUE_DATE:
    'An invoice or note falls due (DueDate, PaymentMeans DueDate) before its IssueDate; it is not sent.',
  EDOC_VALIDATE_REFERENCE_DATE:
    'A credit or debit note refers to a document dated after the note (DocumentReferences IssueDate after its IssueDate); it is not sent.',
  EDOC_VALIDATE_OUT_OF_RANGE:
    "The document's own number is outside every active numbering range of its prefix (E10, read again just before): it is not sent.",
  // --- ledger -------------------------------------------------------------
  EDOC_LEDGER_LOCKED: 'Another edoc-bridge process holds the state folder.',
  EDOC_LEDGER_MIGRATION: 'The ledger schema could not be migrated.',
  EDOC_LEDGER_NOT_FOUND: 'The state folder holds no ledger yet.',
  EDOC_LEDGER_OPEN:
    'The ledger file could not be opened (not a database, damaged, or not accessible).',
  EDOC_LEDGER_DUPLICATE_FILE: 'The same file content was received before; it is not sent again.',
  EDOC_LEDGER_DUPLICATE_KEY: 'A document with this key was already accepted; it is not sent again.',
  EDOC_LEDGER_DUPLICATE_ERP_KEY:
    'A document the service numbers whose ERP key (the mapping key) was issued already for this company and kind; not sent again.',
  EDOC_LEDGER_DUPLICATE_DOCUMENT:
    'The same document of the same file content was accepted before (a resend); it is not sent again.',
  EDOC_LEDGER_EARLIER_COPY_OPEN:
    'The same document of the same file content taken before is not final yet; this copy is not sent.',
  EDOC_ISSUED_OTHER_CONTENT:
    "The document's number was issued with other content (a corrected re-export, or a file read before its writer finished): not sent; the issued document needs a credit or debit note.",
  EDOC_LEDGER_OTHER_COMPANY:
    'The same file content was taken for another company, or a note references a number only another company issued: held, not sent, until an operator releases them (edoc-bridge retry --other-company).',
  EDOC_LEDGER_REFERENCE_NOT_ISSUED:
    'A note references a document the ledger holds as rejected or invalid, or read from a file refused whole (never issued): not sent.',
  EDOC_LEDGER_REFERENCE_UNKNOWN:
    "A note references a document the ledger does not know (it may be from before the bridge): sent, with a `warn` log line naming the reference (`references`) and a warning in the note's row of NAME.result.json (`warnings`: the code, the reference and what to check: the order of the exports, when the invoice's file was dropped after the note's).",
  EDOC_RESEND_REFUSED:
    'edoc-bridge resend cannot take this file again now (documents not final, archive missing, nothing to resend).',
  EDOC_KIND_UNKNOWN:
    "A text that must name a document kind (a ledger row's kind column) names none of PRODUCT's kinds: a damaged ledger, or one written by a newer version.",
  EDOC_LEDGER_WRITE:
    'A ledger commit failed for a reason other than a full disk; work pauses and the commit is retried.',
  EDOC_STORAGE_FULL:
    'The disk holding the ledger or the outbox is full (or failing): work pauses and resumes by itself when space returns.',
  EDOC_LEDGER_UNREACHABLE:
    'The PostgreSQL ledger (ledger.url) could not be reached: no server answers at that host and port, the network failed, or the connection timed out.',
  EDOC_LEDGER_REFUSED:
    "The PostgreSQL server refused the ledger's connection: wrong password, unknown role or database, no pg_hba.conf entry, or TLS required or refused.",
  EDOC_LEDGER_CONNECTION_LOST:
    'The connection to the PostgreSQL ledger broke while in use (server restarted, session terminated, network cut); a commit in flight may or may not have been applied.',
  EDOC_LEDGER_COPY_REFUSED:
    "edoc-bridge ledger copy will not copy: no SQLite ledger at --from, its schema is not this version's, a daemon holds its state folder, cluster nodes run on the PostgreSQL ledger, or it already holds rows (two ledgers are never merged).",
  EDOC_LEDGER_COPY_SCHEMA:
    'The SQLite ledger and the PostgreSQL schema do not have the same tables and columns (or a column type the copy does not carry): nothing was copied.',
  EDOC_LEDGER_COPY_VALUE:
    'A value of the SQLite ledger cannot be stored in PostgreSQL as it is (a NUL character or invalid UTF-8 in text, a fraction or text in an integer column): nothing was copied.',
  EDOC_LEDGER_COPY_VERIFY:
    "After copying, the PostgreSQL ledger's row counts or checksums differ from the SQLite ledger's: the copy was rolled back.",
  EDOC_CLUSTER_FENCED:
    "This node no longer holds the company's lease (cluster mode): the transaction that would have changed the company's documents, files or cursor was rolled back; the company's new owner carries on.",
  EDOC_CLUSTER_NODE_IN_USE:
    'Another running process is already this cluster node (same cluster.node name, its heartbeat goes on): this one does not start. Give each node its own name.',
  EDOC_CLUSTER_COMPANY_MISMATCH:
    "This node's configuration of a company (id, NIT, key, rate, concurrency or inbox folder: one company alone configured) differs from the one the live node that holds or last held it recorded (cluster mode): this node does not take that company while that node runs. Make the configurations agree.",
  EDOC_CLUSTER_CLOCK_SKEW:
    "This node's clock differs from the database server's by more than a second (cluster mode): every time the nodes compare is taken from the database's clock, but fix the machine's time (NTP).",
  // --- submit -------------------------------------------------------------
  EDOC_SUBMIT_GAVE_UP: 'A transient fault persisted through every retry.',
  EDOC_SUBMIT_MAYBE_ISSUED:
    'A failed document an attempt of which may have reached the service: it may be issued already; re-queue it with retry, never renumber it.',
  EDOC_SUBMIT_IN_DOUBT:
    'A request went out and no answer came back (a lost answer, an uncontrolled 500); the document has no own number. It may be issued: its message says to check on the service, then `edoc-bridge resolve` (or `retry --in-doubt` if it was not).',
  EDOC_SUBMIT_REPEATED_NUMBER:
    'The service holds a document under this number (Regla 90) and an earlier attempt of ours may have delivered it: in doubt until the operator confirms at the authority (resolve --issued or --not-ours).',
  // --- report -------------------------------------------------------------
  EDOC_REPORT_WRITE: 'An outbox file could not be written.',
  EDOC_REPORT_ARCHIVE: 'An original could not be moved to the archive.',
  // --- operator listener -------------------------------------------------
  EDOC_HTTP_LISTEN:
    'The operator listener (http.listen) could not start: the port is in use, the address is not on this machine, or binding it is not allowed.',
  // --- received -----------------------------------------------------------
  EDOC_RECEIVED_BAD_PDF: "A received document's pdfDocument is not a PDF.",
  EDOC_RECEIVED_BAD_WINDOW:
    'The service refused the date window of a received-documents pull (bad dates, or its framework 400).',
  EDOC_RECEIVED_INCOMPLETE:
    'The received documents of a window kept changing while they were read; the cursor did not advance.',
  // --- ranges / alerts ----------------------------------------------------
  EDOC_RANGES_UNREADABLE:
    "A company's numbering ranges (E10) could not be read; the last ones read are kept and nothing is refused on their account.",
  EDOC_ALERT_UNDELIVERED:
    'The alert webhook did not take a message; it is retried with backoff in the background.',
  EDOC_ALERT_DROPPED:
    'Alerts were dropped (the oldest first) because the webhook stayed down while more came than the queue holds.',
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** Context carried as fields, never baked into the message only. */
export interface ErrorContext {
  file?: string;
  row?: number;
  rows?: number[];
  field?: string;
  column?: string;
  value?: string;
  httpStatus?: number;
  body?: unknown;
  [key: string]: unknown;
}

export class EdocError extends Error {
  readonly code: ErrorCode;
  readonly context: ErrorContext;

  constructor(
    code: ErrorCode,
    message: string,
    context: ErrorContext = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EdocError';
    this.code = code;
    this.context = context;
  }
}

export function isEdocError(err: unknown, code?: ErrorCode): err is EdocError {
  return err instanceof EdocError && (code === undefined || err.code === code);
}
