/**
 * The fair spread's memory (lease-keeper.ts, step 3 of a beat): the companies this node handed back, with
 * when; and those it took back because no other node did within two leases (a company only this node's
 * configuration has). Those are not handed back again while the live count stays the same, so such a
 * company is never left without an owner.
 */
export class FairShare {
  private readonly handedBack = new Map<string, number>();
  private readonly orphans = new Set<string>();
  private orphansAtLive = 0;

  constructor(
    private readonly leaseMs: number,
    private readonly mono: () => number,
  ) {}

  /**
   * Of the companies held and not leaving, those above `target` (the last by name first); companies taken
   * back as orphans stay. A new live count forgets the orphans: another node may know them now.
   */
  extras(staying: readonly string[], live: number, target: number): string[] {
    if (live !== this.orphansAtLive) this.orphans.clear();
    this.orphansAtLive = live;
    return staying
      .filter((company) => !this.orphans.has(company))
      .sort()
      .slice(target);
  }

  /** The company was handed back now. */
  handedBackNow(company: string): void {
    this.handedBack.set(company, this.mono());
  }

  /** Companies handed back over two leases ago, still configured and not held: no other node took them. Forgotten here. */
  unwanted(companies: readonly string[], held: ReadonlySet<string>): string[] {
    const unwanted = [...this.handedBack]
      .filter(
        ([c, at]) => this.mono() - at > 2 * this.leaseMs && companies.includes(c) && !held.has(c),
      )
      .map(([c]) => c);
    for (const c of unwanted) this.handedBack.delete(c);
    return unwanted;
  }

  /** Unwanted companies this node took back. */
  adopt(companies: Iterable<string>): void {
    for (const company of companies) this.orphans.add(company);
  }

  isOrphan(company: string): boolean {
    return this.orphans.has(company);
  }

  /** The company is no longer held here. */
  forget(company: string): void {
    this.orphans.delete(company);
  }

  /** How many of the held companies count against the fair share (orphans do not). */
  counted(held: Iterable<string>): number {
    let n = 0;
    for (const company of held) if (!this.orphans.has(company)) n++;
    return n;
  }
}
