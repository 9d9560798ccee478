/**
 * Master data: each configured table's folder (config `masterData.tables`) is looked at every
 * `masterData.every`; its newest complete file (the newest modification time among the .csv/.txt files,
 * complete once its size and time stayed the same for `watch.stableMs`) becomes the table's next version
 * in the ledger (ledger/master-data.ts) when its content differs from the version in use. A file older
 * than the version in use (another node loaded a newer export) is not taken: the newest export wins on
 * every node. A file that cannot be read right (EDOC_MASTER_BAD_FILE) leaves the table as it was, one
 * error line per file. A table in use exported longer ago than its maxAge: one EDOC_MASTER_STALE warning
 * per version (and again after a restart).
 *
 * The intake reads the tables a mapping names from here (`tablesFor`): the newest version in the ledger,
 * so every node of a cluster maps with the same table; the rows of a version are read once and kept.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { MasterTableConfig } from '../config/master-data-schema.js';
import { isEdocError } from '../errors.js';
import type { LedgerPort } from '../ledger/port.js';
import type { MasterTableData, MasterVersion } from '../ledger/master-data.js';
import type { AppLogger } from '../log/logger.js';
import type { Mapping } from '../map/mapping-types.js';
import type { MasterTables } from '../map/master-tables.js';
import { isMasterFileName, readMasterFile } from '../read/master-file.js';

export interface MasterDataOptions {
  ledger: LedgerPort;
  logger: AppLogger;
  /** The current configuration (it changes on SIGHUP). */
  config(): Readonly<Config>;
  /** The clock (tests). @defaultValue Date.now */
  now?(): number;
}

interface Seen {
  name: string;
  size: number;
  mtimeMs: number;
  since: number;
}

const sameFile = (a: Seen | undefined, b: Omit<Seen, 'since'>): boolean =>
  a !== undefined && a.name === b.name && a.size === b.size && a.mtimeMs === b.mtimeMs;

export class MasterData {
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private closed = false;
  /** Per table: the newest file as last seen (stability), and the last file handled (taken, refused or older). */
  private readonly seen = new Map<string, Seen>();
  private readonly handled = new Map<string, Seen>();
  private readonly warnedStale = new Set<string>();
  /** `table@version` -> its rows, read once. */
  private readonly cache = new Map<string, Promise<MasterTableData | undefined>>();

