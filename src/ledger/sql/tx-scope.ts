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

/** Throws when the caller runs inside a transaction opened on `owner` and not finished yet. */
export function refuseInsideOwnTransaction(owner: object): void {
  const scope = scopes.getStore();
  if (scope !== undefined && scope.open && scope.owner === owner) {
    throw new Error('a statement on the ledger executor inside one of its own transactions: use the transaction\'s tx executor');
  }
}

/** Runs `fn` marked as inside a transaction of `owner`; the mark ends with it (callbacks it left behind are free). */
export async function inTransactionScope<T>(owner: object, fn: () => Promise<T>): Promise<T> {
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
