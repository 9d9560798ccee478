/**
 * Raises alerts once per episode: an episode (a key such as `range-low:main:FE`) opens with one alert
 * and may end with one `info` alert of the same id; while it is open, the condition being true again
 * raises nothing. Every alert is logged (warn / error / info) and handed to the webhook, and the last
 * ones are kept for the console (`recent`). They are kept in the state folder too (`alerts.json`), so
 * the console still shows them after a restart; open episodes are not: a condition still true after a
 * restart is announced once more by the new process.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import type { AlertKind, AlertLog, AlertRecord } from './alert-record.js';

export const ALERTS_FILE = 'alerts.json';
/** Alerts kept for the console. */
const KEPT = 200;

export interface AlertInput {
  kind: AlertKind;
  severity: AlertRecord['severity'];
  company?: string;
  message: string;
  details?: AlertRecord['details'];
}

export interface AlerterOptions {
  logger: Logger;
  /** Where each alert goes besides the log (the webhook); none when absent. */
  deliver?(record: AlertRecord): void;
  /** Where the last alerts are kept across restarts; in memory only when absent. */
  stateDir?: string;
  now?: () => number;
}

export class Alerter implements AlertLog {
  private readonly kept: AlertRecord[] = [];
  private readonly open = new Map<string, AlertRecord>();
  private readonly now: () => number;
  private saving: Promise<void> = Promise.resolve();
  private sequence = 0;

  constructor(private readonly options: AlerterOptions) {
    this.now = options.now ?? Date.now;
    if (options.stateDir !== undefined) this.kept.push(...loadAlerts(options.stateDir));
  }

  /** Newest first. */
  recent(limit: number): AlertRecord[] {
    return this.kept.slice(0, Math.max(0, limit));
  }

  isOpen(episode: string): boolean {
    return this.open.has(episode);
  }

  /** Opens the episode with its alert; false (nothing raised) when it is open already. */
  raise(episode: string, input: AlertInput): boolean {
    if (this.open.has(episode)) return false;
    const at = this.now();
    const record: AlertRecord = {
      // not the episode's key: that may hold text the service sent (a range's prefix)
      id: `${input.kind}:${input.company ?? '-'}:${at.toString(36)}${(this.sequence++).toString(36)}`,
      kind: input.kind,
      severity: input.severity,
      ...(input.company === undefined ? {} : { company: input.company }),
      message: input.message,
      details: input.details ?? {},
      at,
    };
    this.open.set(episode, record);
    this.emit(record);
    return true;
  }

  /**
   * Ends an open episode: with an `info` alert of the same id (`input`), or silently when another
   * episode took its place (a range that ran low and is now exhausted). False when it was not open.
   */
  end(episode: string, input?: Omit<AlertInput, 'severity'>): boolean {
    const opened = this.open.get(episode);
    if (opened === undefined) return false;
    this.open.delete(episode);
    if (input !== undefined) {
      this.emit({
        id: opened.id,
        kind: input.kind,
        severity: 'info',
        ...(opened.company === undefined ? {} : { company: opened.company }),
        message: input.message,
        details: { ...(input.details ?? {}), openedAt: opened.at },
        at: this.now(),
      });
    }
    return true;
  }

  /** Open episodes whose key starts with `prefix` (e.g. every range episode of a company). */
  openEpisodes(prefix: string): string[] {
    return [...this.open.keys()].filter((key) => key.startsWith(prefix));
  }

  private emit(record: AlertRecord): void {
    const fields = {
      alert: record.kind,
      alertId: record.id,
      ...(record.company ? { company: record.company } : {}),
      ...record.details,
    };
    if (record.severity === 'error') this.options.logger.error(fields, record.message);
    else if (record.severity === 'warning') this.options.logger.warn(fields, record.message);
    else this.options.logger.info(fields, record.message);
    this.kept.unshift(record);
    this.kept.length = Math.min(this.kept.length, KEPT);
    try {
      this.options.deliver?.(record);
    } catch (err) {
      this.options.logger.error(
        { err, alert: record.kind },
        'an alert could not be queued for the webhook',
      );
    }
    this.save();
  }

  private save(): void {
    const dir = this.options.stateDir;
    if (dir === undefined) return;
    const text = `${JSON.stringify({ alerts: this.kept }, null, 1)}\n`;
    this.saving = this.saving
      .then(() => writeWhole(path.join(dir, ALERTS_FILE), text))
      .catch((err: unknown) => {
        this.options.logger.warn(
          { err, state: dir },
          'could not keep the last alerts in the state folder',
        );
      });
  }

  /** Waits for the last write of `alerts.json`. */
  flush(): Promise<void> {
    return this.saving;
  }
}

/** The alerts a previous run kept (newest first), or none. */
export function loadAlerts(stateDir: string): AlertRecord[] {
  try {
    const data = JSON.parse(readFileSync(path.join(stateDir, ALERTS_FILE), 'utf8')) as {
      alerts?: unknown;
    };
    return Array.isArray(data.alerts) ? (data.alerts as AlertRecord[]).slice(0, KEPT) : [];
  } catch {
    return [];
  }
}

async function writeWhole(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}
