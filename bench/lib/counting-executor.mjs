// An executor (the SQL port, src/ledger/sql/executor.ts) that counts what the ledger asks of the one it
// wraps: statements run, calls (each an awaited call through the port; on PostgreSQL each is a round trip
// to the server, BEGIN and COMMIT included) and transactions. A batch of rows in one runMany is one call
// and as many statements as rows. Used by bench/pg-cost.mjs and the intake bench (bench/intake-speed.mjs).

export const zeroCounts = () => ({ statements: 0, roundTrips: 0, transactions: 0 });

export class CountingExecutor {
  constructor(inner, counts = zeroCounts(), inTx = false) {
    this.inner = inner;
    this.counts = counts;
    this.inTx = inTx;
    this.dialect = inner.dialect;
  }

  count(statements = 1) {
    this.counts.statements += statements;
    this.counts.roundTrips++;
  }

  all(sql, params) {
    this.count();
    return this.inner.all(sql, params);
  }
  get(sql, params) {
    this.count();
    return this.inner.get(sql, params);
  }
  run(sql, params) {
    this.count();
    return this.inner.run(sql, params);
  }
  // a build from before runMany has none: the wrapper must not claim one either
  get runMany() {
    if (typeof this.inner.runMany !== 'function') return undefined;
    return (sql, rows) => {
      this.count(rows.length);
      return this.inner.runMany(sql, rows);
    };
  }
  exec(sql) {
    this.count();
    return this.inner.exec(sql);
  }

  transaction(fn) {
    // BEGIN and COMMIT (a savepoint inside: SAVEPOINT and RELEASE)
    this.counts.transactions++;
    this.counts.roundTrips += 2;
    return this.inner.transaction((tx) => fn(new CountingExecutor(tx, this.counts, true)));
  }

  read(fn) {
    return this.inTx ? fn(this) : this.transaction(fn);
  }

  async readView() {
    this.counts.roundTrips += 2;
    const view = await this.inner.readView();
    const counts = this.counts;
    return {
      dialect: view.dialect,
      all: (s, p) => {
        counts.statements++;
        counts.roundTrips++;
        return view.all(s, p);
      },
      get: (s, p) => {
        counts.statements++;
        counts.roundTrips++;
        return view.get(s, p);
      },
      // a cursor: DECLARE, then one FETCH per page (SQLite steps one statement: one call per page all the same)
      pages: (s, p) => {
        counts.statements++;
        counts.roundTrips++;
        return (async function* pages() {
          for await (const page of view.pages(s, p)) {
            counts.roundTrips++;
            yield page;
          }
        })();
      },
      close: () => view.close(),
    };
  }

  close() {
    return this.inner.close();
  }
}
