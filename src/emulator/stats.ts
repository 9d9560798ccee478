/**
 * Request statistics, so tests can prove "exactly once" and "never over the
 * rate": requests per endpoint and status, peak concurrency, the busiest
 * one-second window per company and how many faults were injected.
 */

export interface StatsSnapshot {
  requests: Record<string, Record<string, number>>;
  totalRequests: number;
  inFlight: number;
  /** Operations (E1…E12) being answered now, so a test can wait for submissions held by latency alone. */
  inFlightByOperation: Record<string, number>;
  peakConcurrency: number;
  /** Most requests any company sent within one sliding second (arrivals, including refused ones). */
  busiestSecond: Record<string, number>;
  faultsInjected: Record<string, number>;
  faultsInjectedTotal: number;
}

export class Stats {
  private requests = new Map<string, Map<string, number>>();
  private total = 0;
  private inFlight = 0;
  private readonly inFlightOps = new Map<string, number>();
  private peak = 0;
  private arrivals = new Map<string, number[]>();
  private busiest = new Map<string, number>();
  private faults = new Map<string, number>();

  begin(): void {
    this.inFlight += 1;
    if (this.inFlight > this.peak) this.peak = this.inFlight;
  }

  end(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** A routed operation is being answered until its response closes (`operationEnd`). */
  operationBegin(op: string): void {
    this.inFlightOps.set(op, (this.inFlightOps.get(op) ?? 0) + 1);
  }

  operationEnd(op: string): void {
    const n = (this.inFlightOps.get(op) ?? 0) - 1;
    if (n > 0) this.inFlightOps.set(op, n);
    else this.inFlightOps.delete(op);
  }

  /**
   * A request arrived for a company (window is (now - 1000, now]). `_op` (E1…E12) is not counted here:
   * it is passed so an observer wrapping this method (the bench's trace) can tell a submission from a
   * read such as E10 that the daemon makes at start.
   */
  arrival(company: string, now: number, _op?: string): void {
    let times = this.arrivals.get(company);
    if (times === undefined) {
      times = [];
      this.arrivals.set(company, times);
    }
    while (times.length > 0 && times[0] <= now - 1000) times.shift();
    times.push(now);
    if (times.length > (this.busiest.get(company) ?? 0)) this.busiest.set(company, times.length);
  }

  /** `endpoint` is the operation id (E1…E12) or the route for anything else; status 0 = no answer. */
  record(endpoint: string, status: number): void {
    this.total += 1;
    let byStatus = this.requests.get(endpoint);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.requests.set(endpoint, byStatus);
    }
    const key = status === 0 ? 'no-answer' : String(status);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }

  fault(kind: string): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  reset(): void {
    this.requests = new Map();
    this.total = 0;
    this.peak = this.inFlight;
    this.arrivals = new Map();
    this.busiest = new Map();
    this.faults = new Map();
  }

  snapshot(): StatsSnapshot {
    const requests: Record<string, Record<string, number>> = {};
    for (const [ep, byStatus] of this.requests) requests[ep] = Object.fromEntries(byStatus);
    let faultsTotal = 0;
    for (const n of this.faults.values()) faultsTotal += n;
    return {
      requests,
      totalRequests: this.total,
      inFlight: this.inFlight,
      inFlightByOperation: Object.fromEntries(this.inFlightOps),
      peakConcurrency: this.peak,
      busiestSecond: Object.fromEntries(this.busiest),
      faultsInjected: Object.fromEntries(this.faults),
      faultsInjectedTotal: faultsTotal,
    };
  }
}