  constructor(private readonly o: MasterDataOptions) {}

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** One look at every folder now (tables present before the first file is read), then on a timer. */
  async start(): Promise<void> {
    await this.lookNow();
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.lookNow().finally(() => this.schedule());
    }, this.o.config().masterData.every);
    this.timer.unref();
  }

  /** Looks at every table's folder once (tests and start-up); never throws. */
  lookNow(): Promise<void> {
    this.looking ??= this.lookAll().finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  private async lookAll(): Promise<void> {
    for (const [table, settings] of Object.entries(this.o.config().masterData.tables)) {
      if (this.closed) return;
      try {
        await this.look(table, settings);
      } catch (err) {
        this.o.logger.error(
          { err, table, folder: settings.folder },
          'master table: the folder could not be looked at',
        );
      }
    }
  }

  private async look(table: string, t: MasterTableConfig): Promise<void> {
    const log = this.o.logger;
    await mkdir(t.folder, { recursive: true });
    const newest = await newestFile(t.folder);
    const latest = await this.o.ledger.latestMasterVersion(table);
    if (
      newest !== undefined &&
      !sameFile(this.handled.get(table), newest) &&
      this.complete(table, newest)
    ) {
      const file = path.join(t.folder, newest.name);
      this.handled.set(table, { ...newest, since: this.now() });
      if (latest !== undefined && Math.floor(newest.mtimeMs) < latest.fileMtime) {
        log.info(
          { table, file: newest.name, inUse: latest.file, version: latest.version },
          'master table: not taken, the version in use was exported later',
        );
      } else {
        await this.take(table, t, file, newest);
      }
    }
    this.checkAge(table, t, await this.o.ledger.latestMasterVersion(table));
  }

  /** Complete: unchanged for watch.stableMs, seen across looks (or last modified longer ago than that). */
  private complete(table: string, f: Omit<Seen, 'since'>): boolean {
    const stableMs = this.o.config().watch.stableMs;
    const before = this.seen.get(table);
    if (!sameFile(before, f)) this.seen.set(table, { ...f, since: this.now() });
    const since = sameFile(before, f) ? before!.since : this.now();
    return this.now() - since >= stableMs || this.now() - f.mtimeMs >= stableMs;
  }

  private async take(
    table: string,
    t: MasterTableConfig,
    file: string,
    f: Omit<Seen, 'since'>,
  ): Promise<void> {
    const log = this.o.logger;
    try {
      const read = await readMasterFile(file, {
        table,
        key: t.key,
        columns: t.columns,
        encoding: t.encoding,
        delimiter: t.delimiter,
        maxRecordBytes: this.o.config().read.maxRecordBytes,
      });
      const after = await stat(file);
      if (after.size !== f.size || after.mtimeMs !== f.mtimeMs) {
        this.handled.delete(table); // written on while read: taken again once complete
        return;
      }
      const { stored, latest } = await this.o.ledger.storeMasterVersion(
        {
          table,
          file: f.name,
          sha256: read.sha256,
          fileMtime: Math.floor(f.mtimeMs),
          columns: read.columns,
          rows: read.rows,
        },
        this.now(),
      );
      if (stored !== undefined) {
        log.info(
          {
            table,
            version: stored.version,
            file: f.name,
            rows: stored.rowCount,
            sha256: read.sha256,
          },
          'master table loaded',
        );
      } else if (latest?.sha256 === read.sha256) {
        log.info(
          { table, version: latest.version, file: f.name },
          'master table: same content as the version in use',
        );
      } else {
        this.handled.delete(table); // another node stored a version at the same moment: this file is weighed again next look
      }
    } catch (err) {
      if (!isEdocError(err, 'EDOC_MASTER_BAD_FILE')) throw err;
      log.error(
        { code: err.code, table, file: f.name, row: err.context.row, column: err.context.column },
        err.message,
      );
    }
  }

  private checkAge(table: string, t: MasterTableConfig, v: MasterVersion | undefined): void {
    if (v === undefined) return;
    const age = this.now() - v.fileMtime;
    const episode = `${table}@${v.version}`;
    if (age <= t.maxAge || this.warnedStale.has(episode)) return;
    this.warnedStale.add(episode);
    const hours = Math.floor(age / 3_600_000);
    this.o.logger.warn(
      {
        code: 'EDOC_MASTER_STALE',
        table,
        version: v.version,
        file: v.file,
        exportedAt: new Date(v.fileMtime).toISOString(),
      },
      `master table "${table}" (version ${v.version}, from ${v.file}) was exported ${hours} h ago, more than its maxAge ` +
        `of ${Math.round(t.maxAge / 3_600_000)} h: export the third-party file again`,
    );
  }

  /** The tables a mapping reads, newest version each (a table with no file loaded yet is absent). */
  async tablesFor(mapping: Mapping | undefined): Promise<MasterTables | undefined> {
    const names = Object.keys(mapping?.masterTables ?? {});
    if (names.length === 0) return undefined;
    const out: Record<string, MasterTableData> = {};
    for (const table of names) {
      const latest = await this.o.ledger.latestMasterVersion(table);
      if (latest === undefined) continue;
      const key = `${table}@${latest.version}`;
      let loading = this.cache.get(key);
      if (loading === undefined) {
        for (const k of this.cache.keys()) if (k.startsWith(`${table}@`)) this.cache.delete(k);
        loading = this.o.ledger.readMasterTable(table, latest.version);
        this.cache.set(key, loading);
        loading.catch(() => this.cache.delete(key));
      }
      const data = await loading;
      if (data !== undefined) out[table] = data;
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.looking;
  }
}

/** The newest table file of a folder (modification time, then name), or undefined. */
async function newestFile(folder: string): Promise<Omit<Seen, 'since'> | undefined> {
  let best: Omit<Seen, 'since'> | undefined;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (!entry.isFile() || !isMasterFileName(entry.name)) continue;
    const s = await stat(path.join(folder, entry.name)).catch(() => undefined);
    if (s === undefined) continue;
    if (
      best === undefined ||
      s.mtimeMs > best.mtimeMs ||
      (s.mtimeMs === best.mtimeMs && entry.name > best.name)
    ) {
      best = { name: entry.name, size: s.size, mtimeMs: s.mtimeMs };
    }
  }
  return best;
}
