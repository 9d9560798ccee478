/**
 * One alert as the operator surface shows it (the console's "last alerts", the webhook's message):
 * the contract between alerts/ (which raises and keeps them) and http/ (which shows them).
 */
export type AlertKind =
  | 'service-down'
  | 'service-up'
  | 'company-paused'
  | 'document-in-doubt'
  | 'rejection-burst'
  | 'range-low'
  | 'range-exhausted'
  | 'range-expiring'
  | 'range-expired'
  | 'unsent-at-day-end'
  | 'received-pull-failing'
  | 'received-pull-recovered';

export interface AlertRecord {
  /** Stable per episode: the same episode never yields a second alert with another id. */
  id: string;
  kind: AlertKind;
  /** `error` needs a person now; `warning` soon; `info` an episode ended. */
  severity: 'info' | 'warning' | 'error';
  /** Company alias, when the alert is about one company. */
  company?: string;
  /** One line for a person; never a key, never more than a short excerpt of input. */
  message: string;
  /** Small, non-secret facts (prefix, numbers left, documents, since). */
  details: Record<string, string | number | boolean | null>;
  /** Epoch ms when raised. */
  at: number;
}

/** Where the console reads the last alerts from. */
export interface AlertLog {
  /** Newest first. */
  recent(limit: number): AlertRecord[];
}
