/**
 * Which transaction the running code is inside, so that a call on the executor a transaction was opened
 * on (instead of on its `tx`) fails at once: on SQLite it would wait for the very transaction that waits
 * for it (a deadlock), on PostgreSQL it would run on another connection, outside the transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  owner: object;
  open: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * Whether the guard runs: always on Node 24 and later, where AsyncLocalStorage is built on context frames
 * and costs nothing the overhead bench can see; on Node 22 only with `EDOC_LEDGER_TX_GUARD=1` (the test
 * suites set it). There, as on Node 20 where it was measured, its first `run` turns on async_hooks' promise
 * hook for every promise of the process, the HTTP client's included: 4-5 % of the daemon's CPU in the
 * overhead bench (docs/benchmarks.md, "Sixth pass"), for a check that only a programming error trips and
 * that the suites run on Node 22 and 26.
 */
export const TX_GUARD =
  Number(process.versions.node.split('.')[0]) >= 24 || process.env['EDOC_LEDGER_TX_GUARD'] === '1';

/** Throws when the caller runs inside a transaction opened on `owner` and not finished yet. */
export function refuseInsideOwnTransaction(owner: object): void {
  if (!TX_GUARD) return;
  const scope = scopes.getStore();
  if (scope !== undefined && scope.open && scope.owner === owner) {
    throw new Error(
      "a statement on the ledger executor inside one of its own transactions: use the transaction's tx executor",
    );
  }
}

/** Runs `fn` marked as inside a transaction of `owner`; the mark ends with it (callbacks it left behind are free). */
export async function inTransactionScope<T>(owner: object, fn: () => Promise<T>): Promise<T> {
  if (!TX_GUARD) return fn();
  const scope: Scope = { owner, open: true };
  try {
    return await scopes.run(scope, fn);
  } finally {
    scope.open = false;
  }
}

/** One holder at a time, in arrival order. */
export class Mutex {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  get free(): boolean {
    return !this.held && this.waiters.length === 0;
  }

  /** Takes it synchronously when free; false otherwise. */
  tryLock(): boolean {
    if (!this.free) return false;
    this.held = true;
    return true;
  }

  lock(): Promise<void> {
    if (this.tryLock()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hands it to the next waiter (it stays held), or frees it. */
  unlock(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.held = false;
  }
}
