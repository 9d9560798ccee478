/**
 * Where a company went over its cap, and what happened around it: the emulator's arrivals per company
 * (its statistics wrapped in this process, as the bench does), the scenario's own chaos events (kills,
 * restarts, the freeze, the cut) and the nodes' lease events from their logs ('cluster: company taken',
 * handed over, lost). One clock: the emulator runs in this process, the nodes on the same machine.
 */
import type { ClusterNode } from '../../helpers/cluster-project.js';
import type { TestCompany, TestEmulator } from '../../helpers/daemon-harness.js';

export interface OverCapWindow {
  company: string;
  /** Seconds since the scenario started. */
  at: number;
  requests: number;
  cap: number;
  /** What happened from 1.5 s before the window to its end, with offsets from its start. */
  around: string[];
}

export class Timeline {
  readonly started = Date.now();
  private readonly events: { t: number; what: string }[] = [];
  private readonly arrivals = new Map<string, number[]>();

  mark(what: string): void {
    this.events.push({ t: Date.now(), what });
  }

  /** Keeps every arrival time per company id from now on. */
  trace(emulator: TestEmulator): void {
    const stats = emulator.running.stats;
    const original = stats.arrival.bind(stats);
    stats.arrival = (company: string, now: number) => {
      let list = this.arrivals.get(company);
      if (list === undefined) this.arrivals.set(company, (list = []));
      list.push(now);
      original(company, now);
    };
  }

  /** Every stretch where a company had more arrivals within one sliding second than its cap (the first `max`). */
  overCap(
    companies: readonly TestCompany[],
    nodes: readonly ClusterNode[],
    max = 12,
  ): OverCapWindow[] {
    const leaseEvents = nodes.flatMap((n) =>
      n.view
        .logLines()
        .filter(
          (l) =>
            typeof l.msg === 'string' &&
            l.msg.startsWith('cluster: ') &&
            l.msg !== 'cluster: node joined',
        )
        .map((l) => ({
          t: Date.parse(String(l.time)),
          what: `${n.name}: ${l.msg.slice(9)}${typeof l.company === 'string' ? ` ${l.company}` : ''}${typeof l.epoch === 'number' ? ` @${l.epoch}` : ''}`,
          company: l.company,
        })),
    );
    const out: OverCapWindow[] = [];
    for (const c of companies) {
      const cap = c.rate?.requestsPerSecond ?? Infinity;
      const times = this.arrivals.get(String(c.id)) ?? [];
      let until = -Infinity;
      for (let i = 0; i + cap < times.length; i++) {
        // the window (t - 1000, t] of arrival i + cap holds cap + 1 arrivals
        if (times[i + cap] - times[i] >= 1000 || times[i] < until) continue;
        let j = i + cap;
        while (j + 1 < times.length && times[j + 1] - times[i] < 1000) j++;
        until = times[i] + 1000;
        const from = times[i] - 1500;
        const around = [
          ...this.events,
          ...leaseEvents.filter((e) => e.company === undefined || e.company === c.alias),
        ]
          .filter((e) => e.t >= from && e.t <= until)
          .sort((a, b) => a.t - b.t)
          .map((e) => `${((e.t - times[i]) / 1000).toFixed(2)}s ${e.what}`);
        out.push({
          company: c.alias,
          at: Math.round((times[i] - this.started) / 100) / 10,
          requests: j - i + 1,
          cap,
          around,
        });
      }
    }
    return out.sort((a, b) => a.at - b.at).slice(0, max);
  }
}
