export { ReceivedPuller } from './puller.js';
export type {
  PageProgress,
  PullError,
  PullOptions,
  PullResult,
  ReceivedPullerOptions,
} from './puller.js';
export { CompanyPull } from './company-pull.js';
export type { CompanyPullOptions } from './company-pull.js';
export type { PageRetry, ReceivedSource, StopReason } from './fetch-page.js';
export { RECEIVED_INDEX_COLUMNS, RECEIVED_INDEX_FILE, ReceivedIndex } from './received-index.js';
export { decodePdf, receivedKey, receivedNames } from './received-files.js';
export { advancedCursor, monthSlices, scheduledWindow, formatWindow } from './window.js';
export type { DateWindow } from './window.js';
