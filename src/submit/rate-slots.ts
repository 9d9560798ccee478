/**
 * A company's request window and the waits around it: the sender reserves a slot that counts from
 * the moment its request is handed to the socket; other callers (the received-documents puller)
 * take one counted from now.
 */
import { SlidingWindow } from '../policy/rate-window.js';
import type { Reservation } from '../policy/rate-window.js';

/**
 * Requests sent a window apart can reach the service closer together than that, by the difference
 * of their transit times; the service counts arrivals, so our window is this much longer.
 */
export const RATE_MARGIN_MS = 40;

export function windowFor(requestsPerSecond: number): SlidingWindow {
  // Fractional rates (0.5/s) become one request per 2 s.
  return requestsPerSecond >= 1
    ? new SlidingWindow(Math.floor(requestsPerSecond), 1000 + RATE_MARGIN_MS)
    : new SlidingWindow(1, Math.ceil(1000 / requestsPerSecond) + RATE_MARGIN_MS);
}

/**
 * Waits for a slot whose time is set by `sent`. The window is read anew each round: a reloaded
 * configuration may have replaced it.
 */
export async function reserveSlot(window: () => SlidingWindow, now: () => number): Promise<Reservation> {
  for (;;) {
    const r = window().tryReserve(now());
    if ('reservation' in r) return r.reservation;
    await delay(r.wait);
  }
}

/** Waits for a slot counted from now. */
export async function takeSlot(window: () => SlidingWindow, now: () => number): Promise<void> {
  for (;;) {
    const wait = window().tryAcquire(now());
    if (wait === 0) return;
    await delay(wait);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
