/**
 * What the numbering-range watch knows of one active range (E10) combined with the ledger: the
 * contract between ranges/ (which keeps it), the metrics, the alerts, `status` and the console.
 */
export interface RangeState {
  /** Company alias (config `companies[].alias`). */
  company: string;
  /** The range's prefix; '' when the service shows none. */
  prefix: string;
  /** The range's document type as E10 names it. */
  documentType: string;
  from: number;
  to: number;
  /** yyyy-MM-dd, the last day the resolution is valid. */
  validUntil: string;
  /** Highest number of this prefix the ledger has used within [from, to], if any. */
  lastUsed?: number;
  /** Numbers still unused in [from, to] after `lastUsed` (to − max(lastUsed, from − 1)). */
  numbersLeft: number;
  /** Whole days from today (America/Bogota) to `validUntil`; negative once expired. */
  daysLeft: number;
  /** When E10 was last read for this company (epoch ms). */
  readAt: number;
}
