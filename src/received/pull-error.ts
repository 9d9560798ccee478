import type { ErrorCode } from '../errors.js';
import type { DateWindow } from './window.js';

/** One problem of a pull, as data (the log line and the CLI print it). */
export interface PullError {
  code: ErrorCode;
  message: string;
  window?: DateWindow;
  httpStatus?: number;
  /** The document (number) an error is about. */
  doc?: string;
  cufe?: string;
}
