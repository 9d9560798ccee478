/**
 * The token check: constant-time, and slowed against guessing. Every wrong token (Bearer or login
 * form) from an address counts; after `freeAttempts` within `windowMs` that address is refused
 * (429) for a lock time that doubles with each further failure, up to `maxLockMs`. A right token
 * clears the address's count. The table of addresses is bounded (oldest forgotten first), so a
 * flood of addresses cannot grow it without limit.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in time that depends on neither (both hashed to 32 bytes first). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export interface LoginGuardOptions {
  /** @defaultValue 5 */
  freeAttempts?: number;
  /** @defaultValue 15 minutes */
  windowMs?: number;
  /** @defaultValue 1 second */
  baseLockMs?: number;
  /** @defaultValue 15 minutes */
  maxLockMs?: number;
  /** @defaultValue 10000 */
  maxAddresses?: number;
  now?: () => number;
}

interface Attempts {
  failures: number;
  firstAt: number;
  lockedUntil: number;
}

export class LoginGuard {
  private readonly table = new Map<string, Attempts>();
  private readonly freeAttempts: number;
  private readonly windowMs: number;
  private readonly baseLockMs: number;
  private readonly maxLockMs: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;

  constructor(options: LoginGuardOptions = {}) {
    this.freeAttempts = options.freeAttempts ?? 5;
    this.windowMs = options.windowMs ?? 15 * 60_000;
    this.baseLockMs = options.baseLockMs ?? 1_000;
    this.maxLockMs = options.maxLockMs ?? 15 * 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds this address must still wait before a token is even compared; 0 when it may try. */
  waitFor(address: string): number {
    const entry = this.table.get(address);
    if (entry === undefined) return 0;
    return Math.max(0, entry.lockedUntil - this.now());
  }

  failed(address: string): void {
    const at = this.now();
    let entry = this.table.get(address);
    if (entry === undefined || at - entry.firstAt > this.windowMs) {
      entry = { failures: 0, firstAt: at, lockedUntil: 0 };
    }
    entry.failures += 1;
    const over = entry.failures - this.freeAttempts;
    if (over >= 0) entry.lockedUntil = at + Math.min(this.maxLockMs, this.baseLockMs * 2 ** Math.min(over, 20));
    this.table.delete(address);
    this.table.set(address, entry);
    while (this.table.size > this.maxAddresses) this.table.delete(this.table.keys().next().value as string);
  }

  succeeded(address: string): void {
    this.table.delete(address);
  }
}
