/**
 * How many bytes of input the intake reads at once. Small files (many companies' exports landing
 * together) are taken up to INTAKES (intake-queue.ts) at a time, so their steps share commits; a big one
 * waits until the bytes being read leave room for it, and one larger than the whole budget is read
 * alone. Memory then stays bounded whatever lands in the inboxes at once: each read holds its file's
 * table of keys and a batch in flight. First come, first served: small files never starve a big one.
 */

/** Bytes of input being read at once (a file larger than this is read alone). */
export const INTAKE_BYTES = 64 * 1024 * 1024;

export class IntakeBudget {
  private inFlight = 0;
  private readers = 0;
  private readonly waiting: { bytes: number; go: () => void }[] = [];

  constructor(private readonly limit = INTAKE_BYTES) {}

  /** Waits for room for a file of `bytes`; the function returned gives the room back (once). */
  async acquire(bytes: number): Promise<() => void> {
    const n = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
    if (this.waiting.length === 0 && this.fits(n)) this.take(n);
    else await new Promise<void>((go) => this.waiting.push({ bytes: n, go }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= n;
      this.readers -= 1;
      this.admit();
    };
  }

  /** Bytes being read now (status, tests). */
  get bytes(): number {
    return this.inFlight;
  }

  private fits(n: number): boolean {
    return this.readers === 0 || this.inFlight + n <= this.limit;
  }

  private take(n: number): void {
    this.inFlight += n;
    this.readers += 1;
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0].bytes)) {
      const next = this.waiting.shift()!;
      this.take(next.bytes);
      next.go();
    }
  }
}
