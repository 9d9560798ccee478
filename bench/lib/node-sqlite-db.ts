/**
 * The measurement adapter behind docs/benchmarks.md, "The SQLite binding": better-sqlite3's API as the ledger uses it,
 * on node:sqlite. Not part of the program. To build that variant in a scratch copy: copy this file to
 * src/ledger/sql/sqlite-db.ts, import Database from it instead of 'better-sqlite3' in src/ledger (ledger.ts,
 * migrations.ts, sql/sqlite.ts, sql/sqlite-read-view.ts) and src/ledger-copy (copy-*.ts), write Database for Database.Database and
 * ReturnType<Database['prepare']> for Database.Statement, and run tsc -p tsconfig.build.json there.
 */
import fs from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

type Row = Record<string, unknown>;

function codeOf(err: unknown): unknown {
  const e = err as { code?: string; errcode?: number; errstr?: string };
  if (e && e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') {
    const primary = e.errcode & 0xff;
    const names: Record<number, string> = {
      5: 'SQLITE_BUSY',
      10: 'SQLITE_IOERR',
      13: 'SQLITE_FULL',
      19: 'SQLITE_CONSTRAINT',
      6: 'SQLITE_LOCKED',
    };
    (e as { code?: string }).code = names[primary] ?? `SQLITE_${primary}`;
  }
  return err;
}

export class Statement {
  private mode: 'row' | 'pluck' | 'raw' = 'row';
  private cachedReader: boolean | undefined;
  constructor(private readonly s: StatementSync) {}
  get reader(): boolean {
    return (this.cachedReader ??= this.s.columns().length > 0);
  }
  pluck(on = true): this {
    this.mode = on ? 'pluck' : 'row';
    this.s.setReturnArrays(on);
    return this;
  }
  raw(on = true): this {
    this.mode = on ? 'raw' : 'row';
    this.s.setReturnArrays(on);
    return this;
  }
  safeIntegers(on = true): this {
    this.s.setReadBigInts(on);
    return this;
  }
  run(...p: unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    try {
      const r = this.s.run(...(p as never[]));
      return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
    } catch (e) {
      throw codeOf(e);
    }
  }
  get(...p: unknown[]): unknown {
    try {
      const r = this.s.get(...(p as never[])) as unknown;
      return this.mode === 'pluck' && r !== undefined ? fix((r as unknown[])[0]) : fixRow(r);
    } catch (e) {
      throw codeOf(e);
    }
  }
  all(...p: unknown[]): unknown[] {
    try {
      const rows = this.s.all(...(p as never[])) as unknown[];
      return this.mode === 'pluck' ? rows.map((r) => fix((r as unknown[])[0])) : rows.map(fixRow);
    } catch (e) {
      throw codeOf(e);
    }
  }
  *iterate(...p: unknown[]): IterableIterator<unknown> {
    for (const r of this.s.iterate(...(p as never[])) as IterableIterator<unknown>)
      yield this.mode === 'pluck' ? fix((r as unknown[])[0]) : fixRow(r);
  }
}
function fix(v: unknown): unknown {
  return v instanceof Uint8Array && !Buffer.isBuffer(v)
    ? Buffer.from(v.buffer, v.byteOffset, v.byteLength)
    : v;
}
function fixRow(r: unknown): unknown {
  if (r === undefined || r === null) return r;
  if (Array.isArray(r)) {
    for (let i = 0; i < r.length; i++) if (r[i] instanceof Uint8Array) r[i] = fix(r[i]);
    return r;
  }
  const o = r as Row;
  for (const k in o) if (o[k] instanceof Uint8Array) o[k] = fix(o[k]);
  return o;
}

export interface Options {
  readonly?: boolean;
  fileMustExist?: boolean;
  timeout?: number;
}
export default class Database {
  readonly name: string;
  readonly memory: boolean;
  private readonly db: DatabaseSync;
  constructor(file: string, o: Options = {}) {
    this.name = file;
    this.memory = file === ':memory:' || file === '';
    if (o.fileMustExist && !this.memory && !fs.existsSync(file))
      throw Object.assign(new Error(`unable to open database file`), { code: 'SQLITE_CANTOPEN' });
    this.db = new DatabaseSync(file, { readOnly: o.readonly === true, timeout: o.timeout ?? 5000 });
  }
  get open(): boolean {
    return this.db.isOpen;
  }
  get inTransaction(): boolean {
    return this.db.isTransaction;
  }
  prepare(sql: string): Statement {
    try {
      return new Statement(this.db.prepare(sql));
    } catch (e) {
      throw codeOf(e);
    }
  }
  exec(sql: string): this {
    try {
      this.db.exec(sql);
    } catch (e) {
      throw codeOf(e);
    }
    return this;
  }
  pragma(text: string, o: { simple?: boolean } = {}): unknown {
    const rows = this.prepare(`PRAGMA ${text}`).all() as Row[];
    if (!o.simple) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }
  close(): void {
    if (this.db.isOpen) this.db.close();
  }
  transaction<A extends unknown[], T>(
    fn: (...a: A) => T,
  ): ((...a: A) => T) & { immediate: (...a: A) => T } {
    const wrap =
      (begin: string) =>
      (...a: A): T => {
        this.exec(begin);
        try {
          const r = fn(...a);
          this.exec('COMMIT');
          return r;
        } catch (e) {
          if (this.inTransaction) this.exec('ROLLBACK');
          throw e;
        }
      };
    return Object.assign(wrap('BEGIN'), { immediate: wrap('BEGIN IMMEDIATE') });
  }
}
