/**
 * A company's take gate: a file taken for the company holds it shared from the moment its company is
 * chosen until the ledger recorded the file (or the take was dropped); a reload that changes the
 * company's id or NIT holds it alone while it decides and applies the change. So the reload's check
 * of the company's open files (daemon/company-change.ts) also sees every file taken under the identity
 * it replaces: a take in flight is waited for and then counted, and a new one waits and then reads the
 * identity the reload left. In memory, per file (never per document), no ledger write of its own.
 * Holds are granted first come, first served: a reload waiting is not starved by a stream of takes.
 */

/** Ends a hold; a second call does nothing. */
export type Release = () => void;

interface Waiter {
  alone: boolean;
  grant: () => void;
}

export class TakeGate {
  private shared = 0;
  private alone = false;
  private readonly waiting: Waiter[] = [];

  /** Files being taken now (their record not yet committed). */
  get taking(): number {
    return this.shared;
  }

  /** Holds the gate shared (a file being taken): granted at once unless a reload holds or waits for it. */
  take(): Promise<Release> {
    return this.hold(false);
  }

  /** Holds the gate alone (a reload deciding an identity change): once every take in flight is recorded. */
  decide(): Promise<Release> {
    return this.hold(true);
  }

  private hold(alone: boolean): Promise<Release> {
    return new Promise((resolve) => {
      this.waiting.push({ alone, grant: () => resolve(this.releaser(alone)) });
      this.pump();
    });
  }

  private releaser(alone: boolean): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (alone) this.alone = false;
      else this.shared -= 1;
      this.pump();
    };
  }

  private pump(): void {
    for (let next = this.waiting[0]; next !== undefined; next = this.waiting[0]) {
      if (this.alone || (next.alone && this.shared > 0)) return;
      this.waiting.shift();
      if (next.alone) this.alone = true;
      else this.shared += 1;
      next.grant();
    }
  }
}
