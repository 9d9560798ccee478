export { AtomicWriter, writeFileAtomic, removeDurably, fsyncDir } from './atomic-write.js';
export { ResultFileWriter, resultCounts, resultDocument, issuedOf } from './result-file.js';
export type { DuplicateOf, Issued, ResultCounts, ResultDocument } from './result-file.js';
export {
  ErrorsCsvWriter,
  csvCell,
  csvRow,
  formatPositions,
  errorRows,
  CSV_DELIMITER,
  ERRORS_CSV_COLUMNS,
  ERROR_STATES,
} from './errors-csv.js';
export { RetryFileWriter, RETRY_STATES } from './retry-file.js';
export { archiveOriginal } from './archive.js';
export { sanitizeName, outputStem, outputNames, inputExtension } from '../policy/outbox-names.js';
export type { OutputNames } from '../policy/outbox-names.js';
export { ensureOutboxDir, writeReportSet } from './file-report.js';
export type { FileReportResult, ReportSource, ReportWriteOptions } from './file-report.js';
export { moveReportSetAside, moveAsideError } from './move-aside.js';
export type { ReportPlace } from './move-aside.js';
