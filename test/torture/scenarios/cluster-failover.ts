/**
 * Issue 13 "Must show" 2, failover time: 3 nodes, 6 companies sending steadily (one long file each, each
 * company at its own rate); a node that holds companies is SIGKILLed, and the time from the kill until the
 * first request for one of its companies reaches the emulator is taken (the emulator's own arrival hook,
 * same clock as the kill; arrivals within the first 100 ms are the dead node's requests still in the socket
 * and are ignored). It restarts under the same name and the time until it holds a company again is taken
 * too (rebalance). Then the same with SIGTERM (graceful stop: the leases are handed over at once).
 */
import {
  ClusterNode,
  clusterCompanies,
  createClusterProject,
  LedgerReader,
} from '../../helpers/cluster-project.js';
import { eventually, startTestEmulator, type TestEmulator } from '../../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../../helpers/documents.js';

export interface FailoverOptions {
  leaseMs: number;
  kills: number;
  stops: number;
  documentsPerCompany: number;
  rate: number;
}

export interface FailoverReport {
  leaseMs: number;
  /** SIGKILL → first request for one of the dead node's companies, per kill. */
  killMs: number[];
  killMedianMs: number;
  killMaxMs: number;
  /** SIGTERM → first request for one of its companies from another node. */
  stopMs: number[];
  stopMedianMs: number;
  stopMaxMs: number;
  /** A restarted node: start → it holds a company again. */
  rejoinMs: number[];
  requestsDuring: number;
  seconds: number;
}

export function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid] : Math.round((v[mid - 1] + v[mid]) / 2);
}

/** Arrival times per company id at the emulator (wraps its statistics, as the bench does). */
function traceArrivals(emulator: TestEmulator): Map<string, number[]> {
  const arrivals = new Map<string, number[]>();
  const stats = emulator.running.stats;
  const original = stats.arrival.bind(stats);
  stats.arrival = (company: string, now: number) => {
    arrivals.set(company, [...(arrivals.get(company) ?? []), now]);
    original(company, now);
  };
  return arrivals;
}

export async function runFailoverScenario(
  o: FailoverOptions,
  log: (line: string) => void = () => {},
): Promise<FailoverReport> {
  const started = Date.now();
  const companies = clusterCompanies(6, [o.rate]);
  const idOf = new Map(companies.map((c) => [c.alias, String(c.id)]));
  let emulator: TestEmulator | undefined;
  let made: Awaited<ReturnType<typeof createClusterProject>> | undefined;
  let ledger: LedgerReader | undefined;
  const nodes: ClusterNode[] = [];
  try {
    emulator = await startTestEmulator(companies, { latencyMs: 20 });
    const arrivals = traceArrivals(emulator);
    made = await createClusterProject({ baseUrl: emulator.url, companies }, o.leaseMs);
    const { project } = made;
    ledger = await LedgerReader.open(made.db);
    const reader = ledger;
    for (const name of ['node-a', 'node-b', 'node-c']) nodes.push(new ClusterNode(name, project));
    await Promise.all(nodes.map((n) => n.start()));
    for (const c of companies) {
      const docs = Array.from({ length: o.documentsPerCompany }, (_, k) =>
        invoice(990_000_001 + k, c),
      );
      await project.drop('invoice', `constante-${c.alias}.jsonl`, jsonlText(docs), c.alias);
    }
    const firstAfter = (aliases: readonly string[], after: number, what: string): Promise<number> =>
      eventually(
        () => {
          let first: number | undefined;
          for (const a of aliases) {
            const t = (arrivals.get(idOf.get(a) ?? '') ?? []).find((x) => x > after);
            if (t !== undefined && (first === undefined || t < first)) first = t;
          }
          return first;
        },
        what,
        o.leaseMs * 4 + 20_000,
      );
    const spread = (): Promise<Map<string, string[]>> =>
      eventually(
        async () => {
          const owned = await reader.owned();
          return nodes.every((n) => n.running && (owned.get(n.name)?.length ?? 0) > 0)
            ? owned
            : undefined;
        },
        'every node holding a company',
        o.leaseMs * 4 + 20_000,
      );
    const requestsBefore = (await emulator.client.stats()).totalRequests;
    const killMs: number[] = [];
    const stopMs: number[] = [];
    const rejoinMs: number[] = [];
    for (let i = 0; i < o.kills + o.stops; i++) {
      const owned = await spread();
      const victim = nodes[i % nodes.length];
      const held = owned.get(victim.name) ?? [];
      // the other nodes' companies are busy too; wait until the victim's are (its senders run)
      await firstAfter(held, Date.now(), `${victim.name} sending`);
      const graceful = i >= o.kills;
      const at = Date.now();
      if (graceful) victim.signal('SIGTERM');
      else await victim.kill();
      const first = await firstAfter(
        held,
        at + 100,
        `a request for ${held.join(', ')} after ${graceful ? 'SIGTERM' : 'SIGKILL'}`,
      );
      (graceful ? stopMs : killMs).push(first - at);
      if (graceful) await victim.process?.exited;
      const restartAt = Date.now();
      await victim.start();
      await eventually(
        async () => (((await reader.owned()).get(victim.name)?.length ?? 0) > 0 ? true : undefined),
        `${victim.name} holding a company again`,
        o.leaseMs * 4 + 20_000,
      );
      rejoinMs.push(Date.now() - restartAt);
      log(
        `leaseMs ${o.leaseMs}: ${graceful ? 'SIGTERM' : 'SIGKILL'} ${victim.name} (${held.join(', ')}): first request from another node after ${first - at} ms`,
      );
    }
    const requestsDuring = (await emulator.client.stats()).totalRequests - requestsBefore;
    return {
      leaseMs: o.leaseMs,
      killMs,
      killMedianMs: median(killMs),
      killMaxMs: Math.max(...killMs),
      stopMs,
      stopMedianMs: median(stopMs),
      stopMaxMs: Math.max(...stopMs),
      rejoinMs,
      requestsDuring,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
    await ledger?.close();
    await emulator?.close();
    await made?.project.remove();
    await made?.db.drop();
  }
}
