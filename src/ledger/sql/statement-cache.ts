import type Database from 'better-sqlite3';

/**
 * The statements prepared on one SQLite connection, by SQL text: each prepared once; beyond `max` the
 * oldest is dropped (generated SQL must not grow it forever).
 */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly max: number,
  ) {}

  get(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= this.max)
        this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  clear(): void {
    this.statements.clear();
  }
}
